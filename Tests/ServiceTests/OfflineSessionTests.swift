import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisNetwork
import TrellisRepository
import TrellisTestSupport

@testable import TrellisService

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Only the server ends a session: a refresh that cannot reach it (or that it cannot answer
/// now) keeps the session in memory and on disk, and the next request tries again.
@Suite("A lost connection never ends the session", .capturesLogs, .timeLimit(.minutes(1)))
struct OfflineSessionTests {
  private struct Me: HTTPEndpoint {
    var path: String { "/me" }
    var method: HTTPMethod { .get }
  }

  /// A requester whose every request needs a token, answered 200 by a stub server.
  private func requester(_ service: AuthServiceImpl) -> HTTPRequester<Me> {
    HTTPRequester<Me>(
      baseURL: URL(string: "http://demo")!,
      transport: StubTransport(responder: AlwaysOK()),
      plugins: [AuthPlugin(source: service)])
  }

  /// A service signed in with a token that has already expired, so the next request
  /// refreshes it first.
  private func expiredSession(repo: FakeAuthRepo, store: any SessionStore) async throws
    -> AuthServiceImpl
  {
    repo.setLoginResult(
      .success(TokensModel(accessToken: "at-1", refreshToken: "rt-1", expiresIn: 60, user: .alice)))
    let service = AuthServiceImpl(
      repo: repo, store: store, logger: Logger(category: "Auth", sink: MemoryLogSink()),
      now: { Date().addingTimeInterval(-3600) })
    _ = try await service.login(username: "alice", password: "alice1234")
    return service
  }

  @Test(arguments: [
    RepositoryError.offline("The server cannot be reached. Check the connection."),
    .offline("The server took too long to answer."),
    .server(status: 503, "Unavailable"),
    .server(status: 429, "Too many requests"),
  ])
  func aRefreshTheServerCouldNotAnswerKeepsTheSessionAndIsTriedAgain(failure: RepositoryError)
    async throws
  {
    let repo = FakeAuthRepo()
    let store = InMemorySessionStore()
    let service = try await expiredSession(repo: repo, store: store)
    repo.setRefreshResult(.failure(failure))
    let requester = requester(service)

    await #expect(throws: HTTPError.self) { try await requester.request(Me()) }
    #expect(service.sessionState.value == .signedIn(User(.alice)))
    #expect(service.currentAccessToken?.value == "at-1")
    #expect(try store.load()?.refreshToken == "rt-1")

    // The network is back: the next request refreshes and goes through.
    repo.setRefreshResult(.success(.tokens(for: .alice, suffix: "2")))
    let response = try await requester.request(Me())
    #expect(response.status == 200)
    #expect(service.currentAccessToken?.value == "at-2")
    #expect(try store.load()?.refreshToken == "rt-2")
  }

  @Test func everyWaiterOfAnUnreachableRefreshGetsTheSameOfflineError() async throws {
    let repo = FakeAuthRepo()
    let service = try await expiredSession(repo: repo, store: InMemorySessionStore())
    repo.setRefreshResult(.failure(.offline("The server cannot be reached. Check the connection.")))
    repo.refreshGate.close()
    let requester = requester(service)
    let errors = Task {
      await withTaskGroup(of: String.self) { group in
        for _ in 0..<50 {
          group.addTask {
            do {
              _ = try await requester.request(Me())
              return "ok"
            } catch {
              return "\(RepositoryError(error as! HTTPError))"
            }
          }
        }
        var errors: [String] = []
        for await error in group { errors.append(error) }
        return errors
      }
    }
    await repo.refreshGate.waitForArrivals(1)
    repo.refreshGate.open()
    let all = await errors.value
    #expect(Set(all).count == 1, "\(Set(all))")
    #expect(all.first?.contains("cannot be reached") == true)
    // One refresh was made for the fifty (and one retry of it, in case its answer was lost).
    #expect(repo.calls.filter { $0.hasPrefix("refresh") }.count <= 2)
    #expect(service.sessionState.value.user != nil)
  }

  /// `AuthRepo` reports the server's refusal of the refresh token as `.unauthorized` (decided on
  /// the status; `AuthRefreshStatusTests` holds the table); nothing else ends the session.
  @Test func aRefreshTheServerRefusesEndsTheSession() async throws {
    let failure = RepositoryError.unauthorized("The session has ended. Sign in again.")
    let repo = FakeAuthRepo()
    let store = InMemorySessionStore()
    let service = try await expiredSession(repo: repo, store: store)
    repo.setRefreshResult(.failure(failure))
    await #expect(throws: HTTPError.self) { try await requester(service).request(Me()) }
    #expect(
      service.sessionState.value == .expired(reason: "Your session has ended. Sign in again."))
    #expect(try store.load() == nil)
  }

  @Test func anOlderSavedSessionIsNeverAdopted() async throws {
    // The file keeps rt-1 because saving rt-2 failed; the next refresh must present rt-2,
    // not go back to the older session in the file.
    let repo = FakeAuthRepo()
    let store = FlakySessionStore()
    let service = AuthServiceImpl(
      repo: repo, store: store, logger: Logger(category: "Auth", sink: MemoryLogSink()))
    _ = try await service.login(username: "alice", password: "alice1234")
    store.failsWrites = true
    _ = try await service.refreshAccessToken()
    #expect(try store.load()?.refreshToken == "rt-1")
    store.failsWrites = false
    repo.setRefreshResult(.success(.tokens(for: .alice, suffix: "3")))
    let token = try await service.refreshAccessToken()
    #expect(token.value == "at-3")
    #expect(repo.calls == ["login alice", "refresh rt-1", "refresh rt-2"])
    #expect(try store.load()?.refreshToken == "rt-3")
  }

  @Test func twoInstancesNeverSpendTheSameRefreshTokenWhileOnesAnswerIsOnItsWay() async throws {
    // The interleaving that signed a second copy of the app out: the first instance's refresh
    // reached the server (which retired rt-1) and its answer is still on its way when the
    // second instance, due too, presents rt-1.
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    let server = RotatingAuthServer()
    let firstRepo = RotatingAuthRepo(server: server)
    let quiet = Logger(category: "Auth", sink: MemoryLogSink())
    let first = AuthServiceImpl(
      repo: firstRepo, store: FileSessionStore(fileURL: file), logger: quiet)
    let second = AuthServiceImpl(
      repo: RotatingAuthRepo(server: server), store: FileSessionStore(fileURL: file),
      logger: quiet)
    _ = try await first.login(username: "alice", password: "alice1234")
    _ = await second.restoreSession()

    firstRepo.answerGate.close()
    let firstRefresh = Task { try await first.refreshAccessToken() }
    await firstRepo.answerGate.waitForArrivals(1)  // the server has rotated rt-1
    let secondRefresh = Task { try await second.refreshAccessToken() }
    // Give the second instance every chance to present rt-1 before the answer arrives.
    for _ in 0..<50 { await Task.yield() }
    try await Task.sleep(for: .milliseconds(100))
    firstRepo.answerGate.open()

    let firstToken = try await firstRefresh.value
    let secondToken = try await secondRefresh.value
    #expect(firstToken.value == secondToken.value)
    #expect(server.refreshCalls == ["rt-1"])
    #expect(first.sessionState.value.user != nil)
    #expect(second.sessionState.value.user != nil)
    #expect(try FileSessionStore(fileURL: file).load()?.refreshToken == "rt-2")
  }

  @Test func aSessionFileLockedByAnotherProcessDoesNotStallRequests() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    let file = directory.url.appendingPathComponent("session.json")
    let store = FileSessionStore(fileURL: file)
    let service = AuthServiceImpl(
      repo: FakeAuthRepo(), store: store, logger: Logger(category: "Auth", sink: MemoryLogSink()))
    _ = try await service.login(username: "alice", password: "alice1234")

    // Another process holds the session file's lock (a lock on a second open file
    // description conflicts exactly as another process's would).
    let lock = open(file.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    #expect(lock >= 0)
    defer { close(lock) }
    #expect(flock(lock, LOCK_EX | LOCK_NB) == 0)

    let refreshDone = Mutex(false)
    let refresh = Task.detached {
      _ = try await service.refreshAccessToken()
      refreshDone.withLock { $0 = true }
    }
    // 100 requests read the token meanwhile, each on its own thread of the pool.
    try await Task.sleep(for: .milliseconds(50))
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<100 {
        group.addTask { _ = service.currentAccessToken }
      }
    }
    let stalled = refreshDone.withLock { $0 }
    #expect(!stalled, "the requests waited for the refresh's file I/O")
    flock(lock, LOCK_UN)
    try await refresh.value
  }
}

/// Answers every request `200`.
private struct AlwaysOK: HTTPResponder {
  func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
    HTTPResponse(status: 200, request: request)
  }
}

/// A session store whose writes fail while `failsWrites` is set, like a disk that is full or
/// a lock another instance holds too long.
final class FlakySessionStore: SessionStore {
  private let inner = InMemorySessionStore()
  private let failing = Mutex(false)

  var failsWrites: Bool {
    get { failing.withLock { $0 } }
    set { failing.withLock { $0 = newValue } }
  }

  func load() throws(SessionStoreError) -> Session? { try inner.load() }

  func save(_ session: Session) throws(SessionStoreError) {
    if failsWrites { throw .io("the disk is full") }
    try inner.save(session)
  }

  func clear() throws(SessionStoreError) {
    if failsWrites { throw .io("the disk is full") }
    try inner.clear()
  }

  func update(_ change: (Session?) -> SessionChange) throws(SessionStoreError) {
    if failsWrites { throw .io("the disk is full") }
    try inner.update(change)
  }
}
