import Foundation
import Synchronization
import Testing
import TrellisCoreTesting
import TrellisLoopbackServer
import TrellisNetwork

/// After a silent network failure the connections a transport kept alive are dead, though
/// nothing closed them (`CuttableProxy.blackHole()`): libcurl, under `URLSessionTransport` on
/// Linux, would hand them to the next calls, each then silent until its deadline. The transport
/// opens new connections after a call times out, and replaces its idempotent calls in flight
/// when told the network may have changed.
@Suite(
  "URLSessionTransport: kept-alive connections after a silent network", .timeLimit(.minutes(1)))
struct ConnectionResetTests {
  private struct Ping: HTTPEndpoint {
    var baseURL: URL?
    var timeout: Duration?
    var path: String { "/ping" }
    var method: HTTPMethod { .get }
  }

  /// What each attempt of a call came to.
  private final class Attempts: HTTPPlugin {
    let results = Mutex<[String]>([])
    var name: String { "attempts" }
    func didReceive(_ result: HTTPResult, for request: HTTPRequest, context: HTTPCallContext)
      async
    {
      let outcome =
        switch result {
        case .success(let response): "\(response.status)"
        case .failure(.transport(let failure)): "\(failure.kind)"
        case .failure(let error): "\(error)"
        }
      results.withLock { $0.append(outcome) }
    }
  }

  /// Four calls at once leave four connections alive; the network falls silent and returns.
  private func withDeadKeptConnections(
    _ body: (URLSessionTransport, CuttableProxy) async throws -> Void
  ) async throws {
    let router = Router()
    router.get("/ping") { _ in .text("pong") }
    let server = try LoopbackServer(router: router)
    defer { server.stop() }
    let proxy = try CuttableProxy(targetPort: server.port)
    defer { proxy.stop() }
    let transport = URLSessionTransport()
    let requester = HTTPRequester<Ping>(transport: transport)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask { _ = try await requester.request(Ping(baseURL: proxy.baseURL)) }
      }
      try await group.waitForAll()
    }
    proxy.blackHole()
    try await Task.sleep(for: .milliseconds(300))
    try await body(transport, proxy)
  }

  @Test func aCallAfterATimeoutGoesOverANewConnection() async throws {
    try await withDeadKeptConnections { transport, proxy in
      proxy.restore()
      let requester = HTTPRequester<Ping>(transport: transport)
      // The first call meets a dead kept connection and times out...
      await #expect(throws: HTTPError.self) {
        try await requester.request(Ping(baseURL: proxy.baseURL, timeout: .seconds(2)))
      }
      // ...and the next is not handed another one.
      let answer = try await requester.request(Ping(baseURL: proxy.baseURL, timeout: .seconds(2)))
      #expect(answer.status == 200)
    }
  }

  @Test func resettingReplacesTheIdempotentCallsInFlight() async throws {
    try await withDeadKeptConnections { transport, proxy in
      let attempts = Attempts()
      let requester = HTTPRequester<Ping>(
        transport: transport, plugins: [attempts, RetryPlugin()])
      let call = Task {
        try await requester.request(Ping(baseURL: proxy.baseURL, timeout: .seconds(20)))
      }
      try await Task.sleep(for: .milliseconds(300))
      proxy.restore()
      // The network is back (the app came to the foreground, the stream found its connection
      // dead): the call held by a dead connection is replaced, not left to its deadline.
      transport.resetConnections()
      #expect(try await call.value.status == 200)
      #expect(attempts.results.withLock { $0 } == ["connectionReplaced", "200"])
    }
  }
}
