import Foundation
import TrellisCore
import TrellisNetwork

/// The server's event stream, decoded.
public protocol EventRepo: Sendable {
  /// The stream's connection state.
  var connectionState: Relay<EventStreamState> { get }
  /// Connects and yields events until the consuming task is cancelled, reconnecting (with
  /// `Last-Event-ID`) when the connection drops or stays silent past
  /// ``EventDataAPI/idleTimeout``. A new call resumes after the last event an earlier one
  /// delivered, until ``forgetLastEventID()``.
  func events() -> AsyncStream<ServerEventModel>
  /// Replaces the stream's connection now (one opened before may be dead without knowing it),
  /// or ends a wait before reconnecting: the network may have changed.
  func reconnectNow()
  /// Forgets the last event delivered, so the next ``events()`` starts fresh: the session
  /// ended.
  func forgetLastEventID()
}

/// The ``EventRepo`` over ``EventDataAPI`` and an `EventStreamClient`.
public final class EventRepoImpl: EventRepo {
  private let client: EventStreamClient
  private let logger: Logger

  /// Creates the repository; each connection passes through `requester`'s plugins. The
  /// policy's idle and connect timeouts default to ``EventDataAPI``'s; `time` is the clock of
  /// the stream's deadlines and backoff (a test clock in tests).
  public init(
    requester: HTTPRequester<EventDataAPI>, transport: any StreamingHTTPTransport,
    policy: EventStreamClient.ReconnectPolicy = EventStreamClient.ReconnectPolicy(),
    logger: Logger = Logger(category: "EventRepo"), time: TimeSource = .continuous
  ) {
    client = EventStreamClient(
      endpoint: .stream, requester: requester, transport: transport, policy: policy, time: time)
    self.logger = logger
  }

  /// See ``EventRepo/connectionState``.
  public var connectionState: Relay<EventStreamState> { client.state }

  /// See ``EventRepo/reconnectNow()``.
  public func reconnectNow() {
    client.reconnectNow()
  }

  /// See ``EventRepo/forgetLastEventID()``.
  public func forgetLastEventID() {
    client.forgetLastEventID()
  }

  /// See ``EventRepo/events()``.
  public func events() -> AsyncStream<ServerEventModel> {
    let raw = client.events()
    let logger = logger
    let (stream, continuation) = AsyncStream<ServerEventModel>.makeStream()
    let task = Task {
      for await event in raw { continuation.yield(Self.decode(event, logger: logger)) }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  static func decode(_ event: ServerSentEvent, logger: Logger) -> ServerEventModel {
    switch event.event {
    case "task.created", "task.updated", "task.deleted":
      do {
        let task = try RepositoryCoding.decoder.decode(TaskModel.self, from: Data(event.data.utf8))
        switch event.event {
        case "task.created": return .taskCreated(task)
        case "task.updated": return .taskUpdated(task)
        default: return .taskDeleted(task)
        }
      } catch {
        logger.warning("Ignored a malformed \(event.event) event: \(error)")
        return .unknown(name: event.event)
      }
    case "session.revoked":
      let reason = (try? JSONDecoder().decode([String: String].self, from: Data(event.data.utf8)))?[
        "reason"]
      return .sessionRevoked(reason: reason ?? "revoked")
    default:
      return .unknown(name: event.event)
    }
  }
}
