import Foundation
import Testing

/// The built `Trellis` executable, next to the test bundle.
private var trellisExecutable: URL {
  URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("Trellis")
}

@Suite("The Trellis process", .timeLimit(.minutes(1)))
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
