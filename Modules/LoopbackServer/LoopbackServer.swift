import Dispatch
import Foundation
import Synchronization
import TrellisCore
import TrellisNetwork

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for tests, benchmarks and the demo backend: a
/// ``Router``'s routes over real sockets, with keep-alive, chunked streaming and injected
/// faults. Written on POSIX sockets alone.
///
/// ```swift
/// let server = try LoopbackServer(router: router)   // an ephemeral port
/// defer { server.stop() }
/// let url = server.baseURL                          // http://127.0.0.1:PORT
/// ```
///
/// Each connection is served by a thread of its own, with blocking reads: simple, and enough
/// for tests and a demo. While a handler runs, the connection is watched; if the client
/// hangs up, the handler's task is cancelled and the hang-up is counted in
/// ``clientDisconnects``.
///
/// Hostile clients are expected (``Limits``): a request is parsed with every size checked
/// before use and answered 400, 408, 413, 431 or 505 when it breaks a rule; every read has a
/// deadline, every write a send timeout, and connections beyond the maximum are answered 503
/// and closed, so slow or idle clients cannot hold every thread. A transient `accept` failure
/// (out of descriptors, a connection aborted before it was accepted) is retried with a short
/// back-off; only ``stop()`` (or the server's release) ends the accept loop.
///
/// Ownership: the accept thread holds the server weakly, so releasing the last reference stops
/// it (listener and connections shut down, without waiting); a connection's thread holds it
/// while it serves, so a server released with connections open stops once they end. ``stop()``
/// ends everything at once and waits for the threads.
public final class LoopbackServer: Sendable {
  /// What the server accepts from a client, and for how long it waits.
  public struct Limits: Sendable {
    /// The longest the whole request head may take to arrive, from its first byte.
    public var headerTimeout: Duration = .seconds(10)
    /// The longest a connection may stay silent: between requests, and within a body.
    public var idleTimeout: Duration = .seconds(60)
    /// The longest one write to a client may block (a client that does not read).
    public var sendTimeout: Duration = .seconds(30)
    /// The most connections served at once; more are answered 503 and closed.
    public var maximumConnections = 256
    /// The largest request head, in bytes.
    public var maximumHeadSize = 64 * 1024
    /// The most header fields in one request.
    public var maximumHeaderFields = 100
    /// The largest request body, in bytes.
    public var maximumBodySize = 64 * 1024 * 1024

    /// Limits for a development server.
    public init() {}
  }

  /// One request the server received, as recorded for tests (sensitive header values are
  /// redacted).
  public struct LoggedRequest: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The path, without the query.
    public var path: String
    /// The header fields, sensitive values (`Authorization`, `Cookie`, ...) redacted.
    public var headers: HTTPHeaders
  }

  /// The port the server listens on.
  public let port: Int
  /// `http://127.0.0.1:<port>`.
  public let baseURL: URL
  /// How many times a client hung up while its request was being answered (a cancelled
  /// request, a closed event stream).
  public let clientDisconnects = Relay(0)
  /// The server's limits.
  public let limits: Limits

  private let router: Router
  private let listener: Listener
  private let logger: Logger
  private let recordedRequestLimit: Int
  private let acceptConnection: @Sendable (Int32) -> (descriptor: Int32, error: Int32)
  private let state = Mutex(State())
  private let finished = DispatchGroup()

  private struct State {
    var isStopped = false
    var connections: Set<Int32> = []
    var requests: [LoggedRequest] = []
    var acceptedConnections = 0
    var refusedConnections = 0
    var acceptFailures = 0
  }

  /// Starts listening on 127.0.0.1 at `port` (0 picks a free port) and serving `router`.
  ///
  /// - Parameters:
  ///   - limits: What clients may send and how long they may take.
  ///   - recordedRequests: How many of the latest requests ``requests`` keeps, for tests;
  ///     `0` (the default) keeps none, so a long-running server holds no memory per request.
  /// - Throws: ``LoopbackServerError`` when the socket cannot be opened, bound or listened on.
  public convenience init(
    router: Router, port: Int = 0, limits: Limits = Limits(), recordedRequests: Int = 0,
    logger: Logger = Logger(category: "LoopbackServer")
  ) throws {
    try self.init(
      router: router, port: port, limits: limits, recordedRequests: recordedRequests,
      logger: logger,
      accept: { listener in
        let descriptor = Glibc.accept(listener, nil, nil)
        return (descriptor, descriptor < 0 ? errno : 0)
      })
  }

  /// The designated initializer, with the `accept` call replaceable so tests can inject its
  /// failures.
  init(
    router: Router, port: Int, limits: Limits, recordedRequests: Int, logger: Logger,
    accept: @escaping @Sendable (Int32) -> (descriptor: Int32, error: Int32)
  ) throws {
    self.router = router
    self.logger = logger
    self.limits = limits
    recordedRequestLimit = max(0, recordedRequests)
    acceptConnection = accept
    let socket = try Self.listeningSocket(port: port)
    listener = Listener(socket.descriptor)
    self.port = socket.port
    guard let url = URL(string: "http://127.0.0.1:\(socket.port)") else {
      throw LoopbackServerError.socket("cannot form a URL for port \(socket.port)", errno: 0)
    }
    baseURL = url
    finished.enter()
    // Weak, and never held across `accept`: a server nobody references is released (its
    // `deinit` stops it) even while the thread waits for a connection.
    let acceptThread = Thread {
      [weak self, listener = self.listener, accept = acceptConnection, finished = self.finished] in
      var backoff = Duration.milliseconds(5)
      while true {
        let (connection, code) = accept(listener.descriptor)
        guard let server = self else {
          // Released: its deinit shuts the listener down, maybe at this very moment on
          // another thread; the listener's own lock orders that with this close, so the
          // number is never shut down after the system gave it to another socket.
          if connection >= 0 { close(connection) }
          listener.close()
          break
        }
        // `handleAccepted` closes a connection it does not serve.
        guard server.handleAccepted(connection: connection, code: code, backoff: &backoff) else {
          // Closed only once this thread has left `accept`.
          listener.close()
          break
        }
      }
      finished.leave()
    }
    acceptThread.name = "LoopbackServer.accept"
    acceptThread.start()
  }

  deinit {
    // Possibly on one of the server's own threads: shut everything down, wait for nothing.
    shutDownEverything()
  }

  /// The latest requests received (at most `recordedRequests` of them), oldest first.
  public var requests: [LoggedRequest] {
    state.withLock { $0.requests }
  }

  /// How many TCP connections have been accepted (keep-alive reuses them).
  public var acceptedConnections: Int {
    state.withLock { $0.acceptedConnections }
  }

  /// How many connections were answered 503 because ``Limits/maximumConnections`` were open.
  public var refusedConnections: Int {
    state.withLock { $0.refusedConnections }
  }

  /// How many times `accept` failed and was retried.
  public var acceptFailures: Int {
    state.withLock { $0.acceptFailures }
  }

  /// How many connections are open now.
  public var openConnections: Int {
    state.withLock { $0.connections.count }
  }

  /// Stops accepting, closes every connection, cancels running handlers, and waits (up to
  /// five seconds) for the server's threads to end. Calling it again does nothing.
  public func stop() {
    guard shutDownEverything() else { return }
    if finished.wait(timeout: .now() + 5) == .timedOut {
      logger.warning("Loopback server on port \(port) stopped with connections still open")
    }
  }

  /// Marks the server stopped and shuts the listener and every open connection down; returns
  /// `false` if it was already stopped. The connections are shut down under the lock that their
  /// threads take to close them, so each number shut down is still that connection's, never a
  /// descriptor the system has reused for another socket meanwhile.
  @discardableResult
  private func shutDownEverything() -> Bool {
    state.withLock { state in
      guard !state.isStopped else { return false }
      state.isStopped = true
      listener.shutDown()
      for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
      return true
    }
  }

  // MARK: Accepting

  /// Whether an `accept` failure is worth retrying: the listener is fine, the moment is not.
  static func isTransient(acceptError code: Int32) -> Bool {
    switch code {
    case EINTR, ECONNABORTED, EPROTO, EMFILE, ENFILE, ENOBUFS, ENOMEM, EAGAIN, EPERM: true
    default: false
    }
  }

  private var isStopped: Bool { state.withLock { $0.isStopped } }

  /// Handles one `accept` result: serves or refuses the connection, or decides about the
  /// failure. Returns whether to go on accepting.
  private func handleAccepted(connection: Int32, code: Int32, backoff: inout Duration) -> Bool {
    guard connection >= 0 else {
      if isStopped { return false }
      guard Self.isTransient(acceptError: code) else {
        logger.error(
          "Loopback server on port \(port) stopped accepting: \(String(cString: strerror(code)))")
        return false
      }
      state.withLock { $0.acceptFailures += 1 }
      if code == EINTR || code == ECONNABORTED || code == EPROTO { return true }
      // Out of descriptors or memory: wait for connections to close, a little longer each
      // time, instead of spinning or giving up.
      logger.warning(
        "accept failed (\(String(cString: strerror(code)))); retrying in \(backoff.readable)")
      Thread.sleep(forTimeInterval: backoff.inSeconds)
      backoff = min(backoff * 2, .milliseconds(500))
      return true
    }
    backoff = .milliseconds(5)
    enum Admission { case serve, refuse, stopped }
    let admission = state.withLock { state -> Admission in
      guard !state.isStopped else { return .stopped }
      guard state.connections.count < limits.maximumConnections else {
        state.refusedConnections += 1
        return .refuse
      }
      state.connections.insert(connection)
      state.acceptedConnections += 1
      return .serve
    }
    switch admission {
    case .stopped:
      close(connection)
      return false
    case .refuse:
      // Answered from the accept thread without blocking it: a client that does not read
      // just misses the answer.
      Self.setSendTimeout(connection, .milliseconds(100))
      Connection(descriptor: connection).reject(status: 503, reason: "too many connections")
      close(connection)
      return true
    case .serve:
      break
    }
    var one: Int32 = 1
    setsockopt(
      connection, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    Self.setSendTimeout(connection, limits.sendTimeout)
    finished.enter()
    let thread = Thread { [self] in
      serve(Connection(descriptor: connection))
      // Removed and closed as one step under the lock `stop()` shuts connections down under.
      state.withLock { state in
        state.connections.remove(connection)
        close(connection)
      }
      finished.leave()
    }
    thread.name = "LoopbackServer.connection"
    thread.start()
    return true
  }

  private static func setSendTimeout(_ descriptor: Int32, _ timeout: Duration) {
    // At least a millisecond: a zero `SO_SNDTIMEO` means no timeout at all.
    let milliseconds = max(timeout.inMilliseconds, 1)
    var value = timeval(
      tv_sec: Int(milliseconds / 1000), tv_usec: Int(milliseconds % 1000) * 1000)
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
  }

  // MARK: Serving one connection

  private func serve(_ connection: Connection) {
    var reader = RequestReader(limits: limits)
    var source = SocketSource(descriptor: connection.descriptor)
    while true {
      let request: ReceivedRequest
      switch reader.next(from: &source) {
      case .end:
        return
      case .reject(let status, let reason):
        connection.reject(status: status, reason: reason)
        return
      case .request(let received):
        request = received
      }
      record(request)
      let keepAlive = request.keepsAlive
      guard let response = run(request, on: connection) else { return }  // the client left
      if let fault = response.fault {
        commit(fault, response: response, on: connection)
        return
      }
      switch response.body {
      case .data(let data):
        guard
          connection.write(
            head(for: response, contentLength: data.count, keepAlive: keepAlive) + data)
        else { return }
      case .stream(let write):
        guard connection.write(head(for: response, contentLength: nil, keepAlive: keepAlive)),
          stream(write, on: connection)
        else { return }
      }
      if !keepAlive { return }
    }
  }

  /// Keeps the request for ``requests`` when recording is on, without secret header values,
  /// dropping the oldest past the limit.
  private func record(_ request: ReceivedRequest) {
    guard recordedRequestLimit > 0 else { return }
    var headers = HTTPHeaders()
    for field in request.headers {
      headers[field.name] =
        SecretRedactor.standard.isSensitive(field.name)
        ? LogMessage.redactedPlaceholder : field.value
    }
    let logged = LoggedRequest(method: request.method, path: request.path, headers: headers)
    state.withLock { state in
      if state.requests.count >= recordedRequestLimit { state.requests.removeFirst() }
      state.requests.append(logged)
    }
  }

  /// Runs the handler (and the response's delay) in a task whose jobs run on this
  /// connection's thread, watching the socket meanwhile so that a client hang-up cancels the
  /// task. Returns `nil` if the client left.
  private func run(_ request: ReceivedRequest, on connection: Connection) -> ServerResponse? {
    let outcome = Mutex<ServerResponse?>(nil)
    let executor = ConnectionExecutor()
    defer { executor.detach() }
    let router = router
    let task = Task(executorPreference: executor) {
      var response = await router.handle(request.request)
      if response.delay > .zero {
        do {
          try await Task.sleep(for: response.delay)
        } catch {
          response = .status(499)
        }
      }
      outcome.withLock { $0 = response }
    }
    let finished = executor.run(
      until: { outcome.withLock { $0 != nil } }, stoppingIf: { connection.hasHungUp() })
    guard finished else {
      task.cancel()
      clientDisconnects.update { $0 += 1 }
      return nil
    }
    return outcome.withLock { $0 }
  }

  /// Runs a streaming handler the same way; returns `false` if the client left or the
  /// handler cut the response short (the connection is then closed, or reset).
  private func stream(
    _ write: @escaping @Sendable (ChunkWriter) async throws -> Void, on connection: Connection
  ) -> Bool {
    let done = Atomic<Bool>(false)
    let failure = Mutex<(any Error)?>(nil)
    let executor = ConnectionExecutor()
    defer { executor.detach() }
    let writer = SocketChunkWriter(connection: connection)
    let task = Task(executorPreference: executor) {
      do {
        try await write(writer)
      } catch {
        failure.withLock { $0 = error }
      }
      done.store(true, ordering: .releasing)
    }
    let finished = executor.run(
      until: { done.load(ordering: .acquiring) },
      stoppingIf: { writer.failed || connection.hasHungUp() })
    guard finished else {
      task.cancel()
      clientDisconnects.update { $0 += 1 }
      // Let the cancelled handler finish before the socket is closed and its number reused.
      _ = executor.run(until: { done.load(ordering: .acquiring) }, stoppingIf: { false })
      return false
    }
    if let error = failure.withLock({ $0 }) {
      if error as? ServerResponse.Fault == .reset { connection.resetOnClose() }
      return false
    }
    return connection.write(Data("0\r\n\r\n".utf8))
  }

  private func commit(
    _ fault: ServerResponse.Fault, response: ServerResponse, on connection: Connection
  ) {
    switch fault {
    case .closeWithoutResponse:
      return
    case .reset:
      connection.resetOnClose()
    case .closeMidResponse:
      let body: Data
      if case .data(let data) = response.body { body = data } else { body = Data() }
      let half = body.prefix(max(1, body.count / 2))
      _ = connection.write(head(for: response, contentLength: body.count, keepAlive: false) + half)
    }
  }

  private func head(for response: ServerResponse, contentLength: Int?, keepAlive: Bool) -> Data {
    var headers = response.headers
    if let contentLength {
      headers["Content-Length"] = "\(contentLength)"
    } else {
      headers["Transfer-Encoding"] = "chunked"
      headers["Cache-Control"] = "no-cache"
    }
    headers["Connection"] = keepAlive ? "keep-alive" : "close"
    var text = "HTTP/1.1 \(response.status) \(Self.reason(for: response.status))\r\n"
    for field in headers { text += "\(field.name): \(field.value)\r\n" }
    text += "\r\n"
    return Data(text.utf8)
  }

  static func reason(for status: Int) -> String {
    switch status {
    case 200: "OK"
    case 201: "Created"
    case 204: "No Content"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 409: "Conflict"
    case 413: "Content Too Large"
    case 422: "Unprocessable Content"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    default: "Status \(status)"
    }
  }

  // MARK: The listening socket

  private static func listeningSocket(port: Int) throws -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw LoopbackServerError.socket("socket()", errno: errno) }
    var one: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else {
      let error = errno
      close(descriptor)
      throw LoopbackServerError.socket("bind() to 127.0.0.1:\(port)", errno: error)
    }
    guard listen(descriptor, 128) == 0 else {
      let error = errno
      close(descriptor)
      throw LoopbackServerError.socket("listen()", errno: error)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(descriptor, $0, &length)
      }
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
  }
}

/// Why the server could not start.
public enum LoopbackServerError: Error, CustomStringConvertible {
  /// A socket call failed.
  case socket(String, errno: Int32)

  /// The call and the system's explanation.
  public var description: String {
    switch self {
    case .socket(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
    }
  }
}

/// Writes chunks of a streamed response straight to the socket, from the handler's task.
private final class SocketChunkWriter: ChunkWriter {
  private let connection: Connection
  private let hasFailed = Atomic<Bool>(false)

  init(connection: Connection) {
    self.connection = connection
  }

  var failed: Bool { hasFailed.load(ordering: .acquiring) }

  func write(_ data: Data) async throws {
    try Task.checkCancellation()
    guard !data.isEmpty else { return }
    var chunk = Data(String(data.count, radix: 16).utf8)
    chunk.append(Data("\r\n".utf8))
    chunk.append(data)
    chunk.append(Data("\r\n".utf8))
    guard connection.write(chunk) else {
      hasFailed.store(true, ordering: .releasing)
      throw CancellationError()
    }
  }
}

/// Runs a handler task's jobs on the connection's own thread.
///
/// A handler that does not suspend then runs start to finish on that thread, with no thread
/// hop, and the server never depends on the cooperative pool, which the code under test may
/// be using. Once the connection is done with it, the executor forwards any remaining jobs
/// (of a cancelled handler still winding down) to a global queue, so no task is stranded.
final class ConnectionExecutor: TaskExecutor {
  private struct State {
    var jobs: [UnownedJob] = []
    var isDetached = false
  }

  private let state = Mutex(State())
  private let wakeUp = DispatchSemaphore(value: 0)
  /// How often a waiting connection checks whether the client hung up.
  private static let checkInterval = DispatchTimeInterval.milliseconds(10)

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let forward = state.withLock { state -> Bool in
      if state.isDetached { return true }
      state.jobs.append(job)
      return false
    }
    if forward {
      DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    } else {
      wakeUp.signal()
    }
  }

  /// Runs jobs on the calling thread until `isDone` holds (returns `true`) or `shouldStop`
  /// does when checked between waits (returns `false`).
  func run(until isDone: () -> Bool, stoppingIf shouldStop: () -> Bool) -> Bool {
    while true {
      let jobs = state.withLock { state in
        defer { state.jobs.removeAll(keepingCapacity: true) }
        return state.jobs
      }
      for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
      if isDone() { return true }
      if jobs.isEmpty, wakeUp.wait(timeout: .now() + Self.checkInterval) == .timedOut,
        shouldStop()
      {
        return false
      }
    }
  }

  /// Hands any pending and future jobs to a global queue.
  func detach() {
    let pending = state.withLock { state in
      state.isDetached = true
      defer { state.jobs.removeAll() }
      return state.jobs
    }
    for job in pending {
      DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
  }
}

/// The listening socket, shared by the server and its accept thread (which may outlive it):
/// shutting it down and closing it happen under its own lock, once, so a shutdown never
/// reaches a descriptor number the system has reused after the close.
private final class Listener: Sendable {
  let descriptor: Int32
  /// Whether it is closed.
  private let isClosed = Mutex(false)

  init(_ descriptor: Int32) {
    self.descriptor = descriptor
  }

  /// Wakes a thread blocked in `accept` (it returns an error), unless already closed.
  func shutDown() {
    isClosed.withLock { isClosed in
      if !isClosed { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
    }
  }

  /// Closes it, once.
  func close() {
    isClosed.withLock { isClosed in
      guard !isClosed else { return }
      isClosed = true
      _ = Glibc.close(descriptor)
    }
  }
}
