import Foundation
import TrellisCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends requests with `URLSession`, on Linux (swift-corelibs-foundation) and Apple platforms.
///
/// Every task runs through one session-level delegate (corelibs-foundation supports no
/// per-task delegates), which is where the transport keeps its guarantees:
///
/// - **Deadline.** A request's ``HTTPRequest/timeout`` bounds the whole exchange: a timer
///   cancels the task when it passes and the call fails with `.timedOut`, however slowly the
///   server trickles bytes. ``HTTPRequest/idleTimeout`` (URLSession's own timeout) bounds
///   silence. A stream's deadline ends when its head arrives; then only silence ends it.
/// - **Redirects.** Followed only as the ``RedirectPolicy`` allows: by default within the
///   request's origin, so a token never reaches another host.
/// - **Size.** A response body larger than `maximumResponseSize` (50 MiB by default) stops the
///   transfer and fails with `.responseTooLarge`, instead of growing memory without bound.
///   Enforcing it means taking the body from the delegate chunk by chunk, which costs two
///   more delegate-queue hops per request than a completion handler (`NetworkBenchmark`
///   measures both); `maximumResponseSize: nil` trades the bound for that speed.
///
/// It does not use `URLSession.data(for:)`: on Linux that method can hang for good when the
/// calling task is cancelled just as the response arrives (reproduced here: 16 concurrent
/// requests cancelled around their response time hung within 150 requests, while the
/// delegate form below ran 2,400 such requests). `NetworkBenchmark` measures what the
/// delegate costs against raw URLSession.
public final class URLSessionTransport: HTTPTransport, StreamingHTTPTransport {
  private let channels: ChannelSwitch

  /// The largest response body accepted by default: 50 MiB.
  public static let defaultMaximumResponseSize = 50 * 1024 * 1024

  /// Creates a transport.
  ///
  /// - Parameters:
  ///   - configuration: The session configuration; ephemeral (no disk cache, no cookies
  ///     persisted) by default.
  ///   - protocolClasses: `URLProtocol` subclasses tried before the system's, for tests that
  ///     stub responses at the URL-loading level.
  ///   - redirectPolicy: Which redirects to follow; by default, same-origin ones only.
  ///   - maximumResponseSize: The largest response body accepted, in bytes; `nil` accepts any
  ///     size (for a trusted server, a little faster).
  public init(
    configuration: URLSessionConfiguration = .ephemeral, protocolClasses: [AnyClass] = [],
    redirectPolicy: RedirectPolicy = RedirectPolicy(),
    maximumResponseSize: Int? = URLSessionTransport.defaultMaximumResponseSize
  ) {
    configuration.protocolClasses = protocolClasses + (configuration.protocolClasses ?? [])
    configuration.urlCache = nil
    configuration.httpShouldSetCookies = false
    channels = ChannelSwitch(
      configuration: configuration, redirectPolicy: redirectPolicy,
      maximumResponseSize: maximumResponseSize.map { max(0, $0) })
  }

  deinit {
    channels.close()
  }

  /// The largest body collected; `nil` for no limit.
  private var maximumResponseSize: Int? { channels.maximumResponseSize }

  /// Opens new connections for the requests from now on: the network may have changed (a path
  /// change, the app back in the foreground), and a connection kept open from before may be
  /// dead without knowing it (after a tunnel or a handover, a kept-alive connection is silent,
  /// not closed). The idempotent calls in flight fail as
  /// ``TransportFailure/Kind/connectionReplaced``, which the retry plugin sends again at once
  /// over new connections; the others (a `POST`) go on over theirs until they end or reach
  /// their deadline. The transport also opens new connections by itself when a call times out
  /// or loses its connection (then the calls in flight go on).
  public func resetConnections() {
    channels.reset(ifCurrent: nil, replacingCalls: true)
  }

  /// How many times the connections were reset (for tests).
  var resetCount: Int { channels.resetCount }

  /// Sends `request`; cancelling the calling task cancels the `URLSessionTask` (a task cancelled
  /// before its `URLSessionTask` starts sends nothing and throws `.cancelled`).
  public func send(
    _ request: HTTPRequest, for endpoint: any HTTPEndpoint, progress: HTTPProgressHandler?
  ) async throws(HTTPError) -> HTTPResponse {
    let urlRequest = Self.urlRequest(for: request)
    let channel = channels.lease()
    let (session, router) = (channel.session, channel.router)
    let handle = TaskHandle(router: router)
    let collects = progress != nil || maximumResponseSize != nil
    do {
      let (response, body) = try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation {
          (continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>) in
          defer { channel.release() }  // the task is made
          guard collects else {
            // Unbounded and without progress: URLSession collects the body itself, with one
            // delegate-queue hop per request instead of one per event.
            let task = session.dataTask(with: urlRequest) { [router] data, response, error in
              let decided = router.finish(handle.identifier)
              continuation.resume(
                with: Self.outcome(response: response, body: data, error: error, decided: decided))
            }
            router.track(TaskRoute(task: task, request: request, sink: .completionHandler))
            handle.start(task)
            return
          }
          let task = session.dataTask(with: urlRequest)
          router.track(
            TaskRoute(
              task: task, request: request,
              sink: .collect(continuation: continuation, progress: progress)))
          handle.start(task)
        }
      } onCancel: {
        handle.cancel()
      }
      // The delegate queue is serial and shared by every request: it hands over the raw
      // response, and the caller's task builds the `HTTPResponse`.
      return HTTPResponse(
        status: response.statusCode, headers: Self.headers(of: response), body: body,
        request: request)
    } catch let error as HTTPError {
      channels.failed(channel, with: error)
      throw error
    } catch {
      throw .transport(TransportFailure(.other, detail: "\(error)"))
    }
  }

  /// The outcome of a finished task: the transport's own decision (deadline, size, refused
  /// redirect) first, then URLSession's error, then the response.
  fileprivate static func outcome(
    response: URLResponse?, body: Data?, error: (any Error)?, decided: HTTPError?
  ) -> Result<(HTTPURLResponse, Data), any Error> {
    if let failure = decided ?? error.map({ HTTPError.transport(Self.failure(from: $0)) }) {
      return .failure(failure)
    }
    guard let http = response as? HTTPURLResponse else {
      return .failure(
        HTTPError.transport(TransportFailure(.other, detail: "the response is not HTTP")))
    }
    return .success((http, body ?? Data()))
  }

  /// Opens `request` as a stream: returns when the headers arrive, then delivers the body as
  /// it comes. Ending the body's iteration cancels the `URLSessionTask`, as cancelling the
  /// calling task does (a task cancelled before its `URLSessionTask` starts opens nothing and
  /// throws `.cancelled`).
  public func openStream(_ request: HTTPRequest) async throws(HTTPError) -> HTTPStreamingResponse {
    let urlRequest = Self.urlRequest(for: request)
    let channel = channels.lease()
    let (session, router) = (channel.session, channel.router)
    let handle = TaskHandle(router: router)
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation {
          (continuation: CheckedContinuation<HTTPStreamingResponse, any Error>) in
          defer { channel.release() }  // the task is made
          let (body, bodyContinuation) = AsyncThrowingStream<Data, any Error>.makeStream()
          bodyContinuation.onTermination = { _ in handle.cancel() }
          let task = session.dataTask(with: urlRequest)
          router.track(
            TaskRoute(
              task: task, request: request,
              sink: .stream(
                head: continuation, body: body, bodyContinuation: bodyContinuation)))
          handle.start(task)
        }
      } onCancel: {
        handle.cancel()
      }
    } catch let error as HTTPError {
      channels.failed(channel, with: error)
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
    // corelibs-foundation truncates the interval to whole seconds (0.5 s would time out at
    // once), so it is rounded up; the deadline timer keeps a shorter total timeout exact.
    urlRequest.timeoutInterval = max(
      1, (request.idleTimeout ?? request.timeout).inSeconds.rounded(.up))
    return urlRequest
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
    case NSURLErrorNetworkConnectionLost, NSURLErrorBadServerResponse,
      NSURLErrorCannotParseResponse, NSURLErrorZeroByteResource,
      NSURLErrorCannotDecodeRawData, NSURLErrorCannotDecodeContentData:
      return TransportFailure(.connectionLost, detail: detail)
    // Offline, as far as the app can tell: no route, no name, no connection, and on Apple
    // platforms the radio's own refusals (cellular data off for the app, roaming off, a call
    // that holds the only radio): each ends when the network comes back.
    case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost, NSURLErrorNotConnectedToInternet,
      NSURLErrorDNSLookupFailed, NSURLErrorSecureConnectionFailed, NSURLErrorDataNotAllowed,
      NSURLErrorInternationalRoamingOff, NSURLErrorCallIsActive:
      return TransportFailure(.cannotConnect, detail: detail)
    default:
      // corelibs reports a body cut short ("transfer closed with N bytes remaining to
      // read", curl's CURLE_PARTIAL_FILE) and a connection that broke while sending or
      // receiving (CURLE_SEND_ERROR, CURLE_RECV_ERROR: "Send failure: Broken pipe",
      // "Recv failure: Connection reset by peer") with a generic code: a lost connection.
      let lostConnection = [
        "bytes remaining", "transfer closed", "Send failure", "Recv failure", "Connection reset",
      ]
      if lostConnection.contains(where: detail.contains) {
        return TransportFailure(.connectionLost, detail: detail)
      }
      return TransportFailure(.other, detail: "\(detail) (code \(nsError.code))")
    }
  }
}

/// A `URLSession` and its delegate: the connections the transport uses until they are reset.
///
/// A call leases it while it makes its task (``ChannelSwitch/lease()``): a channel replaced
/// meanwhile is invalidated only once no call is still making a task on it (a task made on an
/// invalidated session stops the process).
private final class Channel: Sendable {
  let session: URLSession
  let router: SessionEventRouter
  /// Calls making a task on it now, and whether it was replaced (then invalidated when none).
  let leases = Lock((count: 0, isRetired: false))

  init(session: URLSession, router: SessionEventRouter) {
    self.session = session
    self.router = router
  }

  /// Marks it replaced: invalidated now if no call is making a task on it, else by the last.
  func retire() {
    let idle = leases.withLock { leases -> Bool in
      leases.isRetired = true
      return leases.count == 0
    }
    // Its calls finish over the old connections; then the session lets go of its delegate.
    if idle { session.finishTasksAndInvalidate() }
  }

  /// A call made its task (or gave up): the channel is invalidated if it was the last one on
  /// a replaced channel.
  func release() {
    let invalidate = leases.withLock { leases -> Bool in
      leases.count -= 1
      return leases.count == 0 && leases.isRetired
    }
    if invalidate { session.finishTasksAndInvalidate() }
  }
}

/// The transport's current ``Channel``, replaced by a new one (new connections) when the
/// network may have changed: asked (``URLSessionTransport/resetConnections()``: the idempotent
/// calls in flight are then sent again over the new connections), or after a call timed out or
/// lost its connection, a sign that the connections kept open may be dead (the calls in flight
/// go on: a slow server's call is not cut short by another's timeout). A replaced channel's
/// calls go on until they end; its session is then released.
private final class ChannelSwitch: Sendable {
  let maximumResponseSize: Int?
  private let redirectPolicy: RedirectPolicy
  private let state: Lock<(current: Channel?, resets: Int, isClosed: Bool)>
  /// The first session: the ones after it copy its configuration (a session hands out a copy of
  /// its own, invalidated or not).
  private let template: URLSession

  init(
    configuration: URLSessionConfiguration, redirectPolicy: RedirectPolicy,
    maximumResponseSize: Int?
  ) {
    let first = Self.makeChannel(
      configuration: configuration, redirectPolicy: redirectPolicy,
      maximumResponseSize: maximumResponseSize)
    template = first.session
    self.redirectPolicy = redirectPolicy
    self.maximumResponseSize = maximumResponseSize
    state = Lock((first, 0, false))
  }

  /// The channel for a new call, leased: call ``Channel/release()`` once its task is made.
  func lease() -> Channel {
    state.withLock { state in
      let channel =
        state.current
        ?? Self.makeChannel(
          configuration: template.configuration, redirectPolicy: redirectPolicy,
          maximumResponseSize: maximumResponseSize)
      state.current = channel
      // Under the switch's lock: a reset cannot retire it between this and the lease.
      channel.leases.withLock { $0.count += 1 }
      return channel
    }
  }

  var resetCount: Int { state.withLock { $0.resets } }

  /// Replaces `channel` (any current one when `nil`) with a fresh one for the calls to come;
  /// with `replacingCalls`, its idempotent calls in flight fail as
  /// ``TransportFailure/Kind/connectionReplaced`` (the retry plugin sends them again, over the
  /// new connections).
  func reset(ifCurrent channel: Channel?, replacingCalls: Bool) {
    let retired = state.withLock { state -> Channel? in
      guard !state.isClosed, let current = state.current,
        channel == nil || current === channel
      else { return nil }
      state.current = nil
      state.resets += 1
      return current
    }
    guard let retired else { return }
    if replacingCalls { retired.router.replaceIdempotentCalls() }
    retired.retire()
  }

  /// A call over `channel` failed with `error`: a timeout or a lost connection says its kept
  /// connections may be dead, and the next calls open new ones.
  func failed(_ channel: Channel, with error: HTTPError) {
    guard case .transport(let failure) = error,
      failure.kind == .timedOut || failure.kind == .connectionLost
    else { return }
    reset(ifCurrent: channel, replacingCalls: false)
  }

  /// The transport is going away: the calls still running are cancelled (the safe way, see
  /// ``SessionEventRouter/cancel(_:because:)``) and the session released once they end.
  func close() {
    let current = state.withLock { state -> Channel? in
      state.isClosed = true
      defer { state.current = nil }
      return state.current
    }
    current?.router.cancelAll()
    current?.retire()
  }

  private static func makeChannel(
    configuration: URLSessionConfiguration, redirectPolicy: RedirectPolicy,
    maximumResponseSize: Int?
  ) -> Channel {
    // One serial queue for every delegate call and every cancellation: a task is cancelled
    // only from there, after checking that its completion has not been delivered.
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    queue.name = "Trellis.URLSessionTransport.delegate"
    let router = SessionEventRouter(
      redirectPolicy: redirectPolicy, maximumResponseSize: maximumResponseSize, queue: queue)
    let session = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
    return Channel(session: session, router: router)
  }
}

/// The `URLSessionTask` of one call, so cancellation can reach it whether it comes before or
/// after the task exists. Cancelling goes through the router, which never cancels a task whose
/// completion has been delivered.
private final class TaskHandle: Sendable {
  private struct State {
    var identifier: Int?
    var isCancelled = false
  }

  private let router: SessionEventRouter
  private let state = Lock(State())

  init(router: SessionEventRouter) {
    self.router = router
  }

  /// The task's identifier, once it exists.
  var identifier: Int { state.withLock { $0.identifier ?? -1 } }

  /// Starts `task`, which the router tracks already; if the call was cancelled before it
  /// existed (the caller's task cancelled before or during the call), cancels it without
  /// starting it: nothing is sent, and the task completes as cancelled. (Resumed and then
  /// cancelled, it could complete first: over loopback it often did.)
  func start(_ task: URLSessionTask) {
    let identifier = task.taskIdentifier
    let cancelled = state.withLock { state in
      state.identifier = identifier
      return state.isCancelled
    }
    if cancelled { router.cancel(identifier) } else { task.resume() }
  }

  /// Cancels the task, if it exists and has not completed.
  func cancel() {
    let identifier = state.withLock { state in
      state.isCancelled = true
      return state.identifier
    }
    if let identifier { router.cancel(identifier) }
  }
}

/// One task in flight: where its outcome goes, what has arrived, and what the transport
/// decided about it.
private struct TaskRoute: Sendable {
  enum Sink: Sendable {
    /// A task with a completion handler, which finishes it (see ``SessionEventRouter/finish(_:)``).
    case completionHandler
    /// A whole response, collected, for ``URLSessionTransport/send(_:for:progress:)``.
    case collect(
      continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>,
      progress: HTTPProgressHandler?)
    /// A stream: the head's continuation until the head arrives, then the body's chunks.
    case stream(
      head: CheckedContinuation<HTTPStreamingResponse, any Error>?,
      body: AsyncThrowingStream<Data, any Error>,
      bodyContinuation: AsyncThrowingStream<Data, any Error>.Continuation)
  }

  let task: URLSessionTask
  let request: HTTPRequest
  var sink: Sink
  var response: HTTPURLResponse?
  var body = Data()
  var reportedCompletion = false
  var redirects = 0
  /// Why the transport stopped the task (deadline, size, refused redirect); it wins over the
  /// cancellation error URLSession reports for it.
  var failure: HTTPError?
  var deadline: Deadline?
  /// Whether a cancellation is on its way: a task is cancelled once.
  var isCancelling = false
}

/// A one-shot timer for a task's deadline, cancellable from any thread.
///
/// `@unchecked Sendable` because it wraps a dispatch source, which the compiler cannot prove
/// thread-safe; libdispatch documents its object API (`dispatch_resume`,
/// `dispatch_source_cancel`) as safe to call from any thread. The source is configured in
/// `init`, before the object is shared, and afterwards only ``start()`` (once) and
/// ``cancel()`` are called; the handler runs on a global queue and captures only `Sendable`
/// values.
private final class Deadline: @unchecked Sendable {
  private let timer: any DispatchSourceTimer

  init(after duration: Duration, handler: @escaping @Sendable () -> Void) {
    timer = DispatchSource.makeTimerSource(queue: .global())
    timer.schedule(deadline: .now() + duration.inSeconds)
    timer.setEventHandler(handler: handler)
  }

  func start() { timer.resume() }

  func cancel() { timer.cancel() }
}

/// The session delegate: routes every task's events to the call that started it, and applies
/// the deadline, redirect and size rules.
private final class SessionEventRouter: NSObject, URLSessionDataDelegate, Sendable {
  private let routes = Lock([Int: TaskRoute]())
  private let redirectPolicy: RedirectPolicy
  /// The largest body collected; `nil` for no limit.
  let maximumResponseSize: Int?
  /// The session's delegate queue (serial): every delegate call, and every cancellation.
  private let queue: OperationQueue

  init(redirectPolicy: RedirectPolicy, maximumResponseSize: Int?, queue: OperationQueue) {
    self.redirectPolicy = redirectPolicy
    self.maximumResponseSize = maximumResponseSize
    self.queue = queue
  }

  /// Cancels the task `identifier` unless its completion has been delivered, recording
  /// `failure` as why (a deadline, a size limit) if given.
  ///
  /// corelibs-foundation (Linux) stops the process ("Trying to access a behaviour for a task
  /// that in not in the registry", swift-corelibs-foundation#3296) when `cancel()` meets a task
  /// that is completing: its cancellation reports a failure after the completion removed the
  /// task. So a task is cancelled once, never after its completion reached this delegate, and
  /// only from the delegate queue, where the completions arrive one at a time: the check and the
  /// cancel cannot straddle a delivered completion. (Also not from inside a Swift cancellation
  /// handler: `cancel()` waits for the session's work queue, which may be waiting to resume
  /// the task whose status lock the handler holds.) `TransportRaceTests` plays the moments.
  func cancel(_ identifier: Int, because failure: HTTPError? = nil) {
    let task = routes.withLock { routes -> URLSessionTask? in
      guard var route = routes[identifier] else { return nil }
      if route.failure == nil { route.failure = failure }
      defer { routes[identifier] = route }
      guard !route.isCancelling else { return nil }
      route.isCancelling = true
      return route.task
    }
    guard let task else { return }
    queue.addOperation { [weak self] in
      guard let self, self.routes.withLock({ $0[identifier] != nil }) else { return }
      task.cancel()
    }
  }

  /// Cancels every task still running (the transport is going away).
  func cancelAll() {
    for identifier in routes.withLock({ Array($0.keys) }) { cancel(identifier) }
  }

  /// Ends the idempotent calls in flight (not the streams) as lost connections: their
  /// connections were replaced because they may be dead, and a retry over new ones is safe.
  func replaceIdempotentCalls() {
    let replaced = routes.withLock { routes in
      routes.filter { _, route in
        guard route.request.method.isIdempotent else { return false }
        if case .stream = route.sink { return false }
        return true
      }.map(\.key)
    }
    for identifier in replaced {
      cancel(
        identifier,
        because: .transport(
          TransportFailure(
            .connectionReplaced,
            detail: "its connection was replaced: the network may have changed")))
    }
  }

  /// Forgets a task that a completion handler finished; returns what the transport decided
  /// about it, if anything.
  func finish(_ identifier: Int) -> HTTPError? {
    let route = routes.withLock { $0.removeValue(forKey: identifier) }
    route?.deadline?.cancel()
    return route?.failure
  }

  /// Registers a task before it starts, with a timer for its deadline.
  func track(_ route: TaskRoute) {
    var route = route
    let identifier = route.task.taskIdentifier
    let timeout = route.request.timeout
    let deadline = Deadline(after: timeout) { [weak self] in
      self?.stop(
        identifier,
        because: .transport(
          TransportFailure(.timedOut, detail: "no complete response within \(timeout.readable)")))
    }
    route.deadline = deadline
    routes.withLock { $0[identifier] = route }
    deadline.start()
  }

  /// Records why the transport stops a task and cancels it (its completion then reports
  /// `failure`).
  private func stop(_ identifier: Int, because failure: HTTPError) {
    cancel(identifier, because: failure)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
    completionHandler: @escaping (URLRequest?) -> Void
  ) {
    let next = routes.withLock { routes -> URLRequest? in
      guard let route = routes[task.taskIdentifier] else { return nil }
      let decision = redirectPolicy.decide(
        original: route.request.url, from: response.url ?? route.request.url,
        status: response.statusCode, followed: route.redirects, next: request,
        secretHeaders: route.request.secretFields)
      switch decision {
      case .success(let next):
        routes[task.taskIdentifier]?.redirects += 1
        return next
      case .failure(let refusal):
        routes[task.taskIdentifier]?.failure = .redirectRefused(refusal)
        return nil
      }
    }
    completionHandler(next)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
    totalBytesSent: Int64, totalBytesExpectedToSend: Int64
  ) {
    guard totalBytesExpectedToSend > 0 else { return }
    let fraction = min(1, Double(totalBytesSent) / Double(totalBytesExpectedToSend))
    let handler = routes.withLock { routes -> HTTPProgressHandler? in
      guard let route = routes[task.taskIdentifier], !route.reportedCompletion,
        case .collect(_, let progress?) = route.sink
      else { return nil }
      routes[task.taskIdentifier]?.reportedCompletion = fraction >= 1
      return progress
    }
    handler?(fraction)
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    let identifier = dataTask.taskIdentifier
    let http = response as? HTTPURLResponse
    enum Next {
      case allow
      case cancel
      case openStream(CheckedContinuation<HTTPStreamingResponse, any Error>, HTTPStreamingResponse)
    }
    let next = routes.withLock { routes -> Next in
      guard var route = routes[identifier] else { return .allow }
      defer { routes[identifier] = route }
      route.response = http
      switch route.sink {
      case .completionHandler:
        return .allow
      case .collect:
        if let maximumResponseSize, response.expectedContentLength > Int64(maximumResponseSize) {
          route.failure =
            route.failure
            ?? .transport(
              TransportFailure(
                .responseTooLarge,
                detail: "\(response.expectedContentLength) bytes announced, at most "
                  + "\(maximumResponseSize) accepted"))
          return .cancel
        }
        return .allow
      case .stream(let head?, let body, let bodyContinuation):
        guard let http else {
          route.failure = .transport(TransportFailure(.other, detail: "the response is not HTTP"))
          return .cancel
        }
        // The head arrived: from now on only silence (the idle timeout) ends the stream.
        route.deadline?.cancel()
        route.deadline = nil
        route.sink = .stream(head: nil, body: body, bodyContinuation: bodyContinuation)
        return .openStream(
          head,
          HTTPStreamingResponse(
            status: http.statusCode, headers: URLSessionTransport.headers(of: http), body: body))
      case .stream(nil, _, _):
        return .allow
      }
    }
    switch next {
    case .allow:
      completionHandler(.allow)
    case .cancel:
      completionHandler(.cancel)
    case .openStream(let head, let response):
      head.resume(returning: response)
      completionHandler(.allow)
    }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let identifier = dataTask.taskIdentifier
    enum Next {
      case nothing
      case yield(AsyncThrowingStream<Data, any Error>.Continuation)
      case tooLarge(Int)
    }
    let next = routes.withLock { routes -> Next in
      // Read through the dictionary, never into a local copy of the route: a copy would share
      // the body's storage and make each append copy the whole body.
      switch routes[identifier]?.sink {
      case nil, .completionHandler:
        return .nothing
      case .collect:
        guard routes[identifier]?.failure == nil else { return .nothing }
        let size = routes[identifier]?.body.count ?? 0
        if let maximumResponseSize, data.count > maximumResponseSize - size {
          return .tooLarge(size + data.count)
        }
        routes[identifier]?.body.append(data)
        return .nothing
      case .stream(_, _, let continuation):
        return .yield(continuation)
      }
    }
    switch next {
    case .nothing:
      break
    case .yield(let continuation):
      continuation.yield(data)
    case .tooLarge(let size):
      stop(
        identifier,
        because: .transport(
          TransportFailure(
            .responseTooLarge,
            detail: "more than \(maximumResponseSize ?? 0) bytes (\(size) so far); transfer stopped"
          )))
    }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    let route = routes.withLock { routes -> TaskRoute? in
      // A completion handler finishes its own task (`finish(_:)`).
      if case .completionHandler = routes[task.taskIdentifier]?.sink { return nil }
      return routes.removeValue(forKey: task.taskIdentifier)
    }
    guard let route else { return }
    route.deadline?.cancel()
    let failure =
      route.failure ?? error.map { HTTPError.transport(URLSessionTransport.failure(from: $0)) }
    switch route.sink {
    case .completionHandler:
      break
    case .collect(let continuation, let progress):
      let outcome = URLSessionTransport.outcome(
        response: route.response, body: route.body, error: nil, decided: failure)
      if case .success = outcome, !route.reportedCompletion { progress?(1) }
      continuation.resume(with: outcome)
    case .stream(let head, _, let bodyContinuation):
      head?.resume(throwing: failure ?? HTTPError.transport(TransportFailure(.connectionLost)))
      bodyContinuation.finish(throwing: failure)
    }
  }
}
