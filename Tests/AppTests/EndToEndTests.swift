import Foundation
import Testing
import TrellisCoreTesting
import TrellisDemoBackend
import TrellisFront

@testable import Trellis

@MainActor
@Suite("The app end to end, through script mode", .capturesLogs, .timeLimit(.minutes(2)))
struct EndToEndTests {
  static let signIn = """
    expect Sign in to Trellis
    type username alice
    type password alice1234
    tap Sign in
    expect Welcome, Alice Kim
    """

  @Test(arguments: AppHarness.Mode.allCases)
  func signInComposeWithAProjectChangeAndAnUploadSeeItAndSignOut(mode: AppHarness.Mode) async throws
  {
    let app = try AppHarness(mode)
    defer { app.cleanUp() }
    let file = app.dataDirectory.appendingPathComponent("screenshot.png")
    try FileManager.default.createDirectory(
      at: app.dataDirectory, withIntermediateDirectories: true)
    try Data(repeating: 7, count: 2048).write(to: file)
    let outcome = await app.run(
      Self.signIn + """

        expect ● Live
        menu New task
        select project Backend
        expect Q1 Hardening
        select project Mobile App
        expect v1.0 Beta
        expect-not Q1 Hardening
        type title Fix the crash on rotation
        select milestone v1.0 Beta
        toggle tags bug
        toggle assignees Bob Lee
        type file \(file.path)
        tap Attach
        expect Attachments: screenshot.png
        tap Save
        expect Task created: Fix the crash on rotation
        menu Tasks
        select project Mobile App
        expect Fix the crash on rotation
        expect 1 attachment
        menu Sign out
        expect Sign in to Trellis
        """)
    #expect(outcome == .completed(commands: 27), "\(app.transcript.joined(separator: "\n"))")
    #expect(app.dependencies.authService.sessionState.value == .signedOut)
  }

  /// The script `Tests/Scripts/<name>`, its path, and how many commands it has (lines that are
  /// neither blank nor comments).
  private static func script(_ name: String) throws -> (text: String, path: URL, commands: Int) {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Scripts/\(name)")
    let text = try String(contentsOf: path, encoding: .utf8)
    let commands = text.split(separator: "\n").filter {
      let line = $0.trimmingCharacters(in: .whitespaces)
      return !line.isEmpty && !line.hasPrefix("#")
    }
    return (text, path, commands.count)
  }

  /// The script README shows (`--script Tests/Scripts/tour.txt`) runs to its end.
  @Test func theTourScriptInTheReadmeRuns() async throws {
    let (script, _, commands) = try Self.script("tour.txt")
    let app = try AppHarness(.embedded)
    defer { app.cleanUp() }
    let outcome = await app.run(script)
    #expect(outcome == .completed(commands: commands), "\(app.transcript.joined(separator: "\n"))")
  }

  /// The task journey (`Tests/Scripts/tasks.txt`: pages, search, done, rename, delete, a
  /// viewer refused, an attachment opened) runs to its end; then, the server gone, marking the
  /// task done and deleting it are shown at once and kept, marked as not sent yet (the outbox
  /// sends them when the network returns: `OutboxEndToEndTests`).
  @Test func theTaskJourneyRunsAndChangesMadeOfflineWaitMarkedAsNotSent() async throws {
    let (script, path, commands) = try Self.script("tasks.txt")
    let app = try AppHarness(.loopback)
    defer { app.cleanUp() }
    // `type file Package.swift` is relative to the repository root, where the script runs.
    let root = path.deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let outcome = await app.run(
      script.replacingOccurrences(
        of: "type file Package.swift", with: "type file \(root.path)/Package.swift"))
    #expect(outcome == .completed(commands: commands), "\(app.transcript.joined(separator: "\n"))")

    app.stopServer()
    let offline = await app.run(
      """
      tap Mark done
      expect Status: Done
      expect Not sent yet
      back
      expect done · 1 attachment · not sent yet
      expect 1 change not sent yet
      select tasks Attach the build log
      tap Delete
      tap Delete task
      wait 2 changes not sent yet
      expect-not done · 1 attachment
      """)
    #expect(offline == .completed(commands: 11), "\(app.transcript.joined(separator: "\n"))")
  }

  @Test(arguments: AppHarness.Mode.allCases)
  func anExpiredTokenIsRefreshedWithoutTheUserNoticing(mode: AppHarness.Mode) async throws {
    let app = try AppHarness(mode)
    defer { app.cleanUp() }
    #expect(await app.run(Self.signIn) == .completed(commands: 5))
    let before = app.dependencies.authService.currentAccessToken
    app.clock.advance(by: 3600)  // the server now rejects that token with 401
    let outcome = await app.run(
      """
      menu Tasks
      expect Crash when rotating the compose screen
      expect-not Could not load tasks
      """)
    #expect(outcome == .completed(commands: 3), "\(app.transcript.joined(separator: "\n"))")
    let after = app.dependencies.authService.currentAccessToken
    #expect(after != nil && after != before)
  }

  /// A server that goes away is an offline state, not an error: the list keeps what it showed,
  /// says it is not current, and the app keeps running and navigating.
  @Test func aServerThatGoesDownKeepsTheListAndTheAppKeepsRunning() async throws {
    let app = try AppHarness(.loopback)
    defer { app.cleanUp() }
    #expect(
      await app.run(Self.signIn + "\nmenu Tasks\nexpect Crash when rotating")
        == .completed(commands: 7))
    app.stopServer()
    let outcome = await app.run(
      """
      tap Refresh
      expect Offline: showing the tasks as last loaded
      expect Crash when rotating
      expect ○ Offline
      menu Profile
      expect Profile
      back
      """)
    #expect(outcome == .completed(commands: 7), "\(app.transcript.joined(separator: "\n"))")
    #expect(!app.transcript.joined().contains("Could not load tasks"))
  }

  @Test func aRevokedSessionReturnsToLoginFromAnyScreen() async throws {
    let app = try AppHarness(.embedded)
    defer { app.cleanUp() }
    #expect(
      await app.run(Self.signIn + "\nmenu Profile\nexpect Display name: Alice Kim\nexpect ● Live")
        == .completed(commands: 8))
    app.backend.revokeSessions(of: "alice")
    let outcome = await app.run(
      """
      expect Your session was ended on the server.
      expect Sign in to Trellis
      """)
    #expect(outcome == .completed(commands: 2), "\(app.transcript.joined(separator: "\n"))")
  }

  @Test func aTaskCreatedElsewhereAppearsInTheOpenList() async throws {
    let app = try AppHarness(.embedded)
    defer { app.cleanUp() }
    #expect(
      await app.run(Self.signIn + "\nexpect ● Live\nmenu Tasks\nexpect Crash when rotating")
        == .completed(commands: 8))
    app.backend.createTaskElsewhere(projectID: 1, title: "Made by Carol")
    #expect(await app.run("expect Made by Carol") == .completed(commands: 1))
  }

  @Test func aFailedUploadShowsAnAlertAndHidesTheIndicator() async throws {
    let app = try AppHarness(.embedded)
    defer { app.cleanUp() }
    let file = app.dataDirectory.appendingPathComponent("notes.txt")
    try FileManager.default.createDirectory(
      at: app.dataDirectory, withIntermediateDirectories: true)
    try Data("hello".utf8).write(to: file)
    app.backend.configure { $0.failsUploads = true }
    let outcome = await app.run(
      Self.signIn + """

        menu New task
        type file \(file.path)
        tap Attach
        expect Upload failed
        expect The upload failed on the server. Try again.
        tap OK
        expect Attachments: none
        expect-not Uploading
        type file /no/such/file.png
        tap Attach
        expect Cannot read file.png
        tap OK
        """)
    #expect(outcome == .completed(commands: 17), "\(app.transcript.joined(separator: "\n"))")
  }

  @Test func aScriptStopsAtTheFirstFailingLineWithItsNumber() async throws {
    let app = try AppHarness(.embedded)
    defer { app.cleanUp() }
    let outcome = await app.run("expect Sign in to Trellis\ntap Launch rockets\ntap Sign in")
    #expect(
      outcome
        == .failed(
          line: 2, command: "tap Launch rockets",
          reason: "no button \"Launch rockets\" (buttons: \"Sign in\")"))
    #expect(
      app.transcript.first
        == "line 2: tap Launch rockets: no button \"Launch rockets\" (buttons: \"Sign in\")")
  }

  @Test func theSessionSurvivesARestart() async throws {
    let first = try AppHarness(.embedded)
    defer { first.cleanUp() }
    #expect(await first.run(Self.signIn) == .completed(commands: 5))
    let configuration = try AppConfiguration(
      arguments: ["--data-dir", first.dataDirectory.path, "--instant"], environment: [:],
      standardInputIsTerminal: false)
    let restarted = CompositionRoot.resolve(configuration, embeddedBackend: first.backend)
    var options = ScriptSession.Options()
    options.printsFrames = false
    let session = ScriptSession(window: restarted.window, options: options) { _ in }
    let outcome = await session.run(
      AsyncStream {
        $0.yield("expect Welcome, Alice Kim")
        $0.finish()
      })
    #expect(outcome == .completed(commands: 1))
  }
}

@MainActor
@Suite("Links into the app, through script mode", .capturesLogs, .timeLimit(.minutes(1)))
struct DeepLinkEndToEndTests {
  @Test func aLinkOpenedBeforeSignInOpensAfterItAndABadOneExplainsItself() async throws {
    let app = try AppHarness(.embedded)
    defer { app.cleanUp() }
    let scheme = CompositionRoot.linkScheme  // the project's, after a rename too
    let outcome = await app.run(
      """
      expect Sign in to
      open \(scheme)://tasks/2
      type username alice
      type password alice1234
      tap Sign in
      expect Project: Mobile App
      expect Trellis · Task #2
      back
      expect Crash when rotating the compose screen
      open \(scheme)://compose?project=2
      expect ● 2. Backend
      open \(scheme)://tasks/lots
      expect Cannot open the link
      expect id must be a positive number
      tap OK
      """)
    #expect(outcome == .completed(commands: 15), "\(app.transcript.joined(separator: "\n"))")
  }
}
