import Foundation
import Testing
import TrellisCoreTesting
import TrellisLoopbackServer
import TrellisNetwork

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a second server ("another origin") received: the method, the `Authorization` header
/// and the body of each request.
private final class Witness: Sendable {
  let seen = Recorder<String>()
  let server: LoopbackServer

  init() throws {
    let router = Router()
    let seen = seen
    for method in [HTTPMethod.get, .post] {
      router.add(method, "/landing") { request in
        let body = String(decoding: request.body, as: UTF8.self)
        seen.append(
          "\(request.method) auth=\(request.headers["Authorization"] ?? "-") body=\(body)")
        return .json(Item(id: 2, name: "elsewhere"))
      }
    }
    server = try LoopbackServer(router: router)
  }

  var landing: String { server.baseURL.appendingPathComponent("landing").absoluteString }
}

/// A router whose every route redirects with `status` to `location`.
private func redirecting(_ status: Int, to location: @escaping @Sendable () -> String) -> Router {
  let router = Router()
  router.get("/items/:id") { _ in .status(status, headers: ["Location": location()]) }
  router.post("/login") { _ in .status(status, headers: ["Location": location()]) }
  return router
}

@Suite("Redirects: a credential never leaves its origin", .capturesLogs)
struct RedirectTests {
  @Test(arguments: [301, 302, 303, 307, 308])
  func aRedirectToAnotherOriginIsRefusedAndTheOtherHostReceivesNothing(status: Int) async throws {
    let witness = try Witness()
    defer { witness.server.stop() }
    try await withServer(redirecting(status, to: { witness.landing })) { _ in
      let source = FakeTokenSource(token: freshToken("secret-token"))
      let requester = makeRequester(plugins: [AuthPlugin(source: source)])
      for call in [TestAPI.item(id: 1), .login(username: "alice", password: "alice1234")] {
        do throws(HTTPError) {
          _ = try await requester.request(call)
          Issue.record("\(status): expected the redirect to be refused")
        } catch {
          guard case .redirectRefused(let refusal) = error else {
            Issue.record("\(status): expected redirectRefused, got \(error)")
            continue
          }
          #expect(refusal.status == status)
          #expect(refusal.reason == .crossOrigin)
          #expect(refusal.to.port == witness.server.baseURL.port)
        }
      }
    }
    #expect(witness.seen.values.isEmpty)
  }

  @Test func aSameOriginRedirectIsFollowedWithItsCredentials() async throws {
    let seen = Recorder<String>()
    let router = Router()
    router.get("/items/:id") { request in
      .status(301, headers: ["Location": "/moved/\(request.pathParameters["id"] ?? "")"])
    }
    router.get("/moved/:id") { request in
      seen.append(request.bearerToken ?? "-")
      return .json(Item(id: Int(request.pathParameters["id"] ?? "") ?? 0, name: "moved"))
    }
    try await withServer(router) { _ in
      let source = FakeTokenSource(token: freshToken("token-1"))
      let requester = makeRequester(plugins: [AuthPlugin(source: source)])
      let item = try await requester.request(.item(id: 4), as: Item.self)
      #expect(item == Item(id: 4, name: "moved"))
    }
    #expect(seen.values == ["token-1"])
  }

  @Test func followingWithoutCredentialsStripsThemAndNeverResendsABody() async throws {
    let witness = try Witness()
    defer { witness.server.stop() }
    let transport = URLSessionTransport(
      redirectPolicy: RedirectPolicy(crossOrigin: .followWithoutCredentials))
    for status in [302, 307] {
      try await withServer(redirecting(status, to: { witness.landing })) { _ in
        let source = FakeTokenSource(token: freshToken("secret-token"))
        let requester = makeRequester(transport: transport, plugins: [AuthPlugin(source: source)])
        let item = try await requester.request(.item(id: 1), as: Item.self)
        #expect(item.name == "elsewhere")
        do throws(HTTPError) {
          _ = try await requester.request(.login(username: "alice", password: "alice1234"))
          // A 302 turns the POST into a GET without a body; that may be followed.
          #expect(status == 302)
        } catch {
          // A 307 would re-post the password to the other origin: refused.
          #expect(status == 307)
          #expect(
            error
              == .redirectRefused(
                RedirectRefusal(
                  status: 307, from: error.redirectFrom!, to: URL(string: witness.landing)!,
                  reason: .bodyToAnotherOrigin)))
        }
      }
    }
    #expect(!witness.seen.values.isEmpty)
    for line in witness.seen.values {
      #expect(line.contains("auth=-"))
      #expect(!line.contains("alice1234"))
      #expect(line.hasPrefix("GET"))
    }
  }

  @Test func aRedirectLoopStopsAfterTheMaximum() async throws {
    let hits = Recorder<Int>()
    let router = Router()
    router.get("/items/:id") { request in
      let id = Int(request.pathParameters["id"] ?? "") ?? 0
      hits.append(id)
      return .status(302, headers: ["Location": "/items/\(id + 1)"])
    }
    try await withServer(router) { _ in
      let transport = URLSessionTransport(redirectPolicy: RedirectPolicy(maximumRedirects: 3))
      let requester = makeRequester(transport: transport)
      do throws(HTTPError) {
        _ = try await requester.request(.item(id: 0))
        Issue.record("expected the loop to stop")
      } catch {
        guard case .redirectRefused(let refusal) = error else {
          Issue.record("expected redirectRefused, got \(error)")
          return
        }
        #expect(refusal.reason == .tooManyRedirects(3))
      }
    }
    #expect(hits.values == [0, 1, 2, 3])
  }

  @Test func thePolicyRefusesADowngradeAndComparesWholeOrigins() throws {
    let policy = RedirectPolicy(crossOrigin: .followWithoutCredentials)
    func decide(_ original: String, _ next: String, followed: Int = 0)
      -> Result<URLRequest, RedirectRefusal>
    {
      var request = URLRequest(url: URL(string: next)!)
      request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
      request.setValue("k", forHTTPHeaderField: "X-API-Key")
      request.setValue("application/json", forHTTPHeaderField: "Accept")
      return policy.decide(
        original: URL(string: original)!, from: URL(string: original)!, status: 302,
        followed: followed, next: request)
    }
    #expect(throws: RedirectRefusal.self) {
      try decide("https://a.test/x", "http://a.test/y").get()
    }
    let sameOrigin = try decide("https://a.test/x", "https://A.test:443/y").get()
    #expect(sameOrigin.value(forHTTPHeaderField: "Authorization") == "Bearer t")
    let otherPort = try decide("http://a.test/x", "http://a.test:8080/y").get()
    #expect(otherPort.value(forHTTPHeaderField: "Authorization") == nil)
    #expect(otherPort.value(forHTTPHeaderField: "X-API-Key") == nil)
    #expect(otherPort.value(forHTTPHeaderField: "Accept") == "application/json")
    #expect(throws: RedirectRefusal.self) {
      try decide("http://a.test/x", "http://a.test/y", followed: 5).get()
    }
  }
}

extension HTTPError {
  /// The URL a refused redirect came from.
  fileprivate var redirectFrom: URL? {
    if case .redirectRefused(let refusal) = self { return refusal.from }
    return nil
  }
}
