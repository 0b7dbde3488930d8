import Foundation
import Synchronization
import TrellisCore
import TrellisDemoBackend
import TrellisLoopbackServer
import TrellisNetwork
import TrellisRepository

/// How a test reaches the demo backend: in process through the stub transport, or over real
/// HTTP through the loopback server. Repository tests run in both.
enum BackendMode: String, CaseIterable, Sendable, CustomStringConvertible {
  case inProcess
  case loopback

  var description: String { rawValue }
}

/// Routes in process while recording each request's path.
struct RecordingResponder: HTTPResponder {
  let router: Router
  let paths: Recorder

  func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
    paths.append("\(request.method) \(request.url.path)")
    return try await router.respond(to: request)
  }
}

/// Lines recorded from any thread.
final class Recorder: Sendable {
  private let lines = Mutex<[String]>([])
  func append(_ line: String) { lines.withLock { $0.append(line) } }
  var all: [String] { lines.withLock { $0 } }
}

/// A token source holding the token a test signed in with.
final class FixedTokenSource: AuthTokenSource {
  private let token = Mutex<AccessToken?>(nil)
  func set(_ value: String) {
    token.withLock { $0 = AccessToken(value: value, expiresAt: Date().addingTimeInterval(3600)) }
  }
  var currentAccessToken: AccessToken? { token.withLock { $0 } }
  func refreshAccessToken() async throws -> AccessToken {
    throw AuthenticationFailure.refreshRejected("no refresh in repository tests")
  }
  func invalidateSession(of token: AccessToken, because failure: AuthenticationFailure) async {}
}

/// A demo backend reachable in the given mode, and requesters for it.
final class Harness: Sendable {
  let backend: DemoBackend
  let baseURL: URL
  private let server: LoopbackServer?
  private let transport: any HTTPTransport
  private let inProcessPaths = Recorder()
  let tokens = FixedTokenSource()

  init(_ mode: BackendMode, configuration: DemoConfiguration = .instant) throws {
    backend = DemoBackend(configuration: configuration)
    switch mode {
    case .inProcess:
      server = nil
      baseURL = URL(string: "http://demo.invalid")!
      transport = StubTransport(
        responder: RecordingResponder(router: backend.router, paths: inProcessPaths))
    case .loopback:
      let server = try LoopbackServer(router: backend.router, recordedRequests: 1000)
      self.server = server
      baseURL = server.baseURL
      transport = URLSessionTransport()
    }
  }

  deinit {
    server?.stop()
  }

  /// Every request the backend received, as `METHOD /path`.
  var requests: [String] {
    server.map { $0.requests.map { "\($0.method) \($0.path)" } } ?? inProcessPaths.all
  }

  func requester<API: HTTPEndpoint>(_: API.Type = API.self) -> HTTPRequester<API> {
    HTTPRequester(baseURL: baseURL, transport: transport, plugins: [AuthPlugin(source: tokens)])
  }

  /// Signs in as `username` and makes the other requesters use the token.
  func signIn(_ username: String = "alice") async throws {
    let tokens = try await AuthRepoImpl(requester: requester()).login(
      username: username, password: username + "1234")
    self.tokens.set(tokens.accessToken)
  }
}
