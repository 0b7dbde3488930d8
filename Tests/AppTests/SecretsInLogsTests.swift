import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisDemoBackend

@testable import Trellis

/// Every token the backend issued during a test.
private final class IssuedTokens: Sendable {
  private let tokens = Mutex<[String]>([])
  func append(_ token: String) { tokens.withLock { $0.append(token) } }
  var all: [String] { tokens.withLock { $0 } }
}

@MainActor
@Suite("No secret reaches a log", .capturesLogs, .serialized, .timeLimit(.minutes(2)))
struct SecretsInLogsTests {
  @Test(arguments: AppHarness.Mode.allCases)
  func aWholeSessionAtTheMostVerboseLevelLogsNoPasswordAndNoToken(mode: AppHarness.Mode)
    async throws
  {
    // Every logger without its own sink writes to the process-wide one; this test takes it
    // over at the most verbose level (other tests' lines land here too, which only adds lines
    // to search) and gives it back after.
    let sink = MemoryLogSink()
    let previous = (LogSystem.sink, LogSystem.minimumLevel)
    LogSystem.bootstrap(sink: sink, minimumLevel: .trace)
    defer { LogSystem.bootstrap(sink: previous.0, minimumLevel: previous.1) }

    // The reactors that see the password and the upload, traced too.
    let traced = ["LoginViewReactor", "TaskComposeViewReactor", "ProfileViewReactor"]
    ReactorTrace.enable(traced)
    defer { ReactorTrace.disable(traced) }
    let app = try AppHarness(mode, arguments: ["--log-level", "trace"])
    defer { app.cleanUp() }
    let issued = IssuedTokens()
    app.backend.observeIssuedTokens { issued.append($0) }
    let file = app.dataDirectory.appendingPathComponent("shot.png")
    try FileManager.default.createDirectory(
      at: app.dataDirectory, withIntermediateDirectories: true)
    try Data(repeating: 1, count: 512).write(to: file)

    #expect(await app.run(EndToEndTests.signIn) == .completed(commands: 5))
    app.clock.advance(by: 3600)  // the access token expires: the next request refreshes it
    let outcome = await app.run(
      """
      menu Tasks
      expect Crash when rotating the compose screen
      type search zqprivatewords
      expect No task matches
      menu New task
      type file \(file.path)
      tap Attach
      expect Attachments: shot.png
      menu Sign out
      expect Discard changes?
      tap Discard
      expect Sign in to Trellis
      """)
    #expect(outcome == .completed(commands: 12), "\(app.transcript.joined(separator: "\n"))")

    let tokens = issued.all
    #expect(tokens.count >= 4)  // sign-in and refresh, access and refresh tokens each
    let lines = sink.records.map(\.description)
    #expect(lines.contains { $0.contains("[HTTP]") && $0.contains("/auth/refresh") })
    #expect(lines.contains { $0.contains("curl -X POST") && $0.contains("/auth/login") })
    #expect(lines.contains { $0.contains("[LoginViewReactor] action setPassword(<redacted>)") })
    // What the user searches for is theirs: the request's log line shows `query=<redacted>`.
    #expect(
      lines.contains { $0.contains("[HTTP]") && $0.contains("query=<redacted>") },
      "\(lines.filter { $0.contains("/tasks") }.prefix(4))")
    #expect(!lines.contains { $0.contains("[HTTP]") && $0.contains("zqprivatewords") })
    for secret in ["alice1234"] + tokens {
      let leaks = lines.filter { $0.contains(secret) }
      #expect(leaks.isEmpty, "\(leaks.count) line(s) show a secret: \(leaks.prefix(3))")
    }
  }
}
