import Foundation
import Testing
import TrellisCoreTesting
import TrellisDemoBackend
import TrellisLoopbackServer

@testable import Trellis

/// What the user saw is there at the next launch, with or without a network, and is theirs
/// alone: gone from the device once they sign out.
@MainActor
@Suite(
  "Stored data end to end: a relaunch offline, then a sign-out", .capturesLogs,
  .timeLimit(.minutes(2)))
struct StoredDataEndToEndTests {
  @Test func tasksSeenBeforeAQuitShowOfflineWithTheirAgeAndLeaveNoTraceAfterSignOut()
    async throws
  {
    let backend = DemoBackend(configuration: .instant)
    let server = try LoopbackServer(router: backend.router)
    let first = try AppHarness(backend: backend, serverURL: server.baseURL)
    defer { first.cleanUp() }
    #expect(
      await first.run(
        EndToEndTests.signIn + """

          menu Tasks
          expect Crash when rotating
          select tasks Crash when rotating the compose screen
          expect Project: Mobile App
          back
          """) == .completed(commands: 10), "\(first.transcript.joined(separator: "\n"))")
    // No token and no password is in what the device keeps for the screens.
    let session = try JSONDecoder().decode(
      [String: JSONValue].self,
      from: Data(contentsOf: first.dataDirectory.appendingPathComponent("session.json")))
    for secret in [session["accessToken"]?.text, session["refreshToken"]?.text, "alice1234"] {
      let secret = try #require(secret)
      #expect(
        try !anyFile(under: first.dataDirectory.appendingPathComponent("cache"), contains: secret))
      #expect(
        try !anyFile(under: first.dataDirectory.appendingPathComponent("drafts"), contains: secret))
    }
    // The app quits (this process keeps nothing of it) and the server goes away.
    server.stop()

    // Relaunched with the server unreachable: signed in (the session was kept), and the task
    // list shows what it showed, marked with its age; the task opened before shows in full.
    let relaunched = try AppHarness(
      backend: backend, serverURL: URL(string: "http://127.0.0.1:9")!,
      dataDirectory: first.dataDirectory)
    #expect(
      await relaunched.run(
        """
        expect Welcome, Alice Kim
        menu Tasks
        expect Crash when rotating
        wait Offline: showing the tasks as of
        select tasks Crash when rotating the compose screen
        expect Project: Mobile App
        wait Offline: showing the task as of
        back
        """, timeout: .seconds(15)) == .completed(commands: 8),
      "\(relaunched.transcript.joined(separator: "\n"))")

    // Signed out (offline: the server is not told, the device forgets anyway): no file in the
    // data folder holds a task title any more.
    #expect(
      await relaunched.run(
        """
        back
        menu Sign out
        expect Sign in to Trellis
        """) == .completed(commands: 3), "\(relaunched.transcript.joined(separator: "\n"))")
    #expect(try !anyFile(under: first.dataDirectory, contains: "Crash when rotating"))
  }

  /// A task being written when the app quits (Ctrl-Q, which does not ask: the form keeps a
  /// draft) is in the form when it opens at the next launch, fields and all; saved, the draft
  /// is gone from the disk.
  @Test func aTaskBeingWrittenSurvivesAQuitAndGoesOnceSaved() async throws {
    let backend = DemoBackend(configuration: .instant)
    let server = try LoopbackServer(router: backend.router)
    defer { server.stop() }
    let first = try AppHarness(backend: backend, serverURL: server.baseURL)
    defer { first.cleanUp() }
    #expect(
      await first.run(
        EndToEndTests.signIn + """

          menu New task
          select project Mobile App
          expect v1.0 Beta
          type title Half-written on the train
          toggle tags bug
          """) == .completed(commands: 10), "\(first.transcript.joined(separator: "\n"))")
    #expect(first.quit())  // no question: nothing is lost
    let drafts = first.dataDirectory.appendingPathComponent("drafts")
    #expect(try anyFile(under: drafts, contains: "Half-written on the train"))

    let relaunched = try AppHarness(
      backend: backend, serverURL: server.baseURL, dataDirectory: first.dataDirectory)
    #expect(
      await relaunched.run(
        """
        expect Welcome, Alice Kim
        menu New task
        expect Half-written on the train
        expect [x] bug
        tap Save
        expect Task created: Half-written on the train
        """) == .completed(commands: 6), "\(relaunched.transcript.joined(separator: "\n"))")
    #expect(relaunched.quit())
    #expect(try !anyFile(under: drafts, contains: "Half-written on the train"))
  }

  /// `--no-cache`: what an earlier launch kept is erased, and nothing is kept; the app works
  /// from the server as before.
  @Test func noCacheKeepsNothingAndErasesWhatWasKept() async throws {
    let backend = DemoBackend(configuration: .instant)
    let server = try LoopbackServer(router: backend.router)
    defer { server.stop() }
    let first = try AppHarness(backend: backend, serverURL: server.baseURL)
    defer { first.cleanUp() }
    #expect(
      await first.run(
        EndToEndTests.signIn + """

          menu Tasks
          expect Crash when rotating
          """) == .completed(commands: 7), "\(first.transcript.joined(separator: "\n"))")
    let cache = first.dataDirectory.appendingPathComponent("cache")
    #expect(try anyFile(under: cache, contains: "Crash when rotating"))

    #expect(
      try AppConfiguration(arguments: [], environment: [:], standardInputIsTerminal: true)
        .keepsAnswers)
    let uncached = try AppHarness(
      backend: backend, serverURL: server.baseURL, dataDirectory: first.dataDirectory,
      arguments: ["--no-cache"])
    #expect(!FileManager.default.fileExists(atPath: cache.path))
    #expect(
      await uncached.run(
        """
        expect Welcome, Alice Kim
        menu Tasks
        expect Crash when rotating
        expect-not as of
        """) == .completed(commands: 4), "\(uncached.transcript.joined(separator: "\n"))")
    #expect(!FileManager.default.fileExists(atPath: cache.path))
  }

  /// Whether a file under `folder` holds `text`.
  private func anyFile(under folder: URL, contains text: String) throws -> Bool {
    guard let files = FileManager.default.enumerator(atPath: folder.path) else { return false }
    for case let path as String in files {
      let data = (try? Data(contentsOf: folder.appendingPathComponent(path))) ?? Data()
      if String(decoding: data, as: UTF8.self).contains(text) { return true }
    }
    return false
  }
}

/// A JSON value of which only strings matter here.
private enum JSONValue: Decodable {
  case text(String)
  case other

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    self = (try? container.decode(String.self)).map(JSONValue.text) ?? .other
  }

  var text: String? {
    guard case .text(let text) = self else { return nil }
    return text
  }
}
