import Foundation
import Synchronization
import Testing
import TrellisCoreTesting
import TrellisDemoBackend
import TrellisLoopbackServer

/// Two copies of the app sharing one data folder, as two terminal windows of one user would:
/// they refresh the same session again and again against a server that rotates refresh
/// tokens and accepts no replaced one, and neither is signed out, and their log lines stay whole.
@Suite("Two instances of the app sharing a data folder", .capturesLogs, .timeLimit(.minutes(2)))
struct TwoInstancesTests {
  /// The built `Trellis` executable, next to the test bundle.
  private var trellis: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("Trellis")
  }

  /// A running copy of the app, whose script the test writes as it goes: both copies stay
  /// up until the test has seen what it waits for, however slowly a loaded machine starts
  /// them (a script written whole let the first copy finish before the second had begun).
  private struct Copy {
    let process: Process
    let input: FileHandle
    let output: URL

    /// Writes script lines; a copy that has already exited is left to the final checks.
    func send(_ lines: String) {
      try? input.write(contentsOf: Data(lines.utf8))
    }

    /// Ends the script with `lines` and `quit`, and waits (at most a minute) for the exit.
    func finish(_ lines: String = "") async throws {
      send(lines + "quit\n")
      try? input.close()
      let deadline = ContinuousClock.now + .seconds(60)
      while process.isRunning, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(50))
      }
      if process.isRunning { process.terminate() }
      process.waitUntilExit()
    }

    /// What the copy printed.
    var printed: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
  }

  /// Starts Trellis with `script` written to its standard input, which stays open for
  /// ``Copy/send(_:)``; its output goes to `output`. Without a `server`, it runs its embedded
  /// demo backend (the default mode) with two-second tokens.
  private func start(
    _ script: String, server: URL?, data: URL, output: URL
  ) throws -> Copy {
    guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: output.path])
    }
    // A copy that exits early closes its end: the write must fail, not kill the test run.
    signal(SIGPIPE, SIG_IGN)
    let process = Process()
    process.executableURL = trellis
    process.arguments =
      (server.map { ["--server", $0.absoluteString] } ?? ["--instant", "--token-lifetime", "2"])
      + [
        "--data-dir", data.path, "--quiet",
        "--log-file", data.appendingPathComponent("trellis.log").path, "--log-level", "info",
      ]
    let input = Pipe()
    let handle = try FileHandle(forWritingTo: output)
    process.standardInput = input
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    let copy = Copy(process: process, input: input.fileHandleForWriting, output: output)
    copy.send(script)
    return copy
  }

  /// One round of reloading the task list: with two-second tokens a round a second apart may
  /// need a refresh, and the two instances' tokens expire together.
  private static let round = "tap Refresh\nexpect Crash when rotating\n"

  /// Waits (at most 30 s) for the first copy to sign in and save its session.
  private func waitForSession(in data: URL) async throws {
    let session = data.appendingPathComponent("session.json")
    let deadline = ContinuousClock.now + .seconds(30)
    while !FileManager.default.fileExists(atPath: session.path), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
    try #require(
      FileManager.default.fileExists(atPath: session.path), "the first copy never signed in")
  }

  /// Sends both copies a round a second, at least `minimum` rounds and at most 40, until
  /// `done` holds for the shared log; returns the rounds sent.
  private func runRounds(
    _ copies: [Copy], minimum: Int, log: URL, until done: (String) -> Bool
  ) async throws -> Int {
    var sent = 0
    while sent < 40 {
      try await Task.sleep(for: .milliseconds(900))
      for copy in copies { copy.send(Self.round) }
      sent += 1
      let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      if sent >= minimum, done(text) { break }
    }
    return sent
  }

  private static let signIn = """
    type username alice
    type password alice1234
    tap Sign in
    expect Welcome, Alice Kim
    menu Tasks
    expect Crash when rotating

    """

  private static let signedIn = """
    expect Welcome, Alice Kim
    menu Tasks
    expect Crash when rotating

    """

  @Test func neitherSignsTheOtherOutAndTheirLogLinesStayWhole() async throws {
    try #require(FileManager.default.isExecutableFile(atPath: trellis.path))
    var configuration = DemoConfiguration.instant
    configuration.accessTokenLifetime = .seconds(2)
    configuration.acceptsReplacedRefreshTokens = false  // a strict server: no second chance
    let backend = DemoBackend(configuration: configuration)
    let server = try LoopbackServer(router: backend.router)
    defer { server.stop() }
    let data = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-two-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: data) }
    let logFile = data.appendingPathComponent("trellis.log")

    let first = try start(
      Self.signIn, server: server.baseURL, data: data,
      output: data.appendingPathComponent("first.out"))
    // The second copy starts once the first has signed in: it comes up signed in.
    try await waitForSession(in: data)
    let second = try start(
      Self.signedIn, server: server.baseURL, data: data,
      output: data.appendingPathComponent("second.out"))
    _ = try await runRounds([first, second], minimum: 8, log: logFile) { log in
      Self.refreshes(in: log) >= 4
    }
    for copy in [first, second] { try await copy.finish("expect-not Sign in to Trellis\n") }

    for copy in [first, second] {
      #expect(copy.process.terminationStatus == 0, "\(copy.printed)")
      #expect(!copy.printed.contains("session has ended"), "\(copy.printed)")
    }
    #expect(
      FileManager.default.fileExists(atPath: data.appendingPathComponent("session.json").path))

    let log = try String(contentsOf: logFile, encoding: .utf8)
    let refreshes = Self.refreshes(in: log)
    #expect(refreshes >= 4, "the tokens were refreshed \(refreshes) times")
    // Every line is one whole record: `<date> [<level>] [<category>] <message>`.
    let broken = log.split(separator: "\n").filter { line in
      !(line.hasPrefix("20") && line.contains(" [") && line.contains("] ["))
    }
    #expect(broken.isEmpty, "\(broken.count) broken lines, first: \(broken.first ?? "")")
    #expect(!log.contains("The session ended"))
  }

  /// The log lines of a refresh, by this copy or taken from the other.
  private static func refreshes(in log: String) -> Int {
    log.split(separator: "\n").count {
      $0.contains("Refreshed the access token") || $0.contains("Took the session another")
    }
  }

  /// The default mode: each copy runs its own embedded demo backend, both keeping their
  /// sessions in the shared folder. One copy refreshes, the other takes the refreshed session
  /// from `session.json`: its backend must know those tokens (the backends share their sessions
  /// through the folder), or it would be refused, end the session and delete the file, and the
  /// first copy would be signed out at its next launch.
  @Test func inTheDefaultModeNeitherSignsTheOtherOutNorDeletesTheSession() async throws {
    try #require(FileManager.default.isExecutableFile(atPath: trellis.path))
    let data = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-two-embedded-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: data) }
    let outputs = (1...3).map { data.appendingPathComponent("copy\($0).out") }
    let logFile = data.appendingPathComponent("trellis.log")
    let adopted = "Took the session another"

    let first = try start(Self.signIn, server: nil, data: data, output: outputs[0])
    try await waitForSession(in: data)
    let second = try start(Self.signedIn, server: nil, data: data, output: outputs[1])
    // Both stay up, reloading, until one has taken the other's refreshed session.
    _ = try await runRounds([first, second], minimum: 6, log: logFile) { $0.contains(adopted) }
    for copy in [first, second] { try await copy.finish("expect-not Sign in to Trellis\n") }
    // The next launch is still signed in.
    let third = try start(Self.signedIn, server: nil, data: data, output: outputs[2])
    try await third.finish()

    for (index, copy) in [first, second, third].enumerated() {
      #expect(copy.process.terminationStatus == 0, "copy \(index + 1): \(copy.printed)")
      #expect(!copy.printed.contains("session has ended"), "\(copy.printed)")
    }
    let log = try String(contentsOf: logFile, encoding: .utf8)
    #expect(log.contains(adopted), "no copy took the other's session: the test proved nothing")
    #expect(!log.contains("The session ended"))
  }
}
