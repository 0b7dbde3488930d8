import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisNetwork
import TrellisRepository
import TrellisTestSupport

@testable import TrellisService

/// A fresh temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("trellis-tests-\(UUID().uuidString)", isDirectory: true)

  func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

@Suite("AuthService", .capturesLogs, .timeLimit(.minutes(1)))
struct AuthServiceTests {
  private func makeService(
    repo: any AuthRepo = FakeAuthRepo(), store: any SessionStore = InMemorySessionStore(),
    sink: MemoryLogSink = MemoryLogSink()
  ) -> AuthServiceImpl {
    AuthServiceImpl(
      repo: repo, store: store,
      logger: Logger(category: "AuthService", sink: sink, minimumLevel: .trace))
  }

  @Test func signingInPublishesAndSavesTheSession() async throws {
    let store = InMemorySessionStore()
    let service = makeService(store: store)
    let user = try await service.login(username: "alice", password: "alice1234")
    #expect(user.username == "alice")
    #expect(service.sessionState.value == .signedIn(user))
    #expect(service.currentAccessToken?.value == "at-1")
    #expect(try store.load()?.refreshToken == "rt-1")
  }

  @Test func aRefusedSignInSaysWhy() async throws {
    let repo = FakeAuthRepo()
    repo.setLoginResult(.failure(.unauthorized("Wrong username or password.")))
    let service = makeService(repo: repo)
    await #expect(throws: ServiceError(.unauthorized, "Wrong username or password.")) {
      try await service.login(username: "alice", password: "x")
    }
    #expect(service.sessionState.value == .signedOut)
    await #expect(throws: ServiceError(.validation, "Enter a username and a password.")) {
      try await service.login(username: " ", password: "")
    }
    #expect(repo.calls == ["login alice"])  // the blank one never reached the repository
  }

  @Test func signingOutEndsTheSessionEvenWhenTheServerCannotBeTold() async throws {
    let repo = FakeAuthRepo()
    repo.setLogoutResult(.failure(.offline("The server cannot be reached.")))
    let store = InMemorySessionStore()
    let service = makeService(repo: repo, store: store)
    _ = try await service.login(username: "alice", password: "alice1234")
    await service.logout()
    #expect(service.sessionState.value == .signedOut)
    #expect(service.currentAccessToken == nil)
    #expect(try store.load() == nil)
    // The server is told by the refresh token, which outlives an expired access token.
    #expect(repo.calls == ["login alice", "logout rt-1"])
  }

  @Test func refreshingReplacesAndSavesTheTokens() async throws {
    let store = InMemorySessionStore()
    let repo = FakeAuthRepo()
    let service = makeService(repo: repo, store: store)
    _ = try await service.login(username: "alice", password: "alice1234")
    let token = try await service.refreshAccessToken()
    #expect(token.value == "at-2")
    #expect(service.currentAccessToken?.value == "at-2")
    #expect(try store.load()?.refreshToken == "rt-2")
    #expect(repo.calls == ["login alice", "refresh rt-1"])
  }

  @Test func aFailedRefreshEndsTheSessionAsExpired() async throws {
    let repo = FakeAuthRepo()
    repo.setRefreshResult(.failure(.unauthorized("The session has ended. Sign in again.")))
    let store = InMemorySessionStore()
    let service = makeService(repo: repo, store: store)
    _ = try await service.login(username: "alice", password: "alice1234")
    let token = try #require(service.currentAccessToken)
    await #expect(
      throws: AuthenticationFailure.refreshRejected("The session has ended. Sign in again.")
    ) {
      try await service.refreshAccessToken()
    }
    // The auth plugin calls this after a refused refresh:
    await service.invalidateSession(of: token, because: .refreshRejected("refused"))
    #expect(
      service.sessionState.value == .expired(reason: "Your session has ended. Sign in again."))
    #expect(service.currentAccessToken == nil)
    #expect(try store.load() == nil)
  }

  @Test func theAuthPluginRefreshesThroughTheService() async throws {
    // The service is the plugin's token source: a token about to expire is refreshed before
    // sending. This one was issued an hour ago, minus five seconds.
    let repo = FakeAuthRepo()
    repo.setLoginResult(
      .success(
        TokensModel(accessToken: "at-old", refreshToken: "rt-1", expiresIn: 3600, user: .alice)))
    let service = AuthServiceImpl(
      repo: repo, store: InMemorySessionStore(), now: { Date().addingTimeInterval(-3595) })
    _ = try await service.login(username: "alice", password: "alice1234")
    let plugin = AuthPlugin(source: service)
    struct Me: HTTPEndpoint {
      var path: String { "/me" }
      var method: HTTPMethod { .get }
    }
    let request = try await plugin.prepare(
      HTTPRequest(method: .get, url: URL(string: "http://demo/me")!),
      context: HTTPCallContext(endpoint: Me(), baseURL: URL(string: "http://demo")!))
    #expect(request.headers["Authorization"] == "Bearer at-2")
    #expect(repo.calls == ["login alice", "refresh rt-1"])
  }

  @Test func aSavedSessionIsRestored() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = FileSessionStore(fileURL: directory.url.appendingPathComponent("session.json"))
    let first = makeService(store: store)
    let user = try await first.login(username: "alice", password: "alice1234")
    let second = makeService(store: store)
    #expect(await second.restoreSession() == .signedIn(user))
    #expect(second.currentAccessToken?.value == "at-1")
  }

  @Test func aMissingSessionFileMeansSignedOutWithoutAWarning() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let sink = MemoryLogSink()
    let service = makeService(
      store: FileSessionStore(fileURL: directory.url.appendingPathComponent("session.json")),
      sink: sink)
    #expect(await service.restoreSession() == .signedOut)
    #expect(sink.records.filter { $0.level >= .warning }.isEmpty)
  }

  @Test func aCorruptSessionFileMeansSignedOutWithAWarning() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
    try Data("{ not a session".utf8).write(to: file)
    let sink = MemoryLogSink()
    let service = makeService(store: FileSessionStore(fileURL: file), sink: sink)
    #expect(await service.restoreSession() == .signedOut)
    let warning = try #require(sink.records.first { $0.level == .warning })
    #expect(warning.message.contains("Starting signed out"))
    #expect(warning.message.contains("not a saved session"))
    #expect(!FileManager.default.fileExists(atPath: file.path))  // removed, so it warns once
  }

  @Test func aSessionFileThatCannotBeReadIsKept() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    // A directory where the file should be: reading fails with an I/O error (EISDIR), as it
    // would with EACCES or EIO. The session there may be fine: it must not be deleted.
    let file = directory.url.appendingPathComponent("session.json")
    try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
    let store = FileSessionStore(fileURL: file)
    #expect {
      try store.load()
    } throws: { error in
      guard case .io = error as? SessionStoreError else { return false }
      return true
    }
    let sink = MemoryLogSink()
    let service = makeService(store: store, sink: sink)
    #expect(await service.restoreSession() == .signedOut)
    #expect(FileManager.default.fileExists(atPath: file.path))
    #expect(sink.messages.contains { $0.contains("the saved session is kept") })
  }

  @Test func twoInstancesSharingTheSessionFileDoNotEndEachOthersSession() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    let server = RotatingAuthServer()
    let first = makeService(
      repo: RotatingAuthRepo(server: server), store: FileSessionStore(fileURL: file))
    let second = makeService(
      repo: RotatingAuthRepo(server: server), store: FileSessionStore(fileURL: file))
    _ = try await first.login(username: "alice", password: "alice1234")
    #expect(await second.restoreSession() == .signedIn(User(.alice)))
    // The first instance refreshes: the server retires the refresh token both held.
    let firstToken = try await first.refreshAccessToken()
    // The second instance, due for a refresh too, takes the refreshed session instead of
    // presenting the retired refresh token (which would end the session for both).
    let secondToken = try await second.refreshAccessToken()
    #expect(secondToken.value == firstToken.value)
    #expect(server.refreshCalls == ["rt-1"])
    #expect(second.sessionState.value == .signedIn(User(.alice)))
    #expect(try FileSessionStore(fileURL: file).load()?.refreshToken == "rt-2")
  }

  @Test func aRefreshRefusedBecauseAnotherInstanceRefreshedMeanwhileTakesItsSession() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    let server = RotatingAuthServer()
    let secondRepo = RotatingAuthRepo(server: server)
    // The first instance does not take turns to refresh (an older version of the app, say):
    // the second one's refresh is refused, and it must take the first one's session.
    let first = makeService(
      repo: RotatingAuthRepo(server: server),
      store: UncoordinatedStore(FileSessionStore(fileURL: file)))
    let second = makeService(repo: secondRepo, store: FileSessionStore(fileURL: file))
    _ = try await first.login(username: "alice", password: "alice1234")
    _ = await second.restoreSession()
    // The second instance's refresh is on its way when the first one refreshes.
    secondRepo.gate.close()
    let secondRefresh = Task { try await second.refreshAccessToken() }
    await secondRepo.gate.waitForArrivals(1)
    let firstToken = try await first.refreshAccessToken()
    secondRepo.gate.open()
    // The server refuses the retired refresh token; the second instance takes the session the
    // first one saved instead of ending it.
    let tokens = [firstToken, try await secondRefresh.value]
    #expect(server.refreshCalls == ["rt-1", "rt-1"])
    #expect(tokens[0].value == tokens[1].value)
    #expect(first.sessionState.value.user != nil && second.sessionState.value.user != nil)
    #expect(try FileSessionStore(fileURL: file).load() != nil)
  }

  @Test func aRefreshAnsweringAfterSignOutDoesNotBringTheSessionBack() async throws {
    let repo = FakeAuthRepo()
    let store = InMemorySessionStore()
    let service = makeService(repo: repo, store: store)
    _ = try await service.login(username: "alice", password: "alice1234")
    let states = Recorder()
    let token = service.sessionState.observe { states.append("\($0)") }
    defer { token.cancel() }
    repo.refreshGate.close()
    let refresh = Task { try await service.refreshAccessToken() }
    await repo.refreshGate.waitForArrivals(1)
    await service.logout()
    repo.refreshGate.open()
    await #expect(throws: AuthenticationFailure.sessionChanged) { try await refresh.value }
    #expect(service.sessionState.value == .signedOut)
    #expect(service.currentAccessToken == nil)
    #expect(try store.load() == nil)
    // The tokens the late answer brought are revoked, not kept.
    // (The fake records a refresh when it answers, after the sign-out.)
    #expect(repo.calls == ["login alice", "logout rt-1", "refresh rt-1", "logout rt-2"])
    #expect(states.all.last == "signedOut")
    #expect(!states.all.drop { $0 != "signedOut" }.contains { $0.hasPrefix("signedIn") })
  }

  @Test func aRefreshAnsweringAfterAnotherSignInDoesNotOverwriteIt() async throws {
    let repo = FakeAuthRepo()
    let store = InMemorySessionStore()
    let service = makeService(repo: repo, store: store)
    _ = try await service.login(username: "alice", password: "alice1234")
    repo.refreshGate.close()
    let refresh = Task { try await service.refreshAccessToken() }
    await repo.refreshGate.waitForArrivals(1)
    repo.setLoginResult(.success(.tokens(for: .bob, suffix: "b")))
    let bob = try await service.login(username: "bob", password: "bob1234")
    repo.refreshGate.open()
    await #expect(throws: AuthenticationFailure.sessionChanged) { try await refresh.value }
    #expect(service.sessionState.value == .signedIn(bob))
    #expect(service.currentAccessToken?.value == "at-b")
    #expect(try store.load()?.user == bob)
  }

  @Test func aFailedRefreshOfAnOldSessionDoesNotEndTheNewOne() async throws {
    let repo = FakeAuthRepo()
    repo.setRefreshResult(.failure(.unauthorized("The session has ended. Sign in again.")))
    let service = makeService(repo: repo)
    _ = try await service.login(username: "alice", password: "alice1234")
    let aliceToken = try #require(service.currentAccessToken)
    repo.refreshGate.close()
    let refresh = Task { try await service.refreshAccessToken() }
    await repo.refreshGate.waitForArrivals(1)
    repo.setLoginResult(.success(.tokens(for: .bob, suffix: "b")))
    let bob = try await service.login(username: "bob", password: "bob1234")
    repo.refreshGate.open()
    await #expect(throws: AuthenticationFailure.sessionChanged) { try await refresh.value }
    // What the auth plugin does after a failed refresh names the token it tried to replace.
    await service.invalidateSession(of: aliceToken, because: .refreshRejected("refused"))
    #expect(service.sessionState.value == .signedIn(bob))
    #expect(service.currentAccessToken?.value == "at-b")
  }

  @Test func aSessionRecordsWhenItsTokenWasIssuedSoTheLeewayFitsItsLifetime() async throws {
    let repo = FakeAuthRepo()
    repo.setLoginResult(
      .success(TokensModel(accessToken: "at-1", refreshToken: "rt-1", expiresIn: 5, user: .alice)))
    let service = makeService(repo: repo)
    _ = try await service.login(username: "alice", password: "alice1234")
    let token = try #require(service.currentAccessToken)
    #expect(token.lifetime == 5)
    // A 5 s token with the default 10 s leeway is used for most of its life, not refreshed
    // on every request.
    #expect(!token.expires(within: .seconds(10), of: try #require(token.issuedAt)))
  }

  /// Two copies of the app share the session file: the second signs Alice out (the server
  /// cannot be told) and Bob in; the first, still Alice's, refreshes. Bob's saved session is
  /// another user's, not an older one of Alice's: it stays, or the next launch would open
  /// Alice's account for Bob.
  @Test func aRefreshNeverSavesOverAnotherUsersSession() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    let first = makeService(store: FileSessionStore(fileURL: file))
    let secondRepo = FakeAuthRepo()
    let second = makeService(repo: secondRepo, store: FileSessionStore(fileURL: file))
    _ = try await first.login(username: "alice", password: "alice1234")
    #expect(await second.restoreSession() == .signedIn(User(.alice)))
    secondRepo.setLogoutResult(.failure(.offline("no network")))
    await second.logout()
    secondRepo.setLoginResult(.success(.tokens(for: .bob, suffix: "b")))
    let bob = try await second.login(username: "bob", password: "bob1234")
    _ = try await first.refreshAccessToken()
    #expect(first.sessionState.value == .signedIn(User(.alice)))
    #expect(try FileSessionStore(fileURL: file).load()?.user == bob)
  }

  /// A sign-out decided while a refresh that was applied before it has not yet published:
  /// the refresh's late `.signedIn` must not land after the sign-out's `.signedOut` (the data
  /// scope, the event stream and the outbox would act for a user with no token).
  @Test func aSignOutIsNotUndoneByTheRefreshItOvertook() async throws {
    let refreshed = Mutex(false)
    let resume = DispatchSemaphore(value: 0)
    let sink = HookLogSink(message: "Refreshed the access token") {
      refreshed.withLock { $0 = true }
      // Holds the refresh between its decision and its publishing; on a queue of its own
      // (the task's executor below), not on a thread of the cooperative pool.
      _ = resume.wait(timeout: .now() + 30)
    }
    let service = AuthServiceImpl(
      repo: FakeAuthRepo(), store: InMemorySessionStore(),
      logger: Logger(category: "AuthService", sink: sink, minimumLevel: .trace))
    _ = try await service.login(username: "alice", password: "alice1234")
    let states = Recorder()
    let token = service.sessionState.observe { states.append("\($0)") }
    defer { token.cancel() }
    let refresh = Task(executorPreference: QueueExecutor()) {
      try await service.refreshAccessToken()
    }
    try #require(await eventually { refreshed.withLock { $0 } })
    await service.logout()
    resume.signal()
    _ = try await refresh.value
    #expect(service.sessionState.value == .signedOut)
    #expect(states.all.last == "signedOut")
    #expect(service.currentAccessToken == nil)
  }

  @Test func endingTheSessionFromTheServerPublishesExpired() async throws {
    let service = makeService()
    _ = try await service.login(username: "alice", password: "alice1234")
    await service.endSession(reason: "Your session was ended on the server.")
    #expect(service.sessionState.value == .expired(reason: "Your session was ended on the server."))
  }
}

/// A store that does not take turns to refresh (the protocol's default), over another.
struct UncoordinatedStore: SessionStore {
  let inner: FileSessionStore
  init(_ inner: FileSessionStore) { self.inner = inner }
  func load() throws(SessionStoreError) -> Session? { try inner.load() }
  func save(_ session: Session) throws(SessionStoreError) { try inner.save(session) }
  func clear() throws(SessionStoreError) { try inner.clear() }
  func update(_ change: (Session?) -> SessionChange) throws(SessionStoreError) {
    try inner.update(change)
  }
}

/// An auth server's state: refresh tokens rotate, a retired one is refused.
final class RotatingAuthServer: Sendable {
  private struct State {
    var valid: Set<String> = []
    var issued = 0
    var refreshCalls: [String] = []
  }

  private let state = Mutex(State())

  var refreshCalls: [String] { state.withLock { $0.refreshCalls } }

  func issue() -> TokensModel {
    state.withLock { state in
      state.issued += 1
      state.valid.insert("rt-\(state.issued)")
      return .tokens(for: .alice, suffix: "\(state.issued)")
    }
  }

  func refresh(_ refreshToken: String) throws(RepositoryError) -> TokensModel {
    let known = state.withLock { state in
      state.refreshCalls.append(refreshToken)
      return state.valid.remove(refreshToken) != nil
    }
    guard known else { throw .unauthorized("The session has ended. Sign in again.") }
    return issue()
  }

  func revoke(_ refreshToken: String) {
    _ = state.withLock { $0.valid.remove(refreshToken) }
  }
}

/// One app instance's view of a ``RotatingAuthServer``, with a gate on its refresh calls.
final class RotatingAuthRepo: AuthRepo {
  let server: RotatingAuthServer
  /// Holds this instance's refresh calls before they reach the server (open by default).
  let gate = CallGate()
  /// Holds the server's answers to this instance's refresh calls on their way back (open by
  /// default): the server has already rotated the token when a call waits here.
  let answerGate = CallGate()

  init(server: RotatingAuthServer = RotatingAuthServer()) {
    self.server = server
  }

  func login(username: String, password: String) async throws(RepositoryError) -> TokensModel {
    server.issue()
  }

  func refresh(refreshToken: String) async throws(RepositoryError) -> TokensModel {
    await gate.enter(refreshToken)
    defer { gate.leave() }
    let answer = Result { () throws(RepositoryError) -> TokensModel in
      try server.refresh(refreshToken)
    }
    await answerGate.enter(refreshToken)
    answerGate.leave()
    return try answer.get()
  }

  func logout(refreshToken: String) async throws(RepositoryError) {
    server.revoke(refreshToken)
  }
}

@Suite("FileSessionStore", .capturesLogs)
struct FileSessionStoreTests {
  private let session = Session(
    accessToken: "at-1", expiresAt: Date(timeIntervalSince1970: 1_900_000_000),
    refreshToken: "rt-1",
    user: User(id: 1, username: "alice", displayName: "Alice Kim"))

  @Test func roundTripsWithOwnerOnlyPermissionsAndNoTemporaryFilesLeft() throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = FileSessionStore(fileURL: directory.url.appendingPathComponent("app/session.json"))
    try store.save(session)
    try store.save(session)  // replacing works too
    #expect(try store.load() == session)
    let manager = FileManager.default
    let fileMode =
      try manager.attributesOfItem(atPath: store.fileURL.path)[.posixPermissions] as? NSNumber
    let folderMode =
      try manager.attributesOfItem(atPath: store.fileURL.deletingLastPathComponent().path)[
        .posixPermissions] as? NSNumber
    #expect(fileMode?.intValue == 0o600)
    #expect(folderMode?.intValue == 0o700)
    let contents = try manager.contentsOfDirectory(
      atPath: store.fileURL.deletingLastPathComponent().path)
    #expect(contents == ["session.json"])
    try store.clear()
    try store.clear()  // clearing twice is fine
    #expect(try store.load() == nil)
  }

  /// The file records its format; a file saved before it was recorded (no `format`) reads as
  /// before.
  @Test func theFileRecordsItsFormatAndAFileWithoutOneStillReads() throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = FileSessionStore(fileURL: directory.url.appendingPathComponent("session.json"))
    try store.save(session)
    let saved = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: store.fileURL)) as? [String: Any])
    #expect(saved["format"] as? Int == 1)
    #expect(saved["refreshToken"] as? String == "rt-1")
    var older = saved
    older["format"] = nil
    try JSONSerialization.data(withJSONObject: older).write(to: store.fileURL)
    #expect(try store.load() == session)
  }

  /// A file a newer version of the app saved (a later format) is never read, replaced or
  /// removed: the app starts signed out and its log says why; a sign-in here, its refresh and
  /// its sign-out last until the app quits and leave the file as it is.
  @Test func aFileOfANewerFormatIsNeverReadReplacedOrRemoved() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
    let newer = Data(#"{"format": 2, "tokens": {"access": "at-9"}, "user": {"id": 1}}"#.utf8)
    try newer.write(to: file)
    let store = FileSessionStore(fileURL: file)
    #expect {
      try store.load()
    } throws: { error in
      guard case .io(let reason) = error as? SessionStoreError else { return false }
      return reason.contains("newer version of the app (format 2")
    }
    let sink = MemoryLogSink()
    let service = AuthServiceImpl(
      repo: FakeAuthRepo(), store: store, logger: Logger(category: "AuthService", sink: sink))
    #expect(await service.restoreSession() == .signedOut)
    #expect(try Data(contentsOf: file) == newer)  // kept for the newer version
    #expect(sink.records.contains { $0.message.contains("saved by a newer version") })
    _ = try await service.login(username: "alice", password: "alice1234")
    #expect(service.sessionState.value == .signedIn(User(.alice)))
    _ = try await service.refreshAccessToken()
    #expect(try Data(contentsOf: file) == newer)
    await service.logout()
    #expect(try Data(contentsOf: file) == newer)
    #expect(sink.records.contains { $0.message.contains("could not be updated") })
  }

  // The XDG rule is Linux's; on Apple platforms the data directory is Application Support.
  @Test(.enabled(if: !isApplePlatform)) func followsXDGDataHomeThenHome() {
    let xdg = FileSessionStore(
      appName: "Trellis", environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/a"])
    #expect(xdg.fileURL.path == "/data/Trellis/session.json")
    let relative = FileSessionStore(
      appName: "Trellis", environment: ["XDG_DATA_HOME": "data", "HOME": "/home/a"])
    #expect(relative.fileURL.path == "/home/a/.local/share/Trellis/session.json")
    let home = FileSessionStore(appName: "Trellis", environment: ["HOME": "/home/a"])
    #expect(home.fileURL.path == "/home/a/.local/share/Trellis/session.json")
  }

  @Test func theDataDirectoryIsMadePrivateAndLogsCreateItPrivate() throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let manager = FileManager.default
    func mode(_ url: URL) throws -> Int? {
      (try manager.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue
    }
    // A log file created first makes its folder private too.
    let logged = directory.url.appendingPathComponent("logged")
    _ = try FileLogSink(url: logged.appendingPathComponent("trellis.log"))
    #expect(try mode(logged) == 0o700)
    // A folder left wider by an older version is tightened when the session is saved.
    let wide = directory.url.appendingPathComponent("wide")
    try manager.createDirectory(at: wide, withIntermediateDirectories: true)
    try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wide.path)
    try FileSessionStore(fileURL: wide.appendingPathComponent("session.json")).save(session)
    #expect(try mode(wide) == 0o700)
  }

  @Test func updateAppliesItsChangeOnlyToWhatIsSavedNow() throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = FileSessionStore(fileURL: directory.url.appendingPathComponent("session.json"))
    try store.save(session)
    try store.update { $0?.refreshToken == "rt-other" ? .clear : .keep }
    #expect(try store.load() == session)
    try store.update { $0?.refreshToken == "rt-1" ? .clear : .keep }
    #expect(try store.load() == nil)
    // A corrupt file reads as nothing, so it can be replaced.
    try Data("garbage".utf8).write(to: store.fileURL)
    try store.update { $0 == nil ? .save(session) : .keep }
    #expect(try store.load() == session)
  }

  @Test func aFailedWriteLeavesTheOldSessionInPlace() throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let store = FileSessionStore(fileURL: directory.url.appendingPathComponent("session.json"))
    try store.save(session)
    // A directory where the store needs to create its temporary file makes the write fail.
    let blocked = FileSessionStore(
      fileURL: directory.url.appendingPathComponent("session.json/inner"))
    #expect(throws: SessionStoreError.self) { try blocked.save(session) }
    #expect(try store.load() == session)
  }
}

/// Whether the tests run on an Apple platform (where the data directory is not XDG's).
#if canImport(Darwin)
  let isApplePlatform = true
#else
  let isApplePlatform = false
#endif

/// A sink that runs `hook` when a record's message is `message` (on the logging thread).
private final class HookLogSink: LogSink {
  private let message: String
  private let hook: @Sendable () -> Void

  init(message: String, hook: @escaping @Sendable () -> Void) {
    self.message = message
    self.hook = hook
  }

  func write(_ record: LogRecord) {
    if record.message == message { hook() }
  }
}

/// Runs its tasks' jobs on a serial queue of its own, so that a test may block one of them
/// without holding a thread of the cooperative pool (two on a two-core machine).
private final class QueueExecutor: TaskExecutor {
  private let queue = DispatchQueue(label: "AuthServiceTests.QueueExecutor")

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
