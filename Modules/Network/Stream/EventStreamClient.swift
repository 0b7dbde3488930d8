import Foundation
import TrellisCore

/// The connection state of an ``EventStreamClient``, for a service to publish.
public enum EventStreamState: Sendable, Equatable {
  /// Not started, or stopped.
  case idle
  /// Opening the connection; `attempt` counts from 1 since the last open connection.
  case connecting(attempt: Int)
  /// Connected: events flow.
  case open
  /// The connection failed or dropped; it is retried after `retryIn`.
  case lost(reason: String, retryIn: Duration)
}

/// A server-sent-events client: yields events as an `AsyncSequence`, reconnects with
/// exponential backoff (or the server's `retry:`), resends `Last-Event-ID`, and publishes its
/// connection state. It stops when the task iterating its events is cancelled.
///
/// Its guarantees follow the WHATWG standard: each connection gets a parser of its own, so an
/// event cut off by a dropped connection is discarded, never glued onto the next connection's
/// first event; `Last-Event-ID` names the last event actually delivered, so a server that
/// resumes from it delivers every event exactly once, in order, across reconnects (and across
/// calls to ``events()``, until ``forgetLastEventID()``). The delay before reconnecting stays
/// within ``ReconnectPolicy/minimumDelay`` and ``ReconnectPolicy/maximumDelay`` whatever the
/// server's `retry:` says, and a line or event over the parser's limits closes the connection
/// (then reconnects) instead of exhausting memory.
///
/// **Silence is not health.** A connection through a tunnel or a network handover can die with
/// no byte and no reset: the socket stays "open" for good. So a connection that has said
/// nothing (not an event, not a heartbeat comment) for ``ReconnectPolicy/idleTimeout`` is
/// closed and counted as lost, and one whose head has not arrived within
/// ``ReconnectPolicy/connectTimeout`` too. ``reconnectNow()`` replaces the connection at once
/// (the network may have changed: a connection opened before is suspect), or ends a backoff
/// wait.
///
/// The backoff grows with every connection in a row that delivered no event, and is reset
/// only by an event: a server (a proxy, a captive portal) that answers `200` and closes is
/// not reconnected in a tight loop. It is the time between the *starts* of attempts: an
/// attempt that hung until its connect deadline counts towards the wait after it, so a
/// network that stays silent is tried about once per ``ReconnectPolicy/connectTimeout`` and
/// one that refuses at once about once per ``ReconnectPolicy/maximumDelay``, and the network's
/// return is noticed within the longer of the two. A connection found dead by its silence
/// (not the server's doing: nothing to back off from) is replaced after
/// ``ReconnectPolicy/minimumDelay``, and the transport is told to open new connections
/// (``StreamingHTTPTransport/resetConnections()``): the ones it keeps may be as dead. A `2xx` that is not `text/event-stream`, a `204`, or an
/// authentication failure that ends the session *fails the connection*: the sequence ends
/// (whoever owns the stream decides whether and when to start it again; the connection
/// service does, with its own backoff). A refresh that could not be made now (offline) is a
/// lost connection like any other, retried with backoff. Cancelling the consuming task ends
/// the stream quietly: no "lost" state or log line on the way to ``EventStreamState/idle``.
///
/// The body is delivered incrementally by a ``StreamingHTTPTransport``: on Linux
/// ``URLSessionTransport`` receives it chunk by chunk through its session delegate, so
/// events arrive as the server sends them, with no polling.
public final class EventStreamClient: Sendable {
  /// Opens one connection, sending `lastEventID` when there is one.
  public typealias Connect =
    @Sendable (_ lastEventID: String?, _ attempt: Int) async throws(HTTPError) ->
    HTTPStreamingResponse

  /// How reconnection waits, and how long a connection may take to open or stay silent.
  public struct ReconnectPolicy: Sendable {
    /// The first delay, before jitter; a server's `retry:` replaces it.
    public var initialDelay: Duration = .seconds(1)
    /// The shortest delay, whatever the server asks (`retry: 0` must not become a tight
    /// reconnect loop).
    public var minimumDelay: Duration = .milliseconds(250)
    /// The longest delay between the starts of two attempts (before jitter, which takes up to
    /// a fifth off): how long the network's return can go unnoticed while the stream waits.
    public var maximumDelay: Duration = .seconds(10)
    /// The longest line accepted from the server, in bytes.
    public var maximumLineLength = 64 * 1024
    /// The largest event accepted from the server, in bytes.
    public var maximumEventSize = 1024 * 1024
    /// How long an open connection may stay silent (no byte: no event, no heartbeat comment)
    /// before it counts as lost; `nil` never. A few of the server's heartbeat intervals.
    /// ``EventStreamClient/init(endpoint:requester:transport:policy:logger:time:)`` takes the
    /// endpoint's ``HTTPEndpoint/idleTimeout`` when this is `nil`.
    public var idleTimeout: Duration?
    /// How long a connection may take to answer with its head before it counts as lost;
    /// `nil` leaves it to the transport. The endpoint initializer takes the endpoint's
    /// ``HTTPEndpoint/timeout`` when this is `nil`.
    public var connectTimeout: Duration?

    /// The default policy.
    public init() {}
  }

  /// The connection state; its `values` stream shows every transition.
  public let state = Relay(EventStreamState.idle)
  private let connect: Connect
  private let policy: ReconnectPolicy
  private let logger: Logger
  /// The clock of every timer: the deadlines, the backoff.
  private let time: TimeSource
  /// How the waits before reconnecting are made (the clock's sleep unless a test records them).
  private let sleep: @Sendable (Duration) async throws -> Void
  /// Called when a connection is found dead by its silence: the transport's kept connections
  /// may be as dead.
  private let connectionsMayBeDead: @Sendable () -> Void
  private let wakeUp = WakeUp()
  /// The id of the last event delivered (where the next connection resumes), and how many
  /// times it was forgotten: a reader that started before a forget does not write it back.
  private let position = Lock<(lastEventID: String?, forgets: Int)>((nil, 0))

  /// Creates a client that opens connections with `connect`.
  ///
  /// - Parameters:
  ///   - time: The clock of the deadlines and the backoff (a test clock in tests).
  ///   - sleep: How the waits before reconnecting are made, when not on `time` (a test that
  ///     records them).
  ///   - connectionsMayBeDead: Called when a connection is found dead by its silence.
  public init(
    policy: ReconnectPolicy = ReconnectPolicy(), logger: Logger = Logger(category: "EventStream"),
    time: TimeSource = .continuous,
    sleep: (@Sendable (Duration) async throws -> Void)? = nil,
    connectionsMayBeDead: @escaping @Sendable () -> Void = {},
    connect: @escaping Connect
  ) {
    self.connect = connect
    self.policy = policy
    self.logger = logger
    self.time = time
    self.sleep = sleep ?? time.sleep
    self.connectionsMayBeDead = connectionsMayBeDead
  }

  /// Creates a client for an endpoint of a requester: each connection's request passes
  /// through the requester's plugins (the auth plugin attaches a fresh token, refreshing an
  /// expired one first), and a `401` asks them what to do (the auth plugin refreshes) before
  /// reconnecting. The policy's ``ReconnectPolicy/idleTimeout`` and
  /// ``ReconnectPolicy/connectTimeout`` default to the endpoint's ``HTTPEndpoint/idleTimeout``
  /// and ``HTTPEndpoint/timeout``.
  public convenience init<API: HTTPEndpoint>(
    endpoint: API, requester: HTTPRequester<API>, transport: any StreamingHTTPTransport,
    policy: ReconnectPolicy = ReconnectPolicy(), logger: Logger = Logger(category: "EventStream"),
    time: TimeSource = .continuous
  ) {
    var policy = policy
    policy.idleTimeout = policy.idleTimeout ?? endpoint.idleTimeout
    policy.connectTimeout = policy.connectTimeout ?? endpoint.timeout
    let resetConnections: @Sendable () -> Void = { transport.resetConnections() }
    self.init(
      policy: policy, logger: logger, time: time, connectionsMayBeDead: resetConnections
    ) { lastEventID, attempt throws(HTTPError) in
      var request = try await requester.preparedRequest(for: endpoint)
      request.headers["Accept"] = "text/event-stream"
      request.headers["Cache-Control"] = "no-cache"
      if let lastEventID { request.headers["Last-Event-ID"] = lastEventID }
      var response = try await transport.openStream(request)
      response.request = request
      guard response.status == 401 else { return response }
      let rejected = HTTPResponse(status: 401, headers: response.headers, request: request)
      if case .fail(let error) = await requester.retryDecision(
        for: rejected, endpoint: endpoint, attempt: attempt)
      {
        throw error
      }
      return response
    }
  }

  /// The events, starting a connection now that resumes after the last event delivered (see
  /// ``forgetLastEventID()``). Iterate it from one task; cancelling that task (or dropping the
  /// sequence) closes the connection and stops reconnecting.
  public func events() -> AsyncStream<ServerSentEvent> {
    let (stream, continuation) = AsyncStream<ServerSentEvent>.makeStream()
    let task = Task { await self.run(continuation) }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  /// Replaces the connection now: a connection opened (or being opened) before this call is
  /// closed and a new one opened at once, resuming after the last event; a wait before
  /// reconnecting ends. Call it whenever the network may have changed (a request reached the
  /// server after failures, the reachability changed, the app came back to the foreground):
  /// a connection made over the old network may be dead without knowing it, and so may the
  /// transport's kept connections, which it is told to replace too.
  public func reconnectNow() {
    connectionsMayBeDead()
    wakeUp.wake()
  }

  /// Forgets where the stream stands, so the next ``events()`` starts fresh (no
  /// `Last-Event-ID`): call it when the session ends, since the next user's stream is not
  /// this one's.
  public func forgetLastEventID() {
    position.withLock { position in
      position.lastEventID = nil
      position.forgets += 1
    }
  }

  /// Why a connection ended.
  private enum Ending: Sendable {
    /// Reconnect after the backoff.
    case lost(String)
    /// Found dead by its silence (no head within the connect deadline, no byte within the idle
    /// timeout): the network, not the server; reconnect (see the type's comment).
    case silent(String)
    /// Do not reconnect: the sequence ends.
    case failed(String)
    /// ``reconnectNow()`` asked for a new connection: reconnect at once.
    case replaced
  }

  private func run(_ output: AsyncStream<ServerSentEvent>.Continuation) async {
    // Connections in a row that delivered no event: what the backoff grows with.
    var failures = 0
    var serverDelay: Duration?
    defer {
      state.send(.idle)
      output.finish()
    }
    while !Task.isCancelled {
      // A wake from now on replaces this connection, or cuts the backoff after it.
      let generation = wakeUp.wakeCount
      let attempt = failures + 1
      state.send(.connecting(attempt: attempt))
      let progress = ConnectionProgress(time: time)
      let ending = await withTaskGroup(of: Ending.self) { group in
        group.addTask {
          await self.read(attempt: attempt, progress: progress, into: output)
        }
        group.addTask { await self.watch(progress, generation: generation) }
        let first = await group.next() ?? .lost("the connection ended")
        group.cancelAll()
        return first
      }
      // Cancelled (sign-out, disconnect): end quietly.
      if Task.isCancelled { return }
      let (delivered, retry) = progress.outcome
      serverDelay = retry ?? serverDelay
      if delivered { failures = 0 }
      let delay: Duration
      let reason: String
      switch ending {
      case .failed(let reason):
        logger.warning("Event stream stopped: \(reason)")
        return
      case .replaced:
        logger.info("The network may have changed: replacing the event stream's connection")
        continue
      case .silent(let why):
        failures += 1
        reason = why
        connectionsMayBeDead()
        // An open connection gone silent: the network's doing, replaced at once. One that never
        // answered: its wait counts towards the backoff.
        delay =
          progress.wasOpen
          ? policy.minimumDelay : remainder(of: failures, serverDelay: serverDelay, progress)
      case .lost(let why):
        failures += 1
        reason = why
        delay = remainder(of: failures, serverDelay: serverDelay, progress)
      }
      state.send(.lost(reason: reason, retryIn: delay))
      logger.notice("Event stream lost (\(reason)); reconnecting in \(delay.readable)")
      do {
        if try await wakeUp.wait(for: delay, sleep: sleep, ifNotWokenSince: generation) {
          logger.info("The network may be back: reconnecting the event stream now")
        }
      } catch {
        return
      }
    }
  }

  /// The wait before the next attempt: the backoff after `failures` failures, less the time the
  /// attempt that just failed spent before it opened or failed (the backoff is between the
  /// starts of attempts), and at least the minimum delay.
  private func remainder(
    of failures: Int, serverDelay: Duration?, _ progress: ConnectionProgress
  ) -> Duration {
    let spent = progress.wasOpen ? .zero : progress.age
    return max(policy.minimumDelay, backoff(attempt: failures, serverDelay: serverDelay) - spent)
  }

  /// Opens one connection and reads it until it ends; returns why it ended.
  private func read(
    attempt: Int, progress: ConnectionProgress,
    into output: AsyncStream<ServerSentEvent>.Continuation
  ) async -> Ending {
    let (resumeAfter, forgets) = position.withLock { ($0.lastEventID, $0.forgets) }
    do {
      let response = try await connect(resumeAfter, attempt)
      // (A body not read is ended when it is released: the transfer is cancelled.)
      if let refusal = Self.refusal(of: response) { return refusal }
      guard !Task.isCancelled else { return .lost("cancelled") }
      progress.received(opening: true)
      state.send(.open)
      logger.info("Event stream open")
      // A parser per connection: what was left of an event when a connection ended goes
      // with it.
      var parser = ServerSentEventParser(
        lastEventID: resumeAfter, maximumLineLength: policy.maximumLineLength,
        maximumEventSize: policy.maximumEventSize)
      for try await chunk in response.body {
        let events = try parser.feed(chunk)
        progress.received(delivered: !events.isEmpty, retry: parser.reconnectionTime)
        for event in events { output.yield(event) }
        let delivered = parser.lastEventID
        position.withLock { position in
          // Not over a forget that came meanwhile (the session ended): the next user's stream
          // starts fresh.
          if position.forgets == forgets { position.lastEventID = delivered }
        }
      }
      return .lost("the server closed the stream")
    } catch let error as ServerSentEventError {
      return .lost("\(error)")
    } catch let error as HTTPError {
      if case .authentication(let failure) = error, !failure.isTemporary {
        return .failed("\(error)")
      }
      return .lost("\(error)")
    } catch {
      return .lost("\(error)")
    }
  }

  /// Watches a connection until it must end: ``reconnectNow()`` was called since `generation`
  /// (`.replaced`), its head did not come within the connect timeout of the attempt's start, or
  /// no byte came for the idle timeout (`.silent`). It sleeps until the next deadline on the
  /// client's clock, and looks again (a byte since moves the deadline on).
  private func watch(_ progress: ConnectionProgress, generation: Int) async -> Ending {
    let idle = policy.idleTimeout.flatMap { $0 > .zero ? $0 : nil }
    let connect = policy.connectTimeout.flatMap { $0 > .zero ? $0 : nil }
    do {
      while true {
        let (isOpen, quiet) = progress.silence
        let limit = isOpen ? idle : connect
        if let limit, quiet >= limit {
          return .silent(
            isOpen
              ? "no byte for \(limit.readable): the connection is dead"
              : "no answer within \(limit.readable)")
        }
        var wait = limit.map { $0 - quiet } ?? .seconds(3600)
        // Before the head, also no longer than the idle timeout: once the head arrives, the
        // idle deadline counts from it, and the next look must come in time for it.
        if !isOpen, let idle { wait = min(wait, idle) }
        if try await wakeUp.wait(for: wait, sleep: time.sleep, ifNotWokenSince: generation) {
          return .replaced
        }
      }
    } catch {
      return .lost("cancelled")
    }
  }

  /// Why `response` is not an event stream to read, if it is not: a status to retry later
  /// (`.lost`), or an answer that fails the connection (`.failed`: a `204`, or a `2xx` that is
  /// not `text/event-stream`, as the WHATWG standard says).
  private static func refusal(of response: HTTPStreamingResponse) -> Ending? {
    let request = response.request.map { "\($0.method) \($0.target)" } ?? "the event stream"
    guard (200..<300).contains(response.status) else {
      return .lost("the server answered \(response.status) to \(request)")
    }
    if response.status == 204 {
      return .failed("the server answered 204 No Content to \(request): it asks not to reconnect")
    }
    let contentType = response.headers["Content-Type"] ?? "no content type"
    let mediaType = contentType.split(separator: ";").first.map {
      $0.trimmingCharacters(in: .whitespaces).lowercased()
    }
    guard mediaType == "text/event-stream" else {
      return .failed(
        "the server answered \(response.status) to \(request) with \(contentType), not "
          + "text/event-stream (a proxy or a sign-in portal?)")
    }
    return nil
  }

  /// The wait before reconnection attempt `attempt + 1`: the server's `retry:` or the
  /// initial delay, doubled for each failed attempt in a row, with jitter, always within the
  /// policy's minimum and maximum.
  func backoff(attempt: Int, serverDelay: Duration?) -> Duration {
    let base = max(
      policy.minimumDelay, min(serverDelay ?? policy.initialDelay, policy.maximumDelay))
    return Backoff(
      base: base, maximum: policy.maximumDelay, minimum: policy.minimumDelay, jitter: 0.8...1
    ).delay(afterFailures: attempt)
  }
}

/// What one connection has done so far, shared by its reader and its watchdog: when it started,
/// opened and last received a byte, on the client's clock.
private final class ConnectionProgress: Sendable {
  private struct State {
    /// When the attempt started, opened, and last got a byte (elapsed time of the clock).
    var started: Duration
    var openedAt: Duration?
    var lastByteAt: Duration?
    var delivered = false
    var retry: Duration?
  }

  private let time: TimeSource
  private let state: Lock<State>

  init(time: TimeSource) {
    self.time = time
    state = Lock(State(started: time.elapsed()))
  }

  /// Whether the head arrived, and how long it has been since the last sign of life (the
  /// attempt's start before the head; the last byte, or the head, after).
  var silence: (isOpen: Bool, quiet: Duration) {
    let now = time.elapsed()
    return state.withLock { state in
      guard let openedAt = state.openedAt else { return (false, now - state.started) }
      return (true, now - (state.lastByteAt ?? openedAt))
    }
  }

  /// Whether the head arrived.
  var wasOpen: Bool { state.withLock { $0.openedAt != nil } }

  /// How long since the attempt started.
  var age: Duration {
    let now = time.elapsed()
    return state.withLock { now - $0.started }
  }

  /// Whether an event was delivered, and the server's last `retry:`.
  var outcome: (delivered: Bool, retry: Duration?) {
    state.withLock { ($0.delivered, $0.retry) }
  }

  /// The head (`opening`) or a chunk of the body arrived.
  func received(opening: Bool = false, delivered: Bool = false, retry: Duration? = nil) {
    let now = time.elapsed()
    state.withLock { state in
      if opening { state.openedAt = now } else { state.lastByteAt = now }
      state.delivered = state.delivered || delivered
      state.retry = retry ?? state.retry
    }
  }
}
