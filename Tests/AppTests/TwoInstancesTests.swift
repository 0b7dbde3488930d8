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

  /// Starts Trellis on `script` (written to its standard input); its output goes to `output`.
  /// Without a `server`, it runs its embedded demo backend (the default mode) with two-second
  /// tokens.
  private func start(
    _ script: String, server: URL?, data: URL, output: URL
  ) throws -> Process {
    guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: output.path])
    }
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
    try input.fileHandleForWriting.write(contentsOf: Data(script.utf8))
    try input.fileHandleForWriting.close()
    return process
  }

  /// Rounds of reloading the task list, a second apart: with two-second tokens each round
  /// may need a refresh, and the two instances' tokens expire together.
  private static func rounds(_ count: Int) -> String {
    (0..<count).map { _ in "sleep 0.9\ntap Refresh\nexpect Crash when rotating\n" }.joined()
  }

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
    let firstOutput = data.appendingPathComponent("first.out")
    let secondOutput = data.appendingPathComponent("second.out")

    let first = try start(
      """
      type username alice
      type password alice1234
      tap Sign in
      expect Welcome, Alice Kim
      menu Tasks
      expect Crash when rotating
      \(Self.rounds(10))expect-not Sign in to Trellis
      quit
      """, server: server.baseURL, data: data, output: firstOutput)
    // The second copy starts once the first has signed in: it comes up signed in.
    let session = data.appendingPathComponent("session.json")
    let deadline = ContinuousClock.now + .seconds(30)
    while !FileManager.default.fileExists(atPath: session.path), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
    let second = try start(
      """
      expect Welcome, Alice Kim
      menu Tasks
      expect Crash when rotating
      \(Self.rounds(8))expect-not Sign in to Trellis
      quit
      """, server: server.baseURL, data: data, output: secondOutput)

    for process in [first, second] {
      while process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
    }
    let printed = [firstOutput, secondOutput].map {
      (try? String(contentsOf: $0, encoding: .utf8)) ?? ""
    }
    #expect(first.terminationStatus == 0, "first: \(printed[0])")
    #expect(second.terminationStatus == 0, "second: \(printed[1])")
    for output in printed { #expect(!output.contains("session has ended"), "\(output)") }
    #expect(FileManager.default.fileExists(atPath: session.path))

    let log = try String(contentsOf: data.appendingPathComponent("trellis.log"), encoding: .utf8)
    let lines = log.split(separator: "\n")
    let refreshes = lines.filter {
      $0.contains("Refreshed the access token") || $0.contains("Took the session another")
    }
    #expect(refreshes.count >= 4, "the tokens were refreshed \(refreshes.count) times")
    // Every line is one whole record: `<date> [<level>] [<category>] <message>`.
    let broken = lines.filter { line in
      !(line.hasPrefix("20") && line.contains(" [") && line.contains("] ["))
    }
    #expect(broken.isEmpty, "\(broken.count) broken lines, first: \(broken.first ?? "")")
    #expect(!log.contains("The session ended"))
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

    let first = try start(
      """
      type username alice
      type password alice1234
      tap Sign in
      expect Welcome, Alice Kim
      menu Tasks
      expect Crash when rotating
      \(Self.rounds(8))expect-not Sign in to Trellis
      quit
      """, server: nil, data: data, output: outputs[0])
    let session = data.appendingPathComponent("session.json")
    let deadline = ContinuousClock.now + .seconds(30)
    while !FileManager.default.fileExists(atPath: session.path), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
    let second = try start(
      """
      expect Welcome, Alice Kim
      menu Tasks
      expect Crash when rotating
      \(Self.rounds(6))expect-not Sign in to Trellis
      quit
      """, server: nil, data: data, output: outputs[1])
    for process in [first, second] {
      while process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
    }
    // The next launch is still signed in.
    let third = try start(
      """
      expect Welcome, Alice Kim
      quit
      """, server: nil, data: data, output: outputs[2])
    while third.isRunning { try await Task.sleep(for: .milliseconds(50)) }

    let printed = outputs.map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" }
    for (index, process) in [first, second, third].enumerated() {
      #expect(process.terminationStatus == 0, "copy \(index + 1): \(printed[index])")
      #expect(!printed[index].contains("session has ended"), "\(printed[index])")
    }
    let log = try String(contentsOf: data.appendingPathComponent("trellis.log"), encoding: .utf8)
    let adoptions = log.split(separator: "\n").filter { $0.contains("Took the session another") }
    #expect(!adoptions.isEmpty, "no copy took the other's session: the test proved nothing")
    #expect(!log.contains("The session ended"))
  }
}
