import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisNetwork
import TrellisRepository
import TrellisTestSupport

@testable import TrellisService

/// Two copies of the app on one session file: what one takes from the other.
@Suite("AuthService: a session taken from another instance", .capturesLogs, .timeLimit(.minutes(1)))
struct AdoptedSessionTests {
  private func makeService(
    _ repo: any AuthRepo, _ file: URL, now: @escaping @Sendable () -> Date = { Date() }
  ) -> AuthServiceImpl {
    AuthServiceImpl(
      repo: repo, store: FileSessionStore(fileURL: file),
      logger: Logger(category: "AuthService", sink: MemoryLogSink()), now: now)
  }

  /// The other instance refreshed long ago and quit: the session it saved has an expired
  /// access token. Sending it would only earn a `401`; it is refreshed at once instead.
  @Test func anAdoptedSessionWhoseAccessTokenExpiredIsRefreshedAtOnce() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    let server = RotatingAuthServer()
    // The first instance ran two hours ago: its tokens (an hour's life) have expired since.
    let first = makeService(RotatingAuthRepo(server: server), file) {
      Date().addingTimeInterval(-7200)
    }
    let second = makeService(RotatingAuthRepo(server: server), file)
    _ = try await first.login(username: "alice", password: "alice1234")
    _ = await second.restoreSession()
    _ = try await first.refreshAccessToken()
    let token = try await second.refreshAccessToken()
    #expect(server.refreshCalls == ["rt-1", "rt-2"])
    #expect(token.value == "at-3")
    #expect(!token.hasExpired())
  }

  /// A session this instance took from the file after another instance refreshed it is still
  /// that instance's: when this instance's server refuses it (two copies of the demo each run
  /// a backend of their own), it ends here, and the file keeps it for the other.
  @Test func aRefusedSessionTakenFromAnotherInstanceStaysInTheFile() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    let server = RotatingAuthServer()
    let first = makeService(RotatingAuthRepo(server: server), file)
    let second = makeService(RotatingAuthRepo(server: server), file)
    _ = try await first.login(username: "alice", password: "alice1234")
    _ = await second.restoreSession()
    _ = try await first.refreshAccessToken()
    let adopted = try await second.refreshAccessToken()
    #expect(server.refreshCalls == ["rt-1"])
    await second.invalidateSession(
      of: adopted, because: .refreshRejected("The session has ended. Sign in again."))
    #expect(second.sessionState.value.user == nil)
    #expect(try FileSessionStore(fileURL: file).load()?.refreshToken == "rt-2")
    #expect(first.sessionState.value.user?.username == "alice")
  }

  /// The session taken from the store had an expired token, and its refresh is refused: it
  /// ends here (not only the one held before), and stays in the file for its instance.
  @Test func anAdoptedSessionWhoseRefreshIsRefusedEnds() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    let server = RotatingAuthServer()
    let first = makeService(RotatingAuthRepo(server: server), file) {
      Date().addingTimeInterval(-7200)
    }
    let second = makeService(RotatingAuthRepo(server: server), file)
    _ = try await first.login(username: "alice", password: "alice1234")
    _ = await second.restoreSession()
    _ = try await first.refreshAccessToken()
    server.revoke("rt-2")  // the server ended it meanwhile
    await #expect(throws: AuthenticationFailure.self) { try await second.refreshAccessToken() }
    #expect(second.sessionState.value.user == nil)
    #expect(second.currentAccessToken == nil)
    #expect(try FileSessionStore(fileURL: file).load()?.refreshToken == "rt-2")
  }

  /// The refresh of the session held is refused because an instance that does not take turns
  /// spent its refresh token meanwhile; the session it saved is taken, its access token has
  /// expired, and its refresh is refused too. That session ends here: nobody else would end
  /// it (the plugin asks to end the one held before, which is no longer current).
  @Test func aSessionTakenAfterARefusalWhoseRefreshIsRefusedTooEnds() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    let server = RotatingAuthServer()
    let repo = RotatingAuthRepo(server: server)
    let start = Date()
    let clock = Mutex(start)
    let service = makeService(repo, file) { clock.withLock { $0 } }
    _ = try await service.login(username: "alice", password: "alice1234")
    clock.withLock { $0 = start.addingTimeInterval(7200) }
    repo.gate.close()
    let refresh = Task { try await service.refreshAccessToken() }
    await repo.gate.waitForArrivals(1)
    // Another instance, not taking turns, spends rt-1 and saves its session, issued an hour
    // ago (newer than the one held here; its access token has expired); then the server ends
    // that session too.
    let other = try server.refresh("rt-1")
    let issued = start.addingTimeInterval(3600)
    try FileSessionStore(fileURL: file).save(
      Session(
        accessToken: other.accessToken, expiresAt: issued.addingTimeInterval(600),
        refreshToken: other.refreshToken, user: User(UserModel.alice), issuedAt: issued))
    server.revoke(other.refreshToken)
    repo.gate.open()
    await #expect(throws: AuthenticationFailure.self) { try await refresh.value }
    #expect(server.refreshCalls == ["rt-1", "rt-1", "rt-2"])
    #expect(service.currentAccessToken == nil)
    #expect(service.sessionState.value.user == nil)
    // Taken from the other instance: the file keeps it for that instance to end.
    #expect(try FileSessionStore(fileURL: file).load()?.refreshToken == "rt-2")
  }

  /// Its own session refused, an instance removes it from the file as before.
  @Test func aRefusedSessionOfItsOwnIsRemovedFromTheFile() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    let service = makeService(RotatingAuthRepo(), file)
    _ = try await service.login(username: "alice", password: "alice1234")
    let token = try await service.refreshAccessToken()
    await service.invalidateSession(of: token, because: .refreshRejected("refused"))
    #expect(try FileSessionStore(fileURL: file).load() == nil)
  }
}

@Suite("FileSessionStore: what a crash leaves", .capturesLogs)
struct SessionLeftoverTests {
  /// A save writes a temporary file (tokens in it) and renames it; a crash in between leaves
  /// it. The next read removes such files once they are a minute old (a younger one may be
  /// another instance's save in progress).
  @Test func temporaryFilesACrashLeftAreRemoved() throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = FileSessionStore(fileURL: directory.url.appendingPathComponent("session.json"))
    try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
    let stale = directory.url.appendingPathComponent(".session-\(UUID().uuidString).tmp")
    let fresh = directory.url.appendingPathComponent(".session-\(UUID().uuidString).tmp")
    let other = directory.url.appendingPathComponent("notes.tmp")
    for file in [stale, fresh, other] {
      try Data(#"{"refreshToken":"rt-secret"}"#.utf8).write(to: file)
    }
    for file in [stale, other] {
      try FileManager.default.setAttributes(
        [.modificationDate: Date().addingTimeInterval(-120)], ofItemAtPath: file.path)
    }
    #expect(try store.load() == nil)
    #expect(!FileManager.default.fileExists(atPath: stale.path))
    #expect(FileManager.default.fileExists(atPath: fresh.path))
    #expect(FileManager.default.fileExists(atPath: other.path))
  }
}
