import Foundation
import Synchronization
import TrellisNetwork

/// Routes requests to handlers by method and path pattern; the same router serves a
/// ``LoopbackServer`` over real sockets and, as an `HTTPResponder`, a `StubTransport` in
/// process.
///
/// ```swift
/// let router = Router()
/// router.get("/projects/:id/milestones") { request in
///   .json(milestones(of: request.pathParameters["id"]!))
/// }
/// ```
///
/// An unknown path answers `404`, a known path with another method `405`, and a handler that
/// throws `500`, each with a JSON body `{"error": ...}`.
public final class Router: Sendable {
  /// Answers one request.
  public typealias Handler = @Sendable (ServerRequest) async throws -> ServerResponse

  private struct Route: Sendable {
    var method: HTTPMethod
    var segments: [Substring]
    var handler: Handler
  }

  private let routes = Mutex<[Route]>([])

  /// Creates a router without routes.
  public init() {}

  /// Registers `handler` for `method` and `pattern`; `:name` segments match any one segment
  /// and appear in ``ServerRequest/pathParameters``. A later registration of the same method
  /// and pattern replaces the earlier one.
  public func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Handler) {
    let segments = Self.segments(of: pattern)
    routes.withLock { routes in
      routes.removeAll { $0.method == method && $0.segments == segments }
      routes.append(Route(method: method, segments: segments, handler: handler))
    }
  }

  /// Registers a `GET` route.
  public func get(_ pattern: String, _ handler: @escaping Handler) { add(.get, pattern, handler) }
  /// Registers a `POST` route.
  public func post(_ pattern: String, _ handler: @escaping Handler) { add(.post, pattern, handler) }
  /// Registers a `PUT` route.
  public func put(_ pattern: String, _ handler: @escaping Handler) { add(.put, pattern, handler) }
  /// Registers a `PATCH` route.
  public func patch(_ pattern: String, _ handler: @escaping Handler) {
    add(.patch, pattern, handler)
  }
  /// Registers a `DELETE` route.
  public func delete(_ pattern: String, _ handler: @escaping Handler) {
    add(.delete, pattern, handler)
  }

  /// Answers `request` with the matching route's handler. The path is split at its slashes
  /// first and each segment percent-decoded after, so `%2F` is part of a segment (a file named
  /// `a/b`), never a separator.
  public func handle(_ request: ServerRequest) async -> ServerResponse {
    let requestSegments = Self.segments(of: request.path).map { segment -> Substring in
      guard let decoded = segment.removingPercentEncoding else { return segment }
      return Substring(decoded)
    }
    let candidates = routes.withLock { $0 }
    var pathMatched = false
    for route in candidates {
      guard let parameters = Self.match(route.segments, requestSegments) else { continue }
      pathMatched = true
      guard route.method == request.method else { continue }
      var request = request
      request.pathParameters = parameters
      do {
        return try await route.handler(request)
      } catch is CancellationError {
        return .json(["error": "cancelled"], status: 499)
      } catch {
        return .json(["error": "\(error)"], status: 500)
      }
    }
    return pathMatched
      ? .json(["error": "\(request.method) is not allowed on \(request.path)"], status: 405)
      : .json(["error": "no route for \(request.method) \(request.path)"], status: 404)
  }

  private static func segments(of path: String) -> [Substring] {
    path.split(separator: "/", omittingEmptySubsequences: true)
  }

  private static func match(_ pattern: [Substring], _ path: [Substring]) -> [String: String]? {
    guard pattern.count == path.count else { return nil }
    var parameters: [String: String] = [:]
    for (expected, actual) in zip(pattern, path) {
      if expected.hasPrefix(":") {
        parameters[String(expected.dropFirst())] = String(actual)
      } else if expected != actual {
        return nil
      }
    }
    return parameters
  }
}

/// Serving a router in process, for `StubTransport(responder:)`: the same routes as over HTTP,
/// without sockets. Faults become the transport errors a client would see.
extension Router: HTTPResponder {
  /// Routes `request` and returns the whole response.
  public func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
    let response = try await answer(request)
    switch response.body {
    case .data(let data):
      return HTTPResponse(
        status: response.status, headers: response.headers, body: data, request: request)
    case .stream(let write):
      let collector = CollectingWriter()
      do {
        try await write(collector)
      } catch {
        throw .transport(TransportFailure(.connectionLost, detail: "\(error)"))
      }
      return HTTPResponse(
        status: response.status, headers: response.headers, body: collector.data, request: request)
    }
  }

  /// Routes `request` and returns the response with its body as it is produced.
  public func respondStreaming(to request: HTTPRequest) async throws(HTTPError)
    -> HTTPStreamingResponse
  {
    let response = try await answer(request)
    let (body, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    switch response.body {
    case .data(let data):
      if !data.isEmpty { continuation.yield(data) }
      continuation.finish()
    case .stream(let write):
      let producer = Task {
        do {
          try await write(StreamWriter(continuation: continuation))
          continuation.finish()
        } catch {
          continuation.finish(throwing: HTTPError.transport(TransportFailure(.connectionLost)))
        }
      }
      continuation.onTermination = { _ in producer.cancel() }
    }
    return HTTPStreamingResponse(status: response.status, headers: response.headers, body: body)
  }

  private func answer(_ request: HTTPRequest) async throws(HTTPError) -> ServerResponse {
    let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
    let serverRequest = ServerRequest(
      method: request.method, path: components?.percentEncodedPath ?? request.url.path,
      query: components?.queryItems ?? [], headers: request.headers, body: request.body ?? Data())
    let response = await handle(serverRequest)
    if response.delay > .zero {
      do {
        try await Task.sleep(for: response.delay)
      } catch {
        throw .transport(TransportFailure(.cancelled))
      }
    }
    switch response.fault {
    case .none: return response
    case .closeMidResponse:
      throw .transport(TransportFailure(.connectionLost, detail: "the server closed mid-response"))
    case .reset:
      throw .transport(TransportFailure(.connectionLost, detail: "connection reset by peer"))
    case .closeWithoutResponse:
      throw .transport(TransportFailure(.connectionLost, detail: "empty reply from server"))
    }
  }
}

private final class CollectingWriter: ChunkWriter {
  private let buffer = Mutex(Data())
  var data: Data { buffer.withLock { $0 } }
  func write(_ data: Data) async throws { buffer.withLock { $0.append(data) } }
}

private struct StreamWriter: ChunkWriter {
  let continuation: AsyncThrowingStream<Data, any Error>.Continuation
  func write(_ data: Data) async throws {
    try Task.checkCancellation()
    if case .terminated = continuation.yield(data) { throw CancellationError() }
  }
}
