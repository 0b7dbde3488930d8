import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisNetwork
import TrellisRepository
import TrellisTestSupport

@testable import TrellisService

/// Only the server ends a session, and only by saying so: a refresh answered `401`, or `400`
/// with OAuth's `invalid_grant`. A CDN's or firewall's challenge page, a corporate proxy's
/// `403`, a proxy's `413`, a `409` or `422`, a portal's page: none signs the user out or
/// deletes the saved session.
@Suite(
  "A refresh's answer: only the server's refusal ends the session", .capturesLogs,
  .timeLimit(.minutes(1)))
struct RefreshAnswerTests {
  /// An answer to `POST /auth/refresh`, and whether it must end the session.
  struct Answer: Sendable, CustomStringConvertible {
    var status: Int
    var contentType: String
    var body: String
    var endsTheSession: Bool

    var description: String { "\(status) \(contentType)" }
  }

  static let json = "application/json"
  static let html = "text/html; charset=utf-8"
  static let challengePage = "<html><body><h1>Checking your browser...</h1></body></html>"

  static let answers: [Answer] = [
    Answer(
      status: 401, contentType: json,
      body: #"{"code":"invalid_refresh_token","message":"The session has ended."}"#,
      endsTheSession: true),
    Answer(status: 401, contentType: html, body: "<html>Unauthorized</html>", endsTheSession: true),
    Answer(
      status: 400, contentType: json,
      body: #"{"error":"invalid_grant","error_description":"expired"}"#, endsTheSession: true),
    Answer(
      status: 400, contentType: json, body: #"{"code":"invalid_grant"}"#, endsTheSession: true),
    // A 400 that does not name invalid_grant is a request the client got wrong, or a proxy's.
    Answer(
      status: 400, contentType: json, body: #"{"error":"invalid_request"}"#, endsTheSession: false),
    Answer(status: 400, contentType: html, body: "<html>Bad Request</html>", endsTheSession: false),
    Answer(status: 403, contentType: html, body: challengePage, endsTheSession: false),
    Answer(
      status: 403, contentType: json, body: #"{"code":"forbidden","message":"Blocked by policy"}"#,
      endsTheSession: false),
    Answer(status: 409, contentType: json, body: #"{"code":"conflict"}"#, endsTheSession: false),
    Answer(
      status: 413, contentType: html, body: "<html>Request Entity Too Large</html>",
      endsTheSession: false),
    Answer(
      status: 422, contentType: json, body: #"{"code":"validation_failed"}"#, endsTheSession: false),
    Answer(status: 429, contentType: json, body: #"{"code":"slow_down"}"#, endsTheSession: false),
    Answer(status: 502, contentType: html, body: "<html>Bad Gateway</html>", endsTheSession: false),
    Answer(status: 503, contentType: json, body: "", endsTheSession: false),
    // A sign-in portal answering for the server.
    Answer(
      status: 200, contentType: html, body: "<html>Sign in to Wi-Fi</html>", endsTheSession: false),
  ]

  /// Answers the refresh with `answer`, and every other request 200.
  struct Server: HTTPResponder {
    var answer: Answer

    func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
      guard request.url.path == "/auth/refresh" else {
        return HTTPResponse(status: 200, request: request)
      }
      return HTTPResponse(
        status: answer.status, headers: ["Content-Type": answer.contentType],
        body: Data(answer.body.utf8), request: request)
    }
  }

  private struct Me: HTTPEndpoint {
    var path: String { "/me" }
    var method: HTTPMethod { .get }
  }

  @Test(arguments: answers)
  func theSessionEndsOnlyWhenTheServerRefusesTheRefreshToken(answer: Answer) async throws {
    let transport = StubTransport(responder: Server(answer: answer))
    let baseURL = URL(string: "http://api.example")!
    let expired = Session(
      accessToken: "at-1", expiresAt: Date().addingTimeInterval(-60), refreshToken: "rt-1",
      user: .alice, issuedAt: Date().addingTimeInterval(-120))
    let store = InMemorySessionStore(session: expired)
    let service = AuthServiceImpl(
      repo: AuthRepoImpl(
        requester: HTTPRequester<AuthDataAPI>(baseURL: baseURL, transport: transport)),
      store: store, logger: Logger(category: "Auth", sink: MemoryLogSink()))
    _ = await service.restoreSession()
    let requester = HTTPRequester<Me>(
      baseURL: baseURL, transport: transport, plugins: [AuthPlugin(source: service)])

    await #expect(throws: HTTPError.self) { try await requester.request(Me()) }

    if answer.endsTheSession {
      #expect(
        service.sessionState.value
          == SessionState.expired(reason: "Your session has ended. Sign in again."))
      #expect(try store.load() == nil)
    } else {
      #expect(service.sessionState.value.user?.username == "alice")
      #expect(try store.load() == expired)
    }
  }

  @Test func theDefaultTokenSourceDecidesTheSameWay() {
    let request = HTTPRequest(method: .post, url: URL(string: "http://api.example/auth/refresh")!)
    for answer in Self.answers where answer.status != 200 {
      let response = HTTPResponse(
        status: answer.status, headers: ["Content-Type": answer.contentType],
        body: Data(answer.body.utf8), request: request)
      #expect(response.refusesRefreshToken == answer.endsTheSession, "\(answer)")
    }
  }
}
