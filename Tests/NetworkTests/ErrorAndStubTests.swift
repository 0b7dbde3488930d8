import Foundation
import Testing
import TrellisCoreTesting
import TrellisNetwork

/// Answers from a closure, for unit tests through `StubTransport(responder:)`.
struct ClosureResponder: HTTPResponder {
  let answer: @Sendable (HTTPRequest) async throws(HTTPError) -> HTTPResponse

  func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
    try await answer(request)
  }
}

@Suite("Errors, decoding and the stub transport", .capturesLogs)
struct ErrorAndStubTests {
  private func requester(
    _ answer: @escaping @Sendable (HTTPRequest) async throws(HTTPError) -> HTTPResponse
  ) -> HTTPRequester<TestAPI> {
    makeRequester(transport: StubTransport(responder: ClosureResponder(answer: answer)))
  }

  @Test func endpointStubsAnswerInProcess() async throws {
    let requester = makeRequester(transport: StubTransport())
    let item = try await requester.request(.item(id: 7), as: Item.self)
    #expect(item == Item(id: 7, name: "Item 7"))
  }

  @Test func anEndpointWithoutAStubFailsWithAClearTransportError() async {
    let requester = makeRequester(transport: StubTransport())
    await #expect {
      try await requester.request(.items(page: 1))
    } throws: { error in
      guard case .transport(let failure) = error as? HTTPError else { return false }
      return failure.kind == .other && failure.detail.contains("no stub for GET /items")
    }
  }

  @Test func aStubDelayIsCancellable() async {
    struct Slow: HTTPEndpoint {
      var baseURL: URL? { URL(string: "http://stub")! }
      var path: String { "/slow" }
      var method: HTTPMethod { .get }
      var stub: HTTPStub? { .status(200, delay: .seconds(30)) }
    }
    let requester = HTTPRequester<Slow>(transport: StubTransport())
    let task = Task { try await requester.request(Slow()) }
    task.cancel()
    let result = await task.result
    #expect(throws: HTTPError.transport(TransportFailure(.cancelled))) { try result.get() }
  }

  @Test func anUnacceptableStatusKeepsTheResponseForATypedErrorBody() async throws {
    let requester = requester { request throws(HTTPError) in
      HTTPResponse(
        status: 422, headers: ["Content-Type": "application/json", "X-Request-ID": "r-1"],
        body: Data(#"{"error":"name is required"}"#.utf8), request: request)
    }
    do {
      _ = try await requester.request(.create(Item(id: 1, name: "")))
      Issue.record("expected a failure")
    } catch {
      guard case .unacceptableStatus(let response) = error else {
        Issue.record("expected unacceptableStatus, got \(error)")
        return
      }
      #expect(response.status == 422)
      #expect(response.headers["x-request-id"] == "r-1")
      #expect(try response.decode(APIErrorBody.self) == APIErrorBody(error: "name is required"))
    }
  }

  @Test func aDecodingFailureNamesTheFailingKeyPath() async throws {
    let requester = requester { request throws(HTTPError) in
      HTTPResponse(
        status: 200, body: Data(#"{"items":[{"id":1,"name":"a"},{"id":"two"}]}"#.utf8),
        request: request)
    }
    struct Page: Decodable { var items: [Item] }
    do {
      _ = try await requester.request(.items(page: 1), as: Page.self)
      Issue.record("expected a decoding failure")
    } catch {
      guard case .decoding(let failure) = error else {
        Issue.record("expected decoding, got \(error)")
        return
      }
      #expect(failure.codingPath == "items[1].id")
      #expect(failure.typeName == "Page")
      #expect(failure.reason.contains("expected Int"))
      #expect(failure.response.status == 200)
    }
  }

  @Test func aMissingKeyIsNamedToo() async throws {
    let requester = requester { request throws(HTTPError) in
      HTTPResponse(status: 200, body: Data(#"{"id":1}"#.utf8), request: request)
    }
    await #expect {
      try await requester.request(.item(id: 1), as: Item.self)
    } throws: { error in
      guard case .decoding(let failure) = error as? HTTPError else { return false }
      return failure.codingPath == "name" && failure.reason.contains("missing key")
    }
  }

  @Test func aTransportFailureIsThrownAsSuch() async {
    let requester = requester { _ throws(HTTPError) in
      throw .transport(TransportFailure(.cannotConnect, detail: "refused"))
    }
    await #expect(throws: HTTPError.transport(TransportFailure(.cannotConnect, detail: "refused")))
    {
      try await requester.request(.item(id: 1))
    }
  }

  @Test func anAuthenticatedEndpointWithoutASessionFailsBeforeSending() async {
    let sent = Recorder<String>()
    let source = FakeTokenSource(token: nil)
    let requester = makeRequester(
      transport: StubTransport(
        responder: ClosureResponder { request throws(HTTPError) in
          sent.append(request.target)
          return HTTPResponse(status: 200, request: request)
        }),
      plugins: [AuthPlugin(source: source)])
    await #expect(throws: HTTPError.authentication(.notSignedIn)) {
      try await requester.request(.item(id: 1))
    }
    #expect(sent.values.isEmpty)
    _ = try? await requester.request(.publicInfo)  // an open endpoint needs no session
    #expect(sent.values == ["/public"])
  }

  @Test func theURLSessionTransportWorksThroughAStubURLProtocol() async throws {
    let host = "stub-\(UUID().uuidString.lowercased()).test"
    StubURLProtocol.handlers.withLock {
      $0[host] = { request in
        (
          201, ["Content-Type": "application/json", "X-Method": request.httpMethod ?? "?"],
          Data(#"{"id":5,"name":"stubbed"}"#.utf8)
        )
      }
    }
    defer { _ = StubURLProtocol.handlers.withLock { $0.removeValue(forKey: host) } }
    let requester = makeRequester(
      transport: URLSessionTransport(protocolClasses: [StubURLProtocol.self]))
    let response = try await TestAPI.$serverURL.withValue(URL(string: "http://\(host)")!) {
      try await requester.request(.item(id: 5))
    }
    #expect(response.status == 201)
    #expect(response.headers["x-method"] == "GET")
    #expect(try response.decode(Item.self) == Item(id: 5, name: "stubbed"))
  }
}
