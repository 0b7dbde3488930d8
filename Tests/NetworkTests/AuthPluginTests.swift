import Foundation
import LoopbackServer
import Network
import Testing

/// A router whose `/items/:id` accepts only the token source's current token, minus any
/// revoked ones, and counts calls.
private func authRouter(source: FakeTokenSource, revoked: Set<String> = []) -> (
  Router, Recorder<String>
) {
  let seen = Recorder<String>()
  let router = Router()
  router.get("/items/:id") { request in
    let token = request.bearerToken ?? "none"
    seen.append(token)
    guard token == source.currentAccessToken?.value, !revoked.contains(token) else {
      return .json(APIErrorBody(error: "invalid token"), status: 401)
    }
    return .json(Item(id: Int(request.pathParameters["id"] ?? "") ?? 0, name: token))
  }
  return (router, seen)
}

@Suite("AuthPlugin")
struct AuthPluginTests {
  @Test func attachesTheBearerToken() async throws {
    let source = FakeTokenSource(token: freshToken("token-1"))
    let (router, seen) = authRouter(source: source)
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [AuthPlugin(source: source)])
      let item = try await requester.request(.item(id: 1), as: Item.self)
      #expect(item.name == "token-1")
    }
    #expect(seen.values == ["token-1"])
    #expect(source.refreshes == 0)
  }

  @Test func refreshesATokenAboutToExpireBeforeSending() async throws {
    let expiring = AccessToken(value: "token-1", expiresAt: Date().addingTimeInterval(5))
    let source = FakeTokenSource(token: expiring)
    let (router, seen) = authRouter(source: source)
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [AuthPlugin(source: source, leeway: .seconds(10))])
      _ = try await requester.request(.item(id: 1))
    }
    #expect(source.refreshes == 1)
    #expect(seen.values == ["token-2"])  // never sent the expiring token
  }

  @Test func oneRefreshServesAHundredConcurrentRequestsOnAnExpiredToken() async throws {
    let expired = AccessToken(value: "token-1", expiresAt: Date().addingTimeInterval(-60))
    let source = FakeTokenSource(token: expired)
    let (router, seen) = authRouter(source: source)
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [AuthPlugin(source: source)])
      try await withThrowingTaskGroup(of: Item.self) { group in
        for id in 0..<100 {
          group.addTask { try await requester.request(.item(id: id), as: Item.self) }
        }
        var count = 0
        for try await item in group {
          #expect(item.name == "token-2")
          count += 1
        }
        #expect(count == 100)
      }
    }
    #expect(source.refreshes == 1)
    #expect(seen.values.count == 100)
  }

  @Test func oneRefreshServesAHundredConcurrent401s() async throws {
    // The token looks valid locally but the server revoked it: every request gets a 401.
    let source = FakeTokenSource(token: freshToken("token-1"))
    let (router, seen) = authRouter(source: source, revoked: ["token-1"])
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [AuthPlugin(source: source)])
      try await withThrowingTaskGroup(of: Void.self) { group in
        for id in 0..<100 {
          group.addTask { _ = try await requester.request(.item(id: id)) }
        }
        try await group.waitForAll()
      }
    }
    #expect(source.refreshes == 1)
    #expect(seen.values.filter { $0 == "token-2" }.count == 100)  // each replayed once
  }

  @Test func aRequestIsReplayedAtMostOnce() async throws {
    let source = FakeTokenSource(token: freshToken("token-1"))
    let router = Router()
    let calls = Recorder<String>()
    router.get("/items/:id") { request in
      calls.append(request.bearerToken ?? "none")
      return .status(401)
    }
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [AuthPlugin(source: source)])
      await #expect(throws: HTTPError.authentication(.rejected)) {
        try await requester.request(.item(id: 1))
      }
    }
    #expect(calls.values == ["token-1", "token-2"])
    #expect(source.refreshes == 1)
  }

  @Test func aFailedRefreshFailsEveryWaiterAndClearsTheSession() async throws {
    let expired = AccessToken(value: "token-1", expiresAt: Date().addingTimeInterval(-60))
    let source = FakeTokenSource(token: expired)
    source.failRefreshes(with: APIErrorBody(error: "refresh token revoked"))
    let (router, seen) = authRouter(source: source)
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [AuthPlugin(source: source)])
      let results = await withTaskGroup(of: HTTPError?.self) { group in
        for id in 0..<10 {
          group.addTask {
            do {
              _ = try await requester.request(.item(id: id))
              return nil
            } catch {
              return error as? HTTPError
            }
          }
        }
        var errors: [HTTPError?] = []
        for await error in group { errors.append(error) }
        return errors
      }
      #expect(results.count == 10)
      for error in results {
        guard case .authentication(.refreshFailed(let reason)) = error else {
          Issue.record("expected refreshFailed, got \(String(describing: error))")
          continue
        }
        #expect(reason.contains("refresh token revoked"))
      }
    }
    #expect(source.refreshes == 1)
    #expect(source.invalidations.count == 1)
    #expect(source.currentAccessToken == nil)
    #expect(seen.values.isEmpty)  // nothing was sent with the expired token
  }

  @Test func theRefreshLoopGuardStopsAfterTheLimit() async throws {
    let source = FakeTokenSource(token: freshToken("token-1"), refreshDelay: .zero)
    let router = Router()
    router.get("/items/:id") { _ in .status(401) }  // rejects every token
    try await withServer(router) { _ in
      let requester = makeRequester(
        plugins: [AuthPlugin(source: source, maximumRefreshes: 3, refreshWindow: .seconds(60))])
      for _ in 0..<3 {
        await #expect(throws: HTTPError.authentication(.rejected)) {
          try await requester.request(.item(id: 1))
        }
      }
      await #expect(
        throws: HTTPError.authentication(.refreshLoop(refreshes: 3, window: .seconds(60)))
      ) {
        try await requester.request(.item(id: 1))
      }
    }
    #expect(source.refreshes == 3)
  }

  @Test func aRequestSentWithAnOldTokenIsReplayedWithoutASecondRefresh() async throws {
    let source = FakeTokenSource(token: freshToken("token-1"))
    let router = Router()
    let seen = Recorder<String>()
    router.get("/items/:id") { request in
      let token = request.bearerToken ?? "none"
      seen.append("\(request.pathParameters["id"] ?? "?"):\(token)")
      if token == "token-1" {
        if request.pathParameters["id"] == "1" {
          // The slow request's 401 arrives only after the other request's refresh.
          while source.currentAccessToken?.value == "token-1" {
            try await Task.sleep(for: .milliseconds(5))
          }
        }
        return .status(401)
      }
      return .json(Item(id: 0, name: token))
    }
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [AuthPlugin(source: source)])
      async let slow = requester.request(.item(id: 1), as: Item.self)
      async let fast = requester.request(.item(id: 2), as: Item.self)
      let (slowItem, fastItem) = try await (slow, fast)
      #expect(slowItem.name == "token-2")
      #expect(fastItem.name == "token-2")
    }
    #expect(source.refreshes == 1)
    #expect(Set(seen.values) == ["1:token-1", "2:token-1", "1:token-2", "2:token-2"])
  }

  @Test func aCancelledRequestStopsWaitingForARefreshWithoutCancellingIt() async throws {
    let expired = AccessToken(value: "token-1", expiresAt: Date().addingTimeInterval(-60))
    let source = FakeTokenSource(token: expired, refreshDelay: .milliseconds(300))
    let (router, _) = authRouter(source: source)
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [AuthPlugin(source: source)])
      let waiting = Task { try await requester.request(.item(id: 1)) }
      let patient = Task { try await requester.request(.item(id: 2), as: Item.self) }
      while source.refreshes == 0 { await Task.yield() }
      waiting.cancel()
      let cancelled = await waiting.result
      if case .failure(let error as HTTPError) = cancelled {
        #expect(error.isCancellation)
      } else {
        Issue.record("expected a cancellation, got \(cancelled)")
      }
      let patientItem = try await patient.value
      #expect(patientItem.name == "token-2")  // the shared refresh went on
    }
    #expect(source.refreshes == 1)
  }
}
