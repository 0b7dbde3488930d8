import Foundation
import Testing
import TrellisCoreTesting

/// The built `Trellis` executable, next to the test bundle.
private var trellisExecutable: URL {
  URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("Trellis")
}

@Suite("The Trellis process", .capturesLogs, .timeLimit(.minutes(1)))
struct ProcessTests {
  /// Runs Trellis with its standard output and error going into pipes whose reading ends are
  /// already closed: every write fails (EPIPE).
  private func runWithClosedOutput(_ arguments: [String]) throws -> (
    Int32, Process.TerminationReason
  ) {
    let process = Process()
    process.executableURL = trellisExecutable
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try output.fileHandleForReading.close()
    try errors.fileHandleForReading.close()
    try process.run()
    process.waitUntilExit()
    return (process.terminationStatus, process.terminationReason)
  }

  @Test func writingHelpOrAnErrorToAClosedPipeNeverCrashes() throws {
    try #require(FileManager.default.isExecutableFile(atPath: trellisExecutable.path))
    let help = try runWithClosedOutput(["--help"])
    #expect(help.1 == .exit && help.0 == 0)
    let bad = try runWithClosedOutput(["--no-such-option"])
    #expect(bad.1 == .exit && bad.0 == 2)
  }
}

@Suite("Relaunching the app", .capturesLogs, .timeLimit(.minutes(1)))
struct RelaunchTests {
  /// Runs Trellis in script mode on `script`; returns its status and everything it printed.
  private func run(
    _ script: String, dataDirectory: URL, arguments: [String] = []
  ) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = trellisExecutable
    process.arguments = ["--instant", "--quiet", "--data-dir", dataDirectory.path] + arguments
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
    try input.fileHandleForWriting.write(contentsOf: Data(script.utf8))
    try input.fileHandleForWriting.close()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
  }

  /// With the embedded demo backend, a relaunch stays signed in: the backend keeps the
  /// sessions it issued (private to the user), so the saved session is one it knows.
  @Test func aRelaunchStaysSignedInWithTheEmbeddedBackend() throws {
    try #require(FileManager.default.isExecutableFile(atPath: trellisExecutable.path))
    let data = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-relaunch-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: data) }
    let first = try run(
      "type username alice\ntype password alice1234\ntap Sign in\nexpect Welcome, Alice Kim\n",
      dataDirectory: data)
    #expect(first.0 == 0, "\(first.1)")
    let sessions = data.appendingPathComponent("demo-sessions.json").path
    let permissions = try FileManager.default.attributesOfItem(atPath: sessions)[.posixPermissions]
    #expect((permissions as? Int) == 0o600)
    let second = try run("expect Welcome, Alice Kim\nmenu Sign out\n", dataDirectory: data)
    #expect(second.0 == 0, "\(second.1)")
    #expect(!second.1.contains("session has ended"), "\(second.1)")
    #expect(!second.1.contains("session ended"), "\(second.1)")
    // Signed out: the next launch asks to sign in, without a "session ended" on the way.
    let third = try run("expect Sign in to\n", dataDirectory: data)
    #expect(third.0 == 0, "\(third.1)")
    #expect(!third.1.contains("ended"), "\(third.1)")
  }

  /// A `--trace` name that matches no reactor (a misspelling) is reported with the names that
  /// ran, instead of tracing nothing in silence; a right one is not reported.
  @Test func aTraceNameThatMatchesNoReactorIsReported() throws {
    try #require(FileManager.default.isExecutableFile(atPath: trellisExecutable.path))
    let data = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-trace-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: data) }
    let result = try run(
      "expect Sign in to\n", dataDirectory: data,
      arguments: ["--trace", "Login", "--trace", "LoginViewReactor"])
    #expect(result.0 == 0, "\(result.1)")
    #expect(result.1.contains("TRELLIS_TRACE) Login traced nothing: no reactor of that type ran"))
    #expect(result.1.contains("LoginViewReactor"))
    #expect(!result.1.contains("LoginViewReactor traced nothing"), "\(result.1)")
  }
}
