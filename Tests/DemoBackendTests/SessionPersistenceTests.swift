import Foundation
import Testing
import TrellisLoopbackServer
import TrellisNetwork

@testable import TrellisDemoBackend

@Suite("Demo backend: sessions kept between launches")
struct SessionPersistenceTests {
  private let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("demo-sessions-\(UUID().uuidString)", isDirectory: true)
  private var file: URL { folder.appendingPathComponent("sessions.json") }

  private func refresh(_ backend: DemoBackend, _ token: String) async -> ServerResponse {
    await Client(backend: backend).call(
      .post, "/auth/refresh", json: #"{"refreshToken":"\#(token)"}"#)
  }

  @Test func aSessionOutlivesTheBackendAndSigningOutEndsItForTheNextOne() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let first = DemoBackend(sessionsFile: file)
    let tokens = try await Client(backend: first).login()
    let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions]
    #expect((permissions as? Int) == 0o600)
    // A new backend (a relaunch) knows the session: the refresh token works, rotated; the
    // replaced one until its successor is used, on the next launch too.
    let second = DemoBackend(sessionsFile: file)
    let refreshed = await refresh(second, tokens.refreshToken)
    #expect(refreshed.status == 200)
    let lost = try decode(Wire.Tokens.self, refreshed)
    let retried = await refresh(DemoBackend(sessionsFile: file), tokens.refreshToken)
    #expect(retried.status == 200)
    let rotated = try decode(
      Wire.Tokens.self,
      await refresh(
        DemoBackend(sessionsFile: file), try decode(Wire.Tokens.self, retried).refreshToken))
    #expect(await refresh(DemoBackend(sessionsFile: file), tokens.refreshToken).status == 401)
    #expect(await refresh(DemoBackend(sessionsFile: file), lost.refreshToken).status == 401)
    // Signing out on one launch ends the session for the next.
    let third = DemoBackend(sessionsFile: file)
    _ = await Client(backend: third).call(
      .post, "/auth/logout", json: #"{"refreshToken":"\#(rotated.refreshToken)"}"#)
    #expect(await refresh(DemoBackend(sessionsFile: file), rotated.refreshToken).status == 401)
  }

  /// A copy of the app that died between writing the sessions' temporary file and renaming it
  /// left refresh tokens in `<file>.tmp-<pid>`. The next backend on the folder removes the
  /// files of processes that are gone, and any older than a minute; a fresh one of a live
  /// process (another copy writing now) is left alone.
  @Test func temporaryFilesOfADeadCopyAreRemovedAtLaunch() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let secret = Data(#"{"grants":[{"refreshToken":"rt-secret"}]}"#.utf8)
    // No process has an id this high (Linux's pid_max is at most 2^22).
    let ofADeadProcess = folder.appendingPathComponent("sessions.json.tmp-2147483000")
    let old = folder.appendingPathComponent("sessions.json.tmp-\(getpid())")
    let live = folder.appendingPathComponent("sessions.json.tmp-1")  // init: always running
    let unrelated = folder.appendingPathComponent("notes.json.tmp-2147483000")
    for leftover in [ofADeadProcess, old, live, unrelated] { try secret.write(to: leftover) }
    try FileManager.default.setAttributes(
      [.modificationDate: Date().addingTimeInterval(-120)], ofItemAtPath: old.path)
    _ = DemoBackend(sessionsFile: file)
    #expect(!FileManager.default.fileExists(atPath: ofADeadProcess.path))
    #expect(!FileManager.default.fileExists(atPath: old.path))
    #expect(FileManager.default.fileExists(atPath: live.path))
    #expect(FileManager.default.fileExists(atPath: unrelated.path))
  }

  /// A relaunched app's first requests (its event stream among them) carry the access token it
  /// saved; the relaunched backend knows it, so they do not first fail with 401 and a refresh.
  @Test func anAccessTokenOutlivesTheBackendUntilItExpires() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let clock = ManualClock()
    let tokens = try await Client(backend: DemoBackend(now: { clock.now }, sessionsFile: file))
      .login()
    let relaunched = Client(backend: DemoBackend(now: { clock.now }, sessionsFile: file))
    #expect(await relaunched.call(.get, "/me", token: tokens.accessToken).status == 200)
    clock.advance(by: 301)
    let later = Client(backend: DemoBackend(now: { clock.now }, sessionsFile: file))
    #expect(await later.call(.get, "/me", token: tokens.accessToken).status == 401)
  }

  @Test func aNewSessionAfterARelaunchGetsAnIdOfItsOwn() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let first = DemoBackend(sessionsFile: file)
    _ = try await Client(backend: first).login()
    let second = DemoBackend(sessionsFile: file)
    _ = try await Client(backend: second).login()
    let saved = try JSONDecoder.sessions.decode(
      DemoSessionFile.self, from: Data(contentsOf: file))
    #expect(Set(saved.grants.map(\.sessionID)).count == 2)
  }

  /// Two copies of the app on one data folder each embed a backend over the same sessions
  /// file: they behave as one server, so a session one refreshed is good at the other, and one
  /// signed out at either is over at both.
  @Test func twoBackendsSharingTheFileActAsOneServer() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let first = Client(backend: DemoBackend(sessionsFile: file))
    let second = Client(backend: DemoBackend(sessionsFile: file))
    let tokens = try await first.login()
    // The second copy knows the session the first signed in (it was started before).
    #expect(await second.call(.get, "/me", token: tokens.accessToken).status == 200)
    let refreshed = try decode(Wire.Tokens.self, await refresh(first.backend, tokens.refreshToken))
    // The second copy takes the session the first refreshed from session.json: its backend
    // accepts both tokens, and the rotation is the same for both.
    #expect(await second.call(.get, "/me", token: refreshed.accessToken).status == 200)
    let again = try decode(Wire.Tokens.self, await refresh(second.backend, refreshed.refreshToken))
    #expect(await first.call(.get, "/me", token: again.accessToken).status == 200)
    #expect(await refresh(first.backend, tokens.refreshToken).status == 401)
    // Signing out at one ends the session at the other.
    _ = await second.call(
      .post, "/auth/logout", json: #"{"refreshToken":"\#(again.refreshToken)"}"#)
    #expect(await refresh(first.backend, again.refreshToken).status == 401)
  }

  /// A write of the sessions file that fails (the disk is full, say) leaves the running
  /// backend's sessions as they are: the next refresh is not answered from the older file.
  @Test func aFailedWriteDoesNotUndoTheRunningBackendsSessions() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let backend = DemoBackend(sessionsFile: file)
    let tokens = try await Client(backend: backend).login()
    // Writes fail from now on: the temporary file's name is taken by a folder.
    try FileManager.default.createDirectory(
      atPath: file.path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)",
      withIntermediateDirectories: true)
    let rotated = try decode(Wire.Tokens.self, await refresh(backend, tokens.refreshToken))
    #expect(await refresh(backend, rotated.refreshToken).status == 200)
  }

  @Test(arguments: [
    Data("not json".utf8), Data(), Data(#"{"nextSessionID": 1, "grants": [{"x": 1}]}"#.utf8),
    Data(repeating: UInt8(ascii: " "), count: DemoSessionFile.maximumSize + 1),
  ])
  func aBrokenFileStartsWithNoSessionsAndNoTrap(contents: Data) async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try contents.write(to: file)
    let backend = DemoBackend(sessionsFile: file)
    #expect(backend.tokenCount == 0)
    _ = try await Client(backend: backend).login()  // and it writes a good file over it
    #expect(DemoBackend(sessionsFile: file).tokenCount == 2)  // the access and refresh token
  }

  @Test func expiredSessionsAndUnknownUsersAreNotRestored() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let saved = DemoSessionFile(
      nextSessionID: 5,
      grants: [
        .init(refreshToken: "rt_live", userID: 1, sessionID: 1, expiresAt: Date() + 3600),
        .init(refreshToken: "rt_old", userID: 1, sessionID: 2, expiresAt: Date() - 1),
        .init(refreshToken: "rt_ghost", userID: 999, sessionID: 3, expiresAt: Date() + 3600),
      ])
    try JSONEncoder.sessions.encode(saved).write(to: file)
    #expect(DemoBackend(sessionsFile: file).tokenCount == 1)
  }
}

extension JSONDecoder {
  fileprivate static var sessions: JSONDecoder { DemoBackend.sessionCoder.decoder }
}

extension JSONEncoder {
  fileprivate static var sessions: JSONEncoder { DemoBackend.sessionCoder.encoder }
}
