import Foundation
import Synchronization
import TrellisCore
import TrellisLoopbackServer
import TrellisNetwork

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The endpoints the Network tests call.
enum TestAPI: HTTPEndpoint {
  case item(id: Int)
  case items(page: Int)
  case create(Item)
  case login(username: String, password: String)
  case upload(fileName: String, data: Data)
  case raw(Data)
  case publicInfo
  case events
  case path(String, method: HTTPMethod = .get)

  /// The server of the current test: a task-local, so tests running in parallel each talk to
  /// their own server. Port 9 (discard) is closed on test machines: unreachable by default.
  @TaskLocal static var serverURL = URL(string: "http://127.0.0.1:9")!

  var baseURL: URL? { Self.serverURL }
  var path: String {
    switch self {
    case .item(let id): "/items/\(id)"
    case .items: "/items"
    case .create: "/items"
    case .login: "/login"
    case .upload: "/files"
    case .raw: "/raw"
    case .publicInfo: "/public"
    case .events: "/events"
    case .path(let path, _): path
    }
  }
  var method: HTTPMethod {
    switch self {
    case .item, .items, .publicInfo, .events: .get
    case .create, .login, .upload, .raw: .post
    case .path(_, let method): method
    }
  }
  var query: [URLQueryItem] {
    if case .items(let page) = self { return [URLQueryItem(name: "page", value: "\(page)")] }
    return []
  }
  var body: HTTPRequestBody {
    switch self {
    case .create(let item): .json(item)
    case .login(let username, let password):
      .form([
        URLQueryItem(name: "username", value: username),
        URLQueryItem(name: "password", value: password),
      ])
    case .upload(let fileName, let data):
      .multipart([
        .field("purpose", "attachment"),
        .file("file", fileName: fileName, contentType: "image/png", data: data),
      ])
    case .raw(let data): .data(data, contentType: "application/octet-stream")
    default: .none
    }
  }
  var requiresAuthentication: Bool {
    switch self {
    case .login, .publicInfo: false
    default: true
    }
  }
  var stub: HTTPStub? {
    switch self {
    case .item(let id): .json(Item(id: id, name: "Item \(id)"), delay: .milliseconds(1))
    case .publicInfo: .status(503)
    default: nil
    }
  }
}

/// A test resource.
struct Item: Codable, Equatable, Sendable {
  var id: Int
  var name: String
}

/// A JSON error body, as APIs send with 4xx statuses.
struct APIErrorBody: Codable, Equatable, Sendable {
  var error: String
}

/// A token source whose refresh the test controls and counts.
final class FakeTokenSource: AuthTokenSource {
  private struct State {
    var token: AccessToken?
    var refreshes = 0
    var invalidations: [AuthenticationFailure] = []
    var nextTokens: [String] = []
    var failure: (any Error & Sendable)?
    var refreshDelay: Duration
    var cancelledRefreshes = 0
  }

  private let state: Mutex<State>
  /// How long a refresh takes: long enough for concurrent requests to pile up on it.
  var refreshDelay: Duration { state.withLock { $0.refreshDelay } }
  /// How many refreshes were cancelled while they waited.
  var cancelledRefreshes: Int { state.withLock { $0.cancelledRefreshes } }

  /// The statuses this source calls an authentication failure (the protocol's default: 401).
  let rejectionStatuses: Set<Int>

  init(
    token: AccessToken?, refreshDelay: Duration = .milliseconds(50),
    rejectionStatuses: Set<Int> = [401]
  ) {
    state = Mutex(State(token: token, refreshDelay: refreshDelay))
    self.rejectionStatuses = rejectionStatuses
  }

  /// Makes the next refreshes take `delay`.
  func setRefreshDelay(_ delay: Duration) {
    state.withLock { $0.refreshDelay = delay }
  }

  func isAuthenticationFailure(_ response: HTTPResponse) -> Bool {
    rejectionStatuses.contains(response.status)
  }

  var currentAccessToken: AccessToken? { state.withLock { $0.token } }
  var refreshes: Int { state.withLock { $0.refreshes } }
  var invalidations: [AuthenticationFailure] { state.withLock { $0.invalidations } }

  /// Makes the next refreshes fail with `error` (or succeed again, with `nil`).
  func failRefreshes(with error: (any Error & Sendable)?) {
    state.withLock { $0.failure = error }
  }

  /// Replaces the token, as a sign-in elsewhere would.
  func setToken(_ token: AccessToken?) {
    state.withLock { $0.token = token }
  }

  func refreshAccessToken() async throws -> AccessToken {
    let (number, delay) = state.withLock { state in
      state.refreshes += 1
      return (state.refreshes, state.refreshDelay)
    }
    do {
      try await Task.sleep(for: delay)
    } catch {
      state.withLock { $0.cancelledRefreshes += 1 }
      throw error
    }
    return try state.withLock { state in
      if let failure = state.failure { throw failure }
      let token = AccessToken(
        value: "token-\(number + 1)", expiresAt: Date().addingTimeInterval(3600))
      state.token = token
      return token
    }
  }

  func invalidateSession(of token: AccessToken, because failure: AuthenticationFailure) async {
    state.withLock { state in
      state.invalidations.append(failure)
      if state.token == token { state.token = nil }
    }
  }
}

/// Counts calls and records the values of a closure-based test double.
final class Recorder<Value: Sendable>: Sendable {
  private let storage = Mutex<[Value]>([])
  func append(_ value: Value) { storage.withLock { $0.append(value) } }
  var values: [Value] { storage.withLock { $0 } }
}

/// A fresh token that expires in an hour.
func freshToken(_ value: String = "token-1") -> AccessToken {
  AccessToken(value: value, expiresAt: Date().addingTimeInterval(3600))
}

/// Starts a loopback server with `router` for the duration of `body`, with `TestAPI` pointed
/// at it.
func withServer<T>(
  _ router: Router, _ body: (LoopbackServer) async throws -> T
) async throws -> T {
  let server = try LoopbackServer(router: router, recordedRequests: 1000)
  defer { server.stop() }
  return try await TestAPI.$serverURL.withValue(server.baseURL) { try await body(server) }
}

/// A requester over real HTTP with the given plugins, recording retry delays instead of
/// sleeping when `delays` is given.
func makeRequester(
  transport: any HTTPTransport = URLSessionTransport(), plugins: [any HTTPPlugin] = [],
  delays: Recorder<Duration>? = nil
) -> HTTPRequester<TestAPI> {
  var configuration = HTTPRequester<TestAPI>.Configuration()
  // Generous: the tests run in parallel on shared, sometimes slow machines; the tests of
  // timeouts set their own.
  configuration.defaultTimeout = .seconds(30)
  if let delays {
    configuration.sleep = { delay in
      delays.append(delay)
      try Task.checkCancellation()
    }
  }
  // The base URL is the current test's server: the origin the auth plugin sends tokens to.
  return HTTPRequester(
    baseURL: TestAPI.serverURL, transport: transport, plugins: plugins,
    configuration: configuration)
}

/// Answers every request with the next of `statuses` (the last repeats), counting calls.
final class StatusSequence: Sendable {
  private let remaining: Mutex<[ServerResponse]>
  private let calls = Mutex(0)

  init(_ responses: [ServerResponse]) {
    remaining = Mutex(responses)
  }

  var callCount: Int { calls.withLock { $0 } }

  func next() -> ServerResponse {
    calls.withLock { $0 += 1 }
    return remaining.withLock { list in list.count > 1 ? list.removeFirst() : list[0] }
  }
}

/// A `URLProtocol` that answers from a handler instead of the network, for unit tests of
/// ``URLSessionTransport``. Registered through `URLSessionTransport(protocolClasses:)`.
final class StubURLProtocol: URLProtocol {
  /// Answers a request: status, headers, body. Keyed by host so parallel tests do not meet.
  static let handlers = Mutex<[String: @Sendable (URLRequest) -> (Int, [String: String], Data)]>([:]
  )

  override class func canInit(with request: URLRequest) -> Bool {
    guard let host = request.url?.host else { return false }
    return handlers.withLock { $0[host] != nil }
  }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

  override func startLoading() {
    guard let url = request.url, let host = url.host,
      let handler = Self.handlers.withLock({ $0[host] })
    else { return }
    let (status, headers, body) = handler(request)
    let response = HTTPURLResponse(
      url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
    if let response {
      client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
    }
    client?.urlProtocol(self, didLoad: body)
    client?.urlProtocolDidFinishLoading(self)
  }

  override func stopLoading() {}
}

extension APIErrorBody: Error {}
