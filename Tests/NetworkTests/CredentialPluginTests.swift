import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisLoopbackServer
import TrellisNetwork

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Credentials other than the session's token, as an API's description names them: an API key
/// under a name of the API's own, in a header or the query, and HTTP Basic. Each goes only on the
/// requests that name its scheme, only to their origin, never into a log or to another host,
/// and never in place of the session's bearer token.
@Suite("APIKeyPlugin and BasicAuthPlugin", .capturesLogs)
struct CredentialPluginTests {
  private struct Call: HTTPEndpoint {
    var schemes: Set<String> = []
    var target: URL? = nil
    var baseURL: URL? { target }
    var path: String { "/echo" }
    var method: HTTPMethod { .get }
    var requiresAuthentication: Bool { false }
    var credentialSchemes: Set<String> { schemes }
  }

  /// A server that records what each request carried.
  private func recordingRouter(_ seen: Recorder<(headers: HTTPHeaders, query: [URLQueryItem])>)
    -> Router
  {
    let router = Router()
    router.get("/echo") { request in
      seen.append((request.headers, request.query))
      return .text("ok")
    }
    return router
  }

  @Test func aKeyGoesWhereTheSchemeSaysOnlyOnItsRequestsAndNeverIntoALog() async throws {
    let seen = Recorder<(headers: HTTPHeaders, query: [URLQueryItem])>()
    let sink = MemoryLogSink()
    try await withServer(recordingRouter(seen)) { _ in
      let requester = HTTPRequester<Call>(
        baseURL: TestAPI.serverURL, transport: URLSessionTransport(),
        plugins: [
          APIKeyPlugin(scheme: "zq_key", placement: .header("X-Zq-Key")) { "k-header-1234" },
          APIKeyPlugin(scheme: "zq_query", placement: .query("appid")) { "k query&=1" },
          BasicAuthPlugin(scheme: "basic") { ("ann", "p:ss") },
          LoggingPlugin(logger: Logger(category: "HTTP", sink: sink), logsCurl: true),
        ])
      _ = try await requester.request(Call(schemes: ["zq_key"]))
      _ = try await requester.request(Call(schemes: ["zq_query"]))
      _ = try await requester.request(Call(schemes: ["basic"]))
      _ = try await requester.request(Call())
    }
    let requests = seen.values
    try #require(requests.count == 4)
    #expect(requests[0].headers["X-Zq-Key"] == "k-header-1234")
    #expect(requests[0].headers["Authorization"] == nil)
    #expect(requests[1].query.first { $0.name == "appid" }?.value == "k query&=1")
    #expect(requests[1].headers["X-Zq-Key"] == nil)
    #expect(
      requests[2].headers["Authorization"] == "Basic " + Data("ann:p:ss".utf8).base64EncodedString()
    )
    #expect(requests[3].headers["X-Zq-Key"] == nil && requests[3].headers["Authorization"] == nil)
    #expect(requests[3].query.isEmpty)
    let log = sink.messages.joined(separator: "\n")
    #expect(log.contains("appid=<redacted>") || log.contains("appid=%3Credacted%3E"), "\(log)")
    for secret in [
      "k-header-1234", "k%20query", "k query", Data("ann:p:ss".utf8).base64EncodedString(),
    ] {
      #expect(!log.contains(secret), "\(secret) in \(log)")
    }
  }

  @Test func noKeyOrAnotherOriginSendsNothing() async throws {
    let seen = Recorder<(headers: HTTPHeaders, query: [URLQueryItem])>()
    try await withServer(recordingRouter(seen)) { _ in
      let requester = HTTPRequester<Call>(
        baseURL: TestAPI.serverURL, transport: URLSessionTransport(),
        plugins: [APIKeyPlugin(scheme: "zq_key", placement: .header("X-Zq-Key")) { nil }])
      await #expect(throws: HTTPError.authentication(.missingCredential("zq_key"))) {
        try await requester.request(Call(schemes: ["zq_key"]))
      }
      let elsewhere = HTTPRequester<Call>(
        baseURL: TestAPI.serverURL, transport: URLSessionTransport(),
        plugins: [APIKeyPlugin(scheme: "zq_key", placement: .header("X-Zq-Key")) { "k" }])
      await #expect(throws: HTTPError.self) {
        try await elsewhere.request(
          Call(schemes: ["zq_key"], target: URL(string: "http://127.0.0.1:9")!))
      }
    }
    #expect(seen.values.isEmpty)
  }

  @Test func aKeyMarkedSecretIsDroppedOnARedirectToAnotherOrigin() throws {
    var request = URLRequest(url: URL(string: "https://other.example.com/landing")!)
    request.setValue("k-header-1234", forHTTPHeaderField: "X-Zq-Key")
    request.setValue("yes", forHTTPHeaderField: "X-Harmless")
    let decision = RedirectPolicy(crossOrigin: .followWithoutCredentials).decide(
      original: URL(string: "https://api.example.com/echo")!,
      from: URL(string: "https://api.example.com/echo")!, status: 302, followed: 0,
      next: request, secretHeaders: ["x-zq-key"])
    let next = try decision.get()
    #expect(next.value(forHTTPHeaderField: "X-Zq-Key") == nil)
    #expect(next.value(forHTTPHeaderField: "X-Harmless") == "yes")
  }
}
