import Foundation
import Testing
import TrellisCoreTesting
import TrellisLoopbackServer
import TrellisNetwork

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

@Suite("AuthPlugin", .capturesLogs)
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

  /// A refresh whose only waiter gave up (an event stream's attempt reached its connect
  /// deadline) goes on: the server may have rotated the token already, and a second refresh with
  /// the old token would look stolen to a server that detects reuse. The next request joins it.
  @Test(.timeLimit(.minutes(1)))
  func aRefreshNobodyWaitsForGoesOnAndTheNextCallerJoinsIt() async throws {
    let expired = AccessToken(value: "token-1", expiresAt: Date().addingTimeInterval(-1))
    let source = FakeTokenSource(token: expired, refreshDelay: .milliseconds(300))
    let requester = makeRequester(transport: StubTransport(), plugins: [AuthPlugin(source: source)])
    let first = Task { try await requester.request(.item(id: 1), as: Item.self) }
    try #require(await eventually { source.refreshes == 1 })
    first.cancel()
    _ = await first.result
    let second = try await requester.request(.item(id: 2), as: Item.self)
    #expect(second.id == 2)
    #expect(source.refreshes == 1)
    #expect(source.cancelledRefreshes == 0)
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
    source.failRefreshes(with: AuthenticationFailure.refreshRejected("refresh token revoked"))
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
        guard case .authentication(.refreshRejected(let reason)) = error else {
          Issue.record("expected refreshRejected, got \(String(describing: error))")
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
      try #require(await eventually { source.refreshes > 0 })
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

@Suite("AuthPlugin: origins, failures shared by every waiter, lifetimes", .capturesLogs)
struct AuthPluginEdgeTests {
  /// An endpoint on another server that (by mistake) requires authentication.
  private struct Elsewhere: HTTPEndpoint {
    var baseURL: URL?
    var path: String { "/items/1" }
    var method: HTTPMethod { .get }
  }

  @Test func theTokenGoesOnlyToTheRequestersOriginOrAnAllowedOne() async throws {
    let seenElsewhere = Recorder<String>()
    let other = Router()
    other.get("/items/:id") { request in
      seenElsewhere.append(request.bearerToken ?? "-")
      return .json(Item(id: 1, name: "elsewhere"))
    }
    let otherServer = try LoopbackServer(router: other)
    defer { otherServer.stop() }
    let source = FakeTokenSource(token: freshToken("secret-token"))
    let api = URL(string: "http://127.0.0.1:9")!
    let requester = HTTPRequester<Elsewhere>(
      baseURL: api, transport: URLSessionTransport(), plugins: [AuthPlugin(source: source)])
    await #expect(
      throws: HTTPError.authentication(.untrustedOrigin("http://127.0.0.1:\(otherServer.port)"))
    ) {
      try await requester.request(Elsewhere(baseURL: otherServer.baseURL))
    }
    #expect(seenElsewhere.values.isEmpty)

    let allowing = HTTPRequester<Elsewhere>(
      baseURL: api, transport: URLSessionTransport(),
      plugins: [
        AuthPlugin(source: source, allowedOrigins: [HTTPOrigin(otherServer.baseURL)!])
      ])
    _ = try await allowing.request(Elsewhere(baseURL: otherServer.baseURL))
    #expect(seenElsewhere.values == ["secret-token"])
  }

  @Test func everyWaiterOfAFailedRefreshGetsTheSameErrorAndLaterRequestsNeverRefresh()
    async throws
  {
    let source = FakeTokenSource(token: freshToken("token-1"), refreshDelay: .milliseconds(20))
    source.failRefreshes(with: AuthenticationFailure.refreshRejected("refresh token revoked"))
    // Every token is refused; answers arrive spread over time, many after the refresh failed.
    let transport = StubTransport(
      responder: ClosureResponder { request throws(HTTPError) in
        try? await Task.sleep(for: .milliseconds(Int.random(in: 0...60)))
        return HTTPResponse(status: 401, request: request)
      })
    let requester = makeRequester(transport: transport, plugins: [AuthPlugin(source: source)])
    let errors = await withTaskGroup(of: HTTPError?.self) { group in
      for id in 0..<1000 {
        group.addTask {
          do throws(HTTPError) {
            _ = try await requester.request(.item(id: id))
            return nil
          } catch {
            return error
          }
        }
      }
      var errors: [HTTPError?] = []
      for await error in group { errors.append(error) }
      return errors
    }
    let expected = HTTPError.authentication(.refreshRejected("refresh token revoked"))
    let others = errors.filter { $0 != expected }
    #expect(
      others.isEmpty,
      "\(others.count) of 1000 got another error, first: \(String(describing: others.first))")
    #expect(source.refreshes == 1)
    #expect(source.currentAccessToken == nil)
    // Signed out now: a request fails at once, with no refresh attempt.
    await #expect(throws: HTTPError.authentication(.notSignedIn)) {
      try await requester.request(.item(id: 1))
    }
    #expect(source.refreshes == 1)
  }

  @Test func theTokenSourceDecidesWhatCountsAsAnAuthenticationFailure() async throws {
    let source = FakeTokenSource(token: freshToken("token-1"), rejectionStatuses: [401, 419])
    let transport = StubTransport(
      responder: ClosureResponder { request throws(HTTPError) in
        let fresh = request.headers["Authorization"] == "Bearer token-2"
        return HTTPResponse(status: fresh ? 200 : 419, request: request)
      })
    let requester = makeRequester(transport: transport, plugins: [AuthPlugin(source: source)])
    let response = try await requester.request(.item(id: 1))
    #expect(response.status == 200)
    #expect(source.refreshes == 1)

    let strict = FakeTokenSource(token: freshToken("token-1"))
    let plain = makeRequester(transport: transport, plugins: [AuthPlugin(source: strict)])
    await #expect(throws: HTTPError.self) { try await plain.request(.item(id: 1)) }
    #expect(strict.refreshes == 0)  // a 419 is not a 401 by default
  }

  @Test func aTokenThatLivesLessThanTheLeewayIsNotRefreshedOnEveryRequest() async throws {
    let now = Date()
    let shortLived = AccessToken(
      value: "token-1", expiresAt: now.addingTimeInterval(5), issuedAt: now)
    let source = FakeTokenSource(token: shortLived)
    let transport = StubTransport(
      responder: ClosureResponder { request throws(HTTPError) in
        HTTPResponse(status: 200, request: request)
      })
    let requester = makeRequester(
      transport: transport, plugins: [AuthPlugin(source: source, leeway: .seconds(10))])
    for id in 0..<20 { _ = try await requester.request(.item(id: id)) }
    #expect(source.refreshes == 0)
    // Near its end (within a quarter of its life) it is refreshed ahead, once.
    let ending = AccessToken(
      value: "token-1", expiresAt: now.addingTimeInterval(1), issuedAt: now.addingTimeInterval(-4))
    source.setToken(ending)
    for id in 0..<20 { _ = try await requester.request(.item(id: id)) }
    #expect(source.refreshes == 1)
  }
}

@Suite("AuthPlugin: offline is not the end of a session", .capturesLogs)
struct AuthPluginOfflineTests {
  private let alwaysOK = StubTransport(
    responder: ClosureResponder { request throws(HTTPError) in
      HTTPResponse(status: 200, request: request)
    })

  @Test(arguments: [
    HTTPError.transport(TransportFailure(.cannotConnect)),
    .transport(TransportFailure(.timedOut)),
    .unacceptableStatus(
      HTTPResponse(status: 503, request: HTTPRequest(method: .post, url: URL(string: "http://a")!))),
    .unacceptableStatus(
      HTTPResponse(status: 429, request: HTTPRequest(method: .post, url: URL(string: "http://a")!))),
  ])
  func aRefreshThatCouldNotBeMadeFailsEveryWaiterAlikeAndKeepsTheSession(failure: HTTPError)
    async throws
  {
    let expired = AccessToken(value: "token-1", expiresAt: Date().addingTimeInterval(-60))
    let source = FakeTokenSource(token: expired, refreshDelay: .milliseconds(30))
    source.failRefreshes(with: failure)
    let requester = makeRequester(transport: alwaysOK, plugins: [AuthPlugin(source: source)])
    let errors = await withTaskGroup(of: HTTPError?.self) { group in
      for id in 0..<100 {
        group.addTask {
          do throws(HTTPError) {
            _ = try await requester.request(.item(id: id))
            return nil
          } catch {
            return error
          }
        }
      }
      var errors: [HTTPError?] = []
      for await error in group { errors.append(error) }
      return errors
    }
    #expect(Set(errors.map { "\(String(describing: $0))" }).count == 1)
    guard case .authentication(.refreshUnavailable) = errors.first ?? nil else {
      Issue.record("expected refreshUnavailable, got \(String(describing: errors.first))")
      return
    }
    #expect(source.refreshes == 1)
    #expect(source.invalidations.isEmpty)
    #expect(source.currentAccessToken == expired)
    // Back online: the next request refreshes again and goes through.
    source.failRefreshes(with: nil)
    _ = try await requester.request(.item(id: 1))
    #expect(source.refreshes == 2)
    #expect(source.currentAccessToken?.value == "token-3")
  }

  @Test func aRefreshTheServerAnswered401ToEndsTheSessionByDefault() async throws {
    let expired = AccessToken(value: "token-1", expiresAt: Date().addingTimeInterval(-60))
    let source = FakeTokenSource(token: expired)
    source.failRefreshes(
      with: HTTPError.unacceptableStatus(
        HTTPResponse(
          status: 401, request: HTTPRequest(method: .post, url: URL(string: "http://a")!)))
    )
    let requester = makeRequester(transport: alwaysOK, plugins: [AuthPlugin(source: source)])
    await #expect(throws: HTTPError.self) { try await requester.request(.item(id: 1)) }
    #expect(source.invalidations.count == 1)
    #expect(source.currentAccessToken == nil)
  }

  @Test func offlineAheadOfExpiryTheStillValidTokenIsSent() async throws {
    // 500 s left of an hour: within the 600 s leeway (at most a quarter of its life), so each
    // request would refresh it ahead; it stays valid however slow the machine (a test starved
    // on a loaded two-core machine once took over 30 s, when the token had only 30 s left).
    let now = Date()
    let ending = AccessToken(
      value: "token-1", expiresAt: now.addingTimeInterval(500),
      issuedAt: now.addingTimeInterval(-3100))
    let source = FakeTokenSource(token: ending, refreshDelay: .zero)
    source.failRefreshes(with: HTTPError.transport(TransportFailure(.cannotConnect)))
    let sent = Recorder<String>()
    let transport = StubTransport(
      responder: ClosureResponder { request throws(HTTPError) in
        sent.append(request.headers["Authorization"] ?? "-")
        return HTTPResponse(status: 200, request: request)
      })
    let requester = makeRequester(
      transport: transport, plugins: [AuthPlugin(source: source, leeway: .seconds(600))])
    for id in 0..<10 { _ = try await requester.request(.item(id: id)) }
    #expect(sent.values == Array(repeating: "Bearer token-1", count: 10))
    // One refresh was tried; the next ones wait a few seconds instead of one per request.
    #expect(source.refreshes == 1)
    #expect(source.invalidations.isEmpty)
  }

  /// A retry the retry plugin asked for (a `503`) is prepared again after its wait; a sign-out
  /// and another user's sign-in during that wait must not send the first user's request with
  /// the second user's token (a `DELETE` would be made in the wrong account).
  @Test func aRetryIsNotSentWithTheTokenOfASessionBegunDuringItsWait() async throws {
    let source = FakeTokenSource(token: freshToken("token-1"))
    let sequence = StatusSequence([.status(503), .json(Item(id: 1, name: "ok"))])
    let seen = Recorder<String>()
    let router = Router()
    router.get("/items/:id") { request in
      seen.append(request.bearerToken ?? "none")
      return sequence.next()
    }
    try await withServer(router) { _ in
      var configuration = HTTPRequester<TestAPI>.Configuration()
      configuration.sleep = { _ in source.setToken(freshToken("bob-1")) }  // signed out, Bob in
      let requester = HTTPRequester<TestAPI>(
        baseURL: TestAPI.serverURL, transport: URLSessionTransport(),
        plugins: [AuthPlugin(source: source), RetryPlugin()], configuration: configuration)
      await #expect(throws: HTTPError.authentication(.sessionChanged)) {
        try await requester.request(.item(id: 1))
      }
    }
    #expect(seen.values == ["token-1"])
  }

  /// The same retry after a refresh of the same session (another request's `401` during the
  /// wait) goes, with the refreshed token.
  @Test func aRetryGoesWithTheTokenRefreshedDuringItsWait() async throws {
    let source = FakeTokenSource(token: freshToken("token-1"), refreshDelay: .zero)
    let first = StatusSequence([.status(503), .json(Item(id: 1, name: "ok"))])
    let seen = Recorder<String>()
    let router = Router()
    router.get("/items/:id") { request in
      let token = request.bearerToken ?? "none"
      seen.append("\(request.pathParameters["id"] ?? "?"):\(token)")
      if request.pathParameters["id"] == "1" { return first.next() }
      return token == "token-1" ? .status(401) : .json(Item(id: 2, name: token))
    }
    try await withServer(router) { _ in
      let plugin = AuthPlugin(source: source)
      let other = makeRequester(plugins: [plugin])
      var configuration = HTTPRequester<TestAPI>.Configuration()
      configuration.sleep = { _ in _ = try await other.request(.item(id: 2)) }
      let requester = HTTPRequester<TestAPI>(
        baseURL: TestAPI.serverURL, transport: URLSessionTransport(),
        plugins: [plugin, RetryPlugin()], configuration: configuration)
      let item = try await requester.request(.item(id: 1), as: Item.self)
      #expect(item.name == "ok")
    }
    #expect(seen.values == ["1:token-1", "2:token-1", "2:token-2", "1:token-2"])
    #expect(source.refreshes == 1)
  }

  /// The same, when the new session's token is about to expire: the stale retry fails before
  /// it refreshes anything (a refresh would be made for the new session, not this request's).
  @Test func aStaleRetryRefreshesNothing() async throws {
    let source = FakeTokenSource(token: freshToken("token-1"))
    let sequence = StatusSequence([.status(503), .json(Item(id: 1, name: "ok"))])
    let router = Router()
    router.get("/items/:id") { _ in sequence.next() }
    try await withServer(router) { _ in
      var configuration = HTTPRequester<TestAPI>.Configuration()
      configuration.sleep = { _ in
        source.setToken(AccessToken(value: "bob-1", expiresAt: Date().addingTimeInterval(5)))
      }
      let requester = HTTPRequester<TestAPI>(
        baseURL: TestAPI.serverURL, transport: URLSessionTransport(),
        plugins: [AuthPlugin(source: source, leeway: .seconds(10)), RetryPlugin()],
        configuration: configuration)
      await #expect(throws: HTTPError.authentication(.sessionChanged)) {
        try await requester.request(.item(id: 1))
      }
    }
    #expect(source.refreshes == 0)
    #expect(sequence.callCount == 1)
  }
}
