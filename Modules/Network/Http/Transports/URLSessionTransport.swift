import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends requests with `URLSession`, on Linux (swift-corelibs-foundation) and Apple platforms.
///
/// It uses one session with one session-level delegate (corelibs-foundation supports no
/// per-task delegates, task metrics or `waitsForConnectivity`): plain requests use completion
/// handlers; upload progress and streamed bodies are routed from the session delegate to the
/// task that asked for them.
///
/// It does not use `URLSession.data(for:)`: on Linux that method can hang for good when the
/// calling task is cancelled just as the response arrives (reproduced here: 16 concurrent
/// requests cancelled around their response time hung within 150 requests, while the
/// completion-handler form below ran 2,400 such requests). The price is one hop through the
/// session's delegate queue per request; `NetworkBenchmark` measures it.
public final class URLSessionTransport: HTTPTransport, StreamingHTTPTransport {
  private let session: URLSession
  private let router: SessionEventRouter

  /// Creates a transport.
  ///
  /// - Parameters:
  ///   - configuration: The session configuration; ephemeral (no disk cache, no cookies
  ///     persisted) by default.
  ///   - protocolClasses: `URLProtocol` subclasses tried before the system's, for tests that
  ///     stub responses at the URL-loading level.
  public init(
    configuration: URLSessionConfiguration = .ephemeral, protocolClasses: [AnyClass] = []
  ) {
    configuration.protocolClasses = protocolClasses + (configuration.protocolClasses ?? [])
    configuration.urlCache = nil
    configuration.httpShouldSetCookies = false
    router = SessionEventRouter()
    session = URLSession(configuration: configuration, delegate: router, delegateQueue: nil)
  }

  deinit {
    session.invalidateAndCancel()
  }

  /// Sends `request`; cancelling the calling task cancels the `URLSessionTask`.
  public func send(
    _ request: HTTPRequest, for endpoint: any HTTPEndpoint, progress: HTTPProgressHandler?
  ) async throws(HTTPError) -> HTTPResponse {
    let urlRequest = Self.urlRequest(for: request)
    let handle = TaskHandle()
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation {
          (continuation: CheckedContinuation<HTTPResponse, any Error>) in
          guard let progress else {
            // The fast path: a completion handler, no delegate traffic.
            let task = session.dataTask(with: urlRequest) { data, response, error in
              continuation.resume(
                with: Self.result(data: data, response: response, error: error, request: request))
            }
            handle.start(task)
            return
          }
          // Upload progress comes only through the session delegate, for tasks without a
          // completion handler: the delegate collects the body and completes the call.
          let task = session.dataTask(with: urlRequest)
          router.track(
            collection: CollectRoute(
              request: request, continuation: continuation, progress: progress),
            for: task.taskIdentifier)
          handle.start(task)
        }
      } onCancel: {
        handle.cancel()
      }
    } catch let error as HTTPError {
      throw error
    } catch {
      throw .transport(TransportFailure(.other, detail: "\(error)"))
    }
  }

  /// Opens `request` as a stream: returns when the headers arrive, then delivers the body as
  /// it comes. Ending the body's iteration cancels the `URLSessionTask`.
  public func openStream(_ request: HTTPRequest) async throws(HTTPError) -> HTTPStreamingResponse {
    let urlRequest = Self.urlRequest(for: request)
    let handle = TaskHandle()
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation {
          (continuation: CheckedContinuation<HTTPStreamingResponse, any Error>) in
          let (body, bodyContinuation) = AsyncThrowingStream<Data, any Error>.makeStream()
          bodyContinuation.onTermination = { _ in handle.cancel() }
          let task = session.dataTask(with: urlRequest)
          router.track(
            stream: StreamRoute(
              request: request, response: continuation, body: body,
              bodyContinuation: bodyContinuation),
            for: task.taskIdentifier)
          handle.start(task)
        }
      } onCancel: {
        handle.cancel()
      }
    } catch let error as HTTPError {
      throw error
    } catch {
      throw .transport(TransportFailure(.other, detail: "\(error)"))
    }
  }

  static func urlRequest(for request: HTTPRequest) -> URLRequest {
    var urlRequest = URLRequest(url: request.url)
    urlRequest.httpMethod = request.method.rawValue
    for field in request.headers {
      urlRequest.setValue(field.value, forHTTPHeaderField: field.name)
    }
    urlRequest.httpBody = request.body
    let seconds = request.timeout.components
    urlRequest.timeoutInterval =
      Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18
    return urlRequest
  }

  static func result(data: Data?, response: URLResponse?, error: (any Error)?, request: HTTPRequest)
    -> Result<HTTPResponse, any Error>
  {
    if let error { return .failure(HTTPError.transport(failure(from: error))) }
    guard let http = response as? HTTPURLResponse else {
      return .failure(
        HTTPError.transport(TransportFailure(.other, detail: "the response is not HTTP")))
    }
    return .success(
      HTTPResponse(
        status: http.statusCode, headers: headers(of: http), body: data ?? Data(),
        request: request))
  }

  static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
    var headers = HTTPHeaders()
    for (name, value) in response.allHeaderFields {
      headers[String(describing: name)] = String(describing: value)
    }
    return headers
  }

  /// Classifies a `URLSession` error (an `NSURLErrorDomain` code).
  static func failure(from error: any Error) -> TransportFailure {
    let nsError = error as NSError
    let detail = nsError.localizedDescription
    guard nsError.domain == NSURLErrorDomain else {
      return TransportFailure(.other, detail: detail)
    }
    switch nsError.code {
    case NSURLErrorCancelled:
      return TransportFailure(.cancelled, detail: detail)
    case NSURLErrorTimedOut:
      return TransportFailure(.timedOut, detail: detail)
    case NSURLErrorNetworkConnectionLost, NSURLErrorBadServerResponse:
      return TransportFailure(.connectionLost, detail: detail)
    case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost, NSURLErrorNotConnectedToInternet,
      NSURLErrorDNSLookupFailed, NSURLErrorSecureConnectionFailed:
      return TransportFailure(.cannotConnect, detail: detail)
    default:
      return TransportFailure(.other, detail: "\(detail) (code \(nsError.code))")
    }
  }
}

/// The `URLSessionTask` of one call, so cancellation can reach it whether it comes before or
/// after the task exists.
private final class TaskHandle: Sendable {
  private struct State {
    var task: URLSessionTask?
    var isCancelled = false
  }

  private let state = Mutex(State())

  var identifier: Int {
    state.withLock { $0.task?.taskIdentifier ?? -1 }
  }

  func start(_ task: URLSessionTask) {
    let cancelled = state.withLock { state in
      state.task = task
      return state.isCancelled
    }
    task.resume()
    if cancelled { DispatchQueue.global().async { task.cancel() } }
  }

  /// Cancels the `URLSessionTask`, from another thread.
  ///
  /// Swift calls a cancellation handler while holding the cancelled task's status lock, and
  /// corelibs-foundation's `URLSessionTask.cancel()` waits synchronously for the session's
  /// work queue, which may itself be waiting to resume that same task: calling `cancel()`
  /// inline can deadlock. Hopping to a global queue breaks the cycle; the request still ends
  /// (with `NSURLErrorCancelled`) and the connection still closes.
  func cancel() {
    let task = state.withLock { state in
      state.isCancelled = true
      return state.task
    }
    guard let task else { return }
    DispatchQueue.global().async { task.cancel() }
  }
}

/// One collected task (a request with upload progress): its continuation, the response so
/// far, and the progress handler.
private struct CollectRoute: Sendable {
  var request: HTTPRequest
  var continuation: CheckedContinuation<HTTPResponse, any Error>
  var progress: HTTPProgressHandler
  var response: HTTPURLResponse?
  var body = Data()
  var reportedCompletion = false

  init(
    request: HTTPRequest, continuation: CheckedContinuation<HTTPResponse, any Error>,
    progress: @escaping HTTPProgressHandler
  ) {
    self.request = request
    self.continuation = continuation
    self.progress = progress
  }
}

/// One streamed task's continuations.
private struct StreamRoute: Sendable {
  var request: HTTPRequest
  var response: CheckedContinuation<HTTPStreamingResponse, any Error>?
  var body: AsyncThrowingStream<Data, any Error>
  var bodyContinuation: AsyncThrowingStream<Data, any Error>.Continuation
}

/// The session delegate: routes upload progress and streamed bodies to the task they belong to.
private final class SessionEventRouter: NSObject, URLSessionDataDelegate, Sendable {
  private struct Routes {
    var collections: [Int: CollectRoute] = [:]
    var streams: [Int: StreamRoute] = [:]
  }

  private let routes = Mutex(Routes())

  func track(collection: CollectRoute, for identifier: Int) {
    routes.withLock { $0.collections[identifier] = collection }
  }

  func track(stream: StreamRoute, for identifier: Int) {
    routes.withLock { $0.streams[identifier] = stream }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
    totalBytesSent: Int64, totalBytesExpectedToSend: Int64
  ) {
    guard totalBytesExpectedToSend > 0 else { return }
    let fraction = min(1, Double(totalBytesSent) / Double(totalBytesExpectedToSend))
    let handler = routes.withLock { routes -> HTTPProgressHandler? in
      guard let route = routes.collections[task.taskIdentifier], !route.reportedCompletion else {
        return nil
      }
      routes.collections[task.taskIdentifier]?.reportedCompletion = fraction >= 1
      return route.progress
    }
    handler?(fraction)
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    let collected = routes.withLock { routes -> Bool in
      guard routes.collections[dataTask.taskIdentifier] != nil else { return false }
      routes.collections[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse
      return true
    }
    if collected {
      completionHandler(.allow)
      return
    }
    let route = routes.withLock { routes -> StreamRoute? in
      let route = routes.streams[dataTask.taskIdentifier]
      routes.streams[dataTask.taskIdentifier]?.response = nil
      return route
    }
    guard let route, let continuation = route.response else {
      completionHandler(.allow)
      return
    }
    guard let http = response as? HTTPURLResponse else {
      continuation.resume(
        throwing: HTTPError.transport(TransportFailure(.other, detail: "the response is not HTTP")))
      completionHandler(.cancel)
      return
    }
    continuation.resume(
      returning: HTTPStreamingResponse(
        status: http.statusCode, headers: URLSessionTransport.headers(of: http), body: route.body))
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let stream = routes.withLock { routes -> StreamRoute? in
      if routes.collections[dataTask.taskIdentifier] != nil {
        routes.collections[dataTask.taskIdentifier]?.body.append(data)
        return nil
      }
      return routes.streams[dataTask.taskIdentifier]
    }
    stream?.bodyContinuation.yield(data)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    let (collection, route) = routes.withLock { routes in
      (
        routes.collections.removeValue(forKey: task.taskIdentifier),
        routes.streams.removeValue(forKey: task.taskIdentifier)
      )
    }
    if let collection {
      if error == nil, !collection.reportedCompletion { collection.progress(1) }
      collection.continuation.resume(
        with: URLSessionTransport.result(
          data: collection.body, response: collection.response, error: error,
          request: collection.request))
      return
    }
    guard let route else { return }
    let failure = error.map { HTTPError.transport(URLSessionTransport.failure(from: $0)) }
    if let pending = route.response {
      pending.resume(
        throwing: failure ?? HTTPError.transport(TransportFailure(.connectionLost)))
    }
    route.bodyContinuation.finish(throwing: failure)
  }
}
