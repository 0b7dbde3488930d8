import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisNetwork
import TrellisRepository
import TrellisTestSupport

@testable import TrellisService

@Suite("ConnectionService", .capturesLogs, .timeLimit(.minutes(1)))
struct ConnectionServiceTests {
  private func signedInAuthService() async throws -> AuthServiceImpl {
    let auth = AuthServiceImpl(repo: FakeAuthRepo(), store: InMemorySessionStore())
    _ = try await auth.login(username: "alice", password: "alice1234")
    return auth
  }

  @Test func mapsTheStreamStateToLiveConnectingReconnectingOffline() async throws {
    let repo = FakeEventRepo()
    let service = ConnectionServiceImpl(repo: repo, authService: try await signedInAuthService())
    var states = service.state.values.makeAsyncIterator()
    #expect(await states.next() == .offline)
    repo.connectionState.send(.connecting(attempt: 1))
    #expect(await states.next() == .connecting)
    repo.connectionState.send(.open)
    #expect(await states.next() == .online)
    repo.connectionState.send(.lost(reason: "reset", retryIn: .seconds(1)))
    #expect(await states.next() == .offline)
    // Connecting again after a loss is reconnecting, not a first connection.
    repo.connectionState.send(.connecting(attempt: 1))
    #expect(await states.next() == .reconnecting)
  }

  @Test func connectsWhileSignedInAndDisconnectsOnSignOut() async throws {
    let repo = FakeEventRepo()
    let auth = try await signedInAuthService()
    let service = ConnectionServiceImpl(repo: repo, authService: auth)
    try #require(await eventually { repo.subscriberCount > 0 })
    #expect(repo.connectionCount == 1)
    await auth.logout()
    try #require(await eventually { repo.subscriberCount == 0 })
    _ = try await auth.login(username: "alice", password: "alice1234")
    try #require(await eventually { repo.subscriberCount > 0 })
    #expect(repo.connectionCount == 2)
    _ = service
  }

  @Test func serverEventsArePublished() async throws {
    let repo = FakeEventRepo()
    let service = ConnectionServiceImpl(repo: repo, authService: try await signedInAuthService())
    var events = service.events.events.makeAsyncIterator()
    try #require(await eventually { repo.subscriberCount > 0 })
    let task = TaskModel(
      id: 9, projectID: 1, title: "From Carol", body: "", milestoneID: nil, tagIDs: [],
      assigneeIDs: [],
      attachments: [], createdBy: 3, createdAt: Date())
    repo.send(.unknown(name: "ping"))
    repo.send(.taskCreated(task))
    let item = TaskItem(id: 9, projectID: 1, title: "From Carol", createdBy: 3)
    #expect(await events.next() == .taskCreated(item))
    repo.send(.taskUpdated(task))
    #expect(await events.next() == .taskUpdated(item))
    repo.send(.taskDeleted(task))
    #expect(await events.next() == .taskDeleted(item))
  }

  @Test func aRevokedSessionEndsTheSession() async throws {
    let repo = FakeEventRepo()
    let auth = try await signedInAuthService()
    let service = ConnectionServiceImpl(repo: repo, authService: auth)
    var states = auth.sessionState.changes.makeAsyncIterator()
    try #require(await eventually { repo.subscriberCount > 0 })
    repo.send(.sessionRevoked(reason: "revoked"))
    #expect(await states.next() == .expired(reason: "Your session was ended on the server."))
    _ = service
  }
}

/// An event repository whose streams end by themselves, as a `204`, an authentication error or
/// a refresh failure ends one.
final class EndingEventRepo: EventRepo {
  let connectionState = Relay(EventStreamState.idle)
  private let connections = Mutex(0)
  var connectionCount: Int { connections.withLock { $0 } }

  func events() -> AsyncStream<ServerEventModel> {
    connections.withLock { $0 += 1 }
    return AsyncStream { $0.finish() }
  }

  func reconnectNow() {}

  func forgetLastEventID() {}
}

@Suite("ConnectionService: the stream comes back by itself", .capturesLogs, .timeLimit(.minutes(1)))
struct ConnectionRecoveryTests {
  private func signedIn() async throws -> AuthServiceImpl {
    let auth = AuthServiceImpl(
      repo: FakeAuthRepo(), store: InMemorySessionStore(),
      logger: Logger(category: "Auth", sink: MemoryLogSink()))
    _ = try await auth.login(username: "alice", password: "alice1234")
    return auth
  }

  @Test func aStreamThatEndedByItselfIsStartedAgainWithAGrowingBackoff() async throws {
    let repo = EndingEventRepo()
    let waits = Mutex<[Duration]>([])
    let service = ConnectionServiceImpl(
      repo: repo, authService: try await signedIn(),
      restartBackoff: Backoff(base: .seconds(2), maximum: .seconds(60), jitter: 1...1),
      sleep: { delay in waits.withLock { $0.append(delay) } },
      logger: Logger(category: "Connection", sink: MemoryLogSink()))
    let deadline = ContinuousClock.now + .seconds(20)
    while repo.connectionCount < 5, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(repo.connectionCount >= 5)
    let recorded = waits.withLock { Array($0.prefix(4)) }
    #expect(recorded == [.seconds(2), .seconds(4), .seconds(8), .seconds(16)])
    _ = service
  }

  @Test func theNetworkComingBackCutsTheWaitShort() async throws {
    let repo = EndingEventRepo()
    let reachability = Relay(true)
    let service = ConnectionServiceImpl(
      repo: repo, authService: try await signedIn(), reachability: reachability,
      restartBackoff: Backoff(base: .seconds(600), maximum: .seconds(600)),
      logger: Logger(category: "Connection", sink: MemoryLogSink()))
    while repo.connectionCount < 1 { try await Task.sleep(for: .milliseconds(5)) }
    // Waiting ten minutes to start again; a request then reaches the server.
    try await Task.sleep(for: .milliseconds(50))
    reachability.send(false)
    reachability.send(true)
    let deadline = ContinuousClock.now + .seconds(10)
    while repo.connectionCount < 2, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(repo.connectionCount == 2)
    _ = service
  }

  /// Where the stream stood is kept across its restarts while the session lasts (the server
  /// replays what was missed), and forgotten whenever a session ends or another begins: the
  /// next user's stream starts fresh.
  @Test func theStreamsPlaceIsForgottenWhenTheSessionEndsOrTheUserChanges() async throws {
    let repo = FakeEventRepo()
    let auth = try await signedIn()
    let service = ConnectionServiceImpl(repo: repo, authService: auth)
    service.reconnectNow()
    #expect(repo.forgetRequests == 0)
    await auth.logout()
    #expect(repo.forgetRequests == 1)
    _ = try await auth.login(username: "alice", password: "alice1234")
    #expect(repo.forgetRequests == 2)
    // A sign-in as someone else, without a sign-out between (another instance's session).
    auth.sessionState.send(.signedIn(User(.bob)))
    #expect(repo.forgetRequests == 3)
    _ = service
  }

  /// Another user signs in with no sign-out between: the stream opened with the first user's
  /// token is closed and one opened for the second; what the first user's stream still says
  /// (its `session.revoked`, its tasks) reaches nobody, and the second user stays signed in.
  @Test func anotherUsersSignInIsASignOutAndASignInForTheStream() async throws {
    let repo = FakeEventRepo()
    let auth = FakeAuthService()
    auth.sessionState.send(.signedIn(.alice))
    let service = ConnectionServiceImpl(repo: repo, authService: auth)
    var events = service.events.events.makeAsyncIterator()
    try #require(await eventually { repo.subscriberCount == 1 })
    #expect(repo.connectionCount == 1)

    auth.sessionState.send(.signedIn(User(.bob)))
    try #require(await eventually { repo.connectionCount == 2 && repo.subscriberCount == 1 })
    #expect(!repo.send(.sessionRevoked(reason: "revoked"), onConnection: 1))
    let task = TaskModel(
      id: 9, projectID: 1, title: "For Bob", body: "", milestoneID: nil, tagIDs: [],
      assigneeIDs: [], attachments: [], createdBy: 3, createdAt: Date())
    #expect(repo.send(.taskCreated(task), onConnection: 2))
    #expect(await events.next() == .taskCreated(TaskItem(task)))
    #expect(auth.sessionState.value == .signedIn(User(.bob)))
  }

  @Test func everySignThatTheNetworkChangedReplacesTheStreamsConnection() async throws {
    let repo = FakeEventRepo()
    let reachability = Relay(true)
    let service = ConnectionServiceImpl(
      repo: repo, authService: try await signedIn(), reachability: reachability)
    #expect(repo.reconnectRequests == 0)
    // Requests stop reaching the server: the stream's connection may be as dead.
    reachability.send(false)
    #expect(repo.reconnectRequests == 1)
    // They reach it again: a connection opened meanwhile may be over the old network.
    reachability.send(true)
    #expect(repo.reconnectRequests == 2)
    // The app came back to the foreground.
    service.reconnectNow()
    #expect(repo.reconnectRequests == 3)
  }
}
