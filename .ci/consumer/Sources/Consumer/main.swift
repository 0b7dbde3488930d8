// A consumer of the library products run as a program: its own reactor and endpoint, and
// Trellis's auth service (what every app keeps, the demo stripped or not) over a requester
// whose transport answers in process, with the auth plugin attaching the session's token.
import AppFeatures
import Foundation
import TrellisCore
import TrellisCoreTesting
import TrellisNetwork
import TrellisRepository
import TrellisService

/// The consumer's backend, in process: `/auth/login`, and `/bookmarks`, which answers only with
/// the token the sign-in gave.
nonisolated struct Backend: HTTPResponder {
  func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
    let body: String
    switch request.url.path {
    case "/auth/login":
      body =
        #"{"accessToken":"at-1","refreshToken":"rt-1","expiresIn":3600,"user":{"id":7,"username":"dana","displayName":"Dana Ito","email":"dana@example.com","title":"iOS","bio":""}}"#
    default:
      guard request.headers["Authorization"] == "Bearer at-1" else {
        return HTTPResponse(status: 401, headers: [:], body: Data(), request: request)
      }
      body = #"[{"id":1,"text":"swift.org"}]"#
    }
    return HTTPResponse(
      status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8),
      request: request)
  }
}

@MainActor
func run() async throws {
  let base = URL(string: "https://api.example.com")!
  let transport = StubTransport(responder: Backend())

  let clock = TestClock()
  let search = ReactorTester(QuickSearchReactor(clock: clock) { query in ["\(query)!"] })
  search.send(.type("milk"))
  try await search.expect { $0.query = "milk" }
  let waiting = await clock.waitForSleepers(1)
  precondition(waiting, "the search did not wait for a pause")
  await clock.advance(by: .milliseconds(300))
  try await search.expect { $0.results = ["milk!"] }
  try await search.finish()

  let auth = AuthServiceImpl(
    repo: AuthRepoImpl(
      requester: HTTPRequester<AuthDataAPI>(baseURL: base, transport: transport)),
    store: InMemorySessionStore())
  let user = try await auth.login(username: "dana", password: "secret")
  precondition(user.displayName == "Dana Ito", "the auth service did not sign in: \(user)")
  let bookmarks = BookmarkServiceImpl(
    repo: BookmarkRepoImpl(
      requester: HTTPRequester<BookmarkDataAPI>(
        baseURL: base, transport: transport, plugins: [AuthPlugin(source: auth)])))
  let texts = try await bookmarks.bookmarks()
  precondition(texts == ["swift.org"], "the app's endpoint did not answer with the session's token")
  print(
    "consumer: a reactor, a requester and services of the app's and the starter's work "
      + "(fallbacks \(Fallbacks.areForced ? "forced" : "not forced"))")
}

try await run()
