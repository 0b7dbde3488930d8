import TrellisNetwork

/// The server's event stream.
public enum EventDataAPI: HTTPEndpoint {
  /// `GET /events`: `text/event-stream` of `task.created`, `task.updated`, `task.deleted` and
  /// `session.revoked`.
  case stream

  /// `/events`.
  public var path: String { "/events" }

  /// `GET`.
  public var method: HTTPMethod { .get }

  /// How long connecting may take, to the response's head: seconds, not the kernel's minutes,
  /// so a connection attempt into a dead network fails and backs off. Once open, the stream
  /// has no deadline; only silence ends it (``idleTimeout``).
  public var timeout: Duration? { Self.connectTimeout }

  /// How long the open stream may stay silent before it counts as dead: two of the server's
  /// heartbeats (``heartbeatInterval``) and two seconds for a late one. A tunnel or a network
  /// handover kills a connection with no byte and no reset; this is how the client finds out,
  /// and it bounds how long the return of a network that failed silently can go unnoticed
  /// (docs/network.md, "Recovery at production timings").
  public var idleTimeout: Duration? { Self.heartbeatInterval * 2 + .seconds(2) }

  /// The longest interval at which the server sends a heartbeat (an SSE comment line, `:`) on
  /// an open stream. The demo backend sends one every 5 seconds; a real server must send one
  /// at least this often, or the client takes its stream for dead. (Three bytes every five
  /// seconds on a connection already open; the app keeps the stream only in the foreground.)
  public static let heartbeatInterval: Duration = .seconds(5)

  /// How long connecting may take (see ``timeout``), the refresh of an expired token included.
  public static let connectTimeout: Duration = .seconds(10)
}
