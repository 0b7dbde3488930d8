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
/// resumes from it delivers every event exactly once, in order, across reconnects. The delay
/// before reconnecting stays within ``ReconnectPolicy/minimumDelay`` and
/// ``ReconnectPolicy/maximumDelay`` whatever the server's `retry:` says, and a line or event
/// over the parser's limits closes the connection (then reconnects) instead of exhausting
/// memory.
///
/// The backoff grows with every connection in a row that delivered no event, and is reset
/// only by an event: a server (a proxy, a captive portal) that answers `200` and closes is
/// not reconnected in a tight loop. A `2xx` that is not `text/event-stream`, a `204`, or an
/// authentication failure that ends the session *fails the connection*: the sequence ends
/// (whoever owns the stream decides whether and when to start it again; the connection
/// service does, with its own backoff). A refresh that could not be made now (offline) is a
/// lost connection like any other, retried with backoff. ``reconnectNow()`` cuts a backoff
/// wait short when the network is known to be back.
///
/// The body is delivered incrementally by a ``StreamingHTTPTransport``: on Linux
/// ``URLSessionTransport`` receives it chunk by chunk through its session delegate, so
/// events arrive as the server sends them, with no polling.
public final class EventStreamClient: Sendable {
  /// Opens one connection, sending `lastEventID` when there is one.
  public typealias Connect =
    @Sendable (_ lastEventID: String?, _ attempt: Int) async throws(HTTPError) ->
    HTTPStreamingResponse

  /// How reconnection waits.
  public struct ReconnectPolicy: Sendable {
    /// The first delay, before jitter; a server's `retry:` replaces it.
    public var initialDelay: Duration = .seconds(1)
    /// The shortest delay, whatever the server asks (`retry: 0` must not become a tight
    /// reconnect loop).
    public var minimumDelay: Duration = .milliseconds(250)
    /// The longest delay.
    public var maximumDelay: Duration = .seconds(30)
    /// The longest line accepted from the server, in bytes.
    public var maximumLineLength = 64 * 1024
    /// The largest event accepted from the server, in bytes.
    public var maximumEventSize = 1024 * 1024

    /// The default policy.
    public init() {}
  }

  /// The connection state; its `values` stream shows every transition.
  public let state = Relay(EventStreamState.idle)
  private let connect: Connect
  private let policy: ReconnectPolicy
  private let logger: Logger
  private let sleep: @Sendable (Duration) async throws -> Void
  private let wakeUp = WakeUp()

  /// Creates a client that opens connections with `connect`.
  public init(
    policy: ReconnectPolicy = ReconnectPolicy(), logger: Logger = Logger(category: "EventStream"),
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
    connect: @escaping Connect
  ) {
    self.connect = connect
    self.policy = policy
    self.logger = logger
    self.sleep = sleep
  }

  /// Creates a client for an endpoint of a requester: each connection's request passes
  /// through the requester's plugins (the auth plugin attaches a fresh token, refreshing an
  /// expired one first), and a `401` asks them what to do (the auth plugin refreshes) before
  /// reconnecting.
  public convenience init<API: HTTPEndpoint>(
    endpoint: API, requester: HTTPRequester<API>, transport: any StreamingHTTPTransport,
    policy: ReconnectPolicy = ReconnectPolicy(), logger: Logger = Logger(category: "EventStream")
  ) {
    self.init(policy: policy, logger: logger) { lastEventID, attempt throws(HTTPError) in
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

  /// The events, starting a connection now. Iterate it from one task; cancelling that task
  /// (or dropping the sequence) closes the connection and stops reconnecting.
  public func events() -> AsyncStream<ServerSentEvent> {
    let (stream, continuation) = AsyncStream<ServerSentEvent>.makeStream()
    let task = Task { await self.run(continuation) }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  /// Ends a wait before reconnecting, if one is under way, and reconnects now: call it when
  /// the network is known to be back (a request just succeeded after failures).
  public func reconnectNow() {
    wakeUp.wake()
  }

  /// Why a connection ended.
  private enum Ending {
    /// Reconnect after the backoff.
    case lost(String)
    /// Do not reconnect: the sequence ends.
    case failed(String)
  }

  private func run(_ output: AsyncStream<ServerSentEvent>.Continuation) async {
    var lastEventID: String?
    // Connections in a row that delivered no event: what the backoff grows with.
    var failures = 0
    var serverDelay: Duration?
    defer {
      state.send(.idle)
      output.finish()
    }
    while !Task.isCancelled {
      state.send(.connecting(attempt: failures + 1))
      let ending: Ending
      do {
        let response = try await connect(lastEventID, failures + 1)
        if let failure = Self.refusal(of: response) {
          ending = failure
        } else {
          state.send(.open)
          logger.info("Event stream open")
          // A parser per connection: what was left of an event when a connection ended goes
          // with it.
          var parser = ServerSentEventParser(
            lastEventID: lastEventID, maximumLineLength: policy.maximumLineLength,
            maximumEventSize: policy.maximumEventSize)
          for try await chunk in response.body {
            let events = try parser.feed(chunk)
            serverDelay = parser.reconnectionTime ?? serverDelay
            if !events.isEmpty { failures = 0 }
            for event in events { output.yield(event) }
            lastEventID = parser.lastEventID
          }
          ending = .lost("the server closed the stream")
        }
      } catch let error as ServerSentEventError {
        ending = .lost("\(error)")
      } catch let error as HTTPError {
        if error.isCancellation || Task.isCancelled { return }
        if case .authentication(let failure) = error, !failure.isTemporary {
          ending = .failed("\(error)")
        } else {
          ending = .lost("\(error)")
        }
      } catch {
        if Task.isCancelled { return }
        ending = .lost("\(error)")
      }
      switch ending {
      case .failed(let reason):
        logger.warning("Event stream stopped: \(reason)")
        return
      case .lost(let reason):
        failures += 1
        let delay = backoff(attempt: failures, serverDelay: serverDelay)
        state.send(.lost(reason: reason, retryIn: delay))
        logger.notice("Event stream lost (\(reason)); reconnecting in \(delay.readable)")
        do {
          if try await wakeUp.wait(for: delay, sleep: sleep) {
            logger.info("The network is back: reconnecting the event stream now")
          }
        } catch {
          return
        }
      }
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
