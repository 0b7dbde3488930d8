import Foundation
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisLoopbackServer

@testable import TrellisNetwork

@Suite("LoggingPlugin", .capturesLogs)
struct LoggingPluginTests {
  @Test func logsRequestsAndOutcomesWithoutEverWritingTheToken() async throws {
    let sink = MemoryLogSink()
    let logger = Logger(category: "HTTP", sink: sink, minimumLevel: .trace)
    let secret = "very-secret-token-value"
    let source = FakeTokenSource(token: freshToken(secret))
    let router = Router()
    router.get("/items/:id") { _ in .json(Item(id: 1, name: "ok")) }
    router.post("/login") { _ in
      .json(["access_token": "fresh-secret-access", "refresh_token": "fresh-secret-refresh"])
    }
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [
        AuthPlugin(source: source),
        LoggingPlugin(logger: logger, logsCurl: true, logsBodies: true),
      ])
      _ = try await requester.request(.item(id: 1))
      _ = try await requester.request(.login(username: "alice", password: "hunter2"))
    }
    let lines = sink.messages
    #expect(lines.contains("→ GET /items/1"))
    #expect(lines.contains { $0.hasPrefix("← 200 GET /items/1 (") && $0.hasSuffix("bytes)") })
    #expect(
      lines.contains { $0.hasPrefix("curl -X GET") && $0.contains("Authorization: <redacted>") })
    #expect(lines.contains { $0.contains("username=alice&password=<redacted>") })
    #expect(lines.contains { $0.contains(#""access_token":"<redacted>""#) })
    for line in lines {
      #expect(!line.contains(secret))
      #expect(!line.contains("hunter2"))
      #expect(!line.contains("fresh-secret"))
    }
  }

  @Test func logsFailuresAsWarnings() async throws {
    let sink = MemoryLogSink()
    let requester = makeRequester(
      transport: StubTransport(),
      plugins: [LoggingPlugin(logger: Logger(category: "HTTP", sink: sink, minimumLevel: .info))])
    _ = try? await requester.request(.publicInfo)  // the stub answers 503
    let warning = try #require(sink.records.last)
    #expect(warning.level == .warning)
    #expect(warning.message.hasPrefix("← 503 GET /public"))
  }

  @Test func writesNothingWhenItsLevelIsDisabled() async throws {
    let sink = MemoryLogSink()
    let requester = makeRequester(
      transport: StubTransport(),
      plugins: [LoggingPlugin(logger: Logger(category: "HTTP", sink: sink, minimumLevel: .error))])
    _ = try await requester.request(.item(id: 1))
    #expect(sink.records.isEmpty)
  }

  @Test func aTokenInTheQueryIsRedactedInEveryLine() async throws {
    struct Tokenized: HTTPEndpoint {
      var baseURL: URL? { TestAPI.serverURL }
      var path: String { "/items/1" }
      var method: HTTPMethod { .get }
      var requiresAuthentication: Bool { false }
      var query: [URLQueryItem] {
        [
          URLQueryItem(name: "access_token", value: "query-secret"),
          .init(name: "page", value: "2"),
        ]
      }
    }
    let sink = MemoryLogSink()
    let router = Router()
    router.get("/items/:id") { _ in .status(500) }
    try await withServer(router) { _ in
      let requester = HTTPRequester<Tokenized>(
        transport: URLSessionTransport(),
        plugins: [
          LoggingPlugin(
            logger: Logger(category: "HTTP", sink: sink, minimumLevel: .trace), logsCurl: true,
            logsBodies: true)
        ])
      _ = try? await requester.request(Tokenized())
    }
    #expect(sink.messages.contains("→ GET /items/1?access_token=<redacted>&page=2"))
    #expect(sink.messages.count >= 3)
    for line in sink.messages { #expect(!line.contains("query-secret"), "\(line)") }
  }

  @Test func textBodiesAndLargeBodiesAreLoggedBySizeOnly() {
    let plugin = LoggingPlugin(logsBodies: true, maximumLoggedBodySize: 64)
    let text = plugin.redactedBody(Data("my password is hunter2".utf8), contentType: "text/plain")
    #expect(text == "<22 bytes of text/plain>")
    let big = Data(("{\"name\":\"" + String(repeating: "x", count: 100) + "\"}").utf8)
    #expect(plugin.redactedBody(big, contentType: "application/json").hasPrefix("<111 bytes"))
    let small = plugin.redactedBody(
      Data(#"{"newPassword":"x1","name":"a"}"#.utf8), contentType: "application/json")
    #expect(small == #"{"name":"a","newPassword":"<redacted>"}"#)
    let optedIn = LoggingPlugin(logsBodies: true, logsTextBodies: true)
    #expect(optedIn.redactedBody(Data("hello".utf8), contentType: "text/plain") == "hello")
  }
}
