import Core
import Foundation
import Network
import Repository
import TestSupport
import Testing

@testable import Service

@Suite("ConnectionService")
struct ConnectionServiceTests {
  private func signedInAuthService() async throws -> AuthServiceImpl {
    let auth = AuthServiceImpl(repo: FakeAuthRepo(), store: InMemorySessionStore())
    _ = try await auth.login(username: "alice", password: "alice1234")
    return auth
  }

  @Test func mapsTheStreamStateToOnlineConnectingOffline() async throws {
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
  }

  @Test func connectsWhileSignedInAndDisconnectsOnSignOut() async throws {
    let repo = FakeEventRepo()
    let auth = try await signedInAuthService()
    let service = ConnectionServiceImpl(repo: repo, authService: auth)
    while repo.subscriberCount == 0 { await Task.yield() }
    #expect(repo.connectionCount == 1)
    await auth.logout()
    while repo.subscriberCount > 0 { await Task.yield() }
    _ = try await auth.login(username: "alice", password: "alice1234")
    while repo.subscriberCount == 0 { await Task.yield() }
    #expect(repo.connectionCount == 2)
    _ = service
  }

  @Test func serverEventsArePublished() async throws {
    let repo = FakeEventRepo()
    let service = ConnectionServiceImpl(repo: repo, authService: try await signedInAuthService())
    var events = service.events.events.makeAsyncIterator()
    while repo.subscriberCount == 0 { await Task.yield() }
    let task = TaskModel(
      id: 9, projectID: 1, title: "From Carol", body: "", milestoneID: nil, tagIDs: [],
      assigneeIDs: [],
      attachments: [], createdBy: 3, createdAt: Date())
    repo.send(.unknown(name: "ping"))
    repo.send(.taskCreated(task))
    #expect(
      await events.next()
        == .taskCreated(TaskItem(id: 9, projectID: 1, title: "From Carol", createdBy: 3)))
  }

  @Test func aRevokedSessionEndsTheSession() async throws {
    let repo = FakeEventRepo()
    let auth = try await signedInAuthService()
    let service = ConnectionServiceImpl(repo: repo, authService: auth)
    var states = auth.sessionState.changes.makeAsyncIterator()
    while repo.subscriberCount == 0 { await Task.yield() }
    repo.send(.sessionRevoked(reason: "revoked"))
    #expect(await states.next() == .expired(reason: "Your session was ended on the server."))
    _ = service
  }
}
