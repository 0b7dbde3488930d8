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

  /// An event stream stays open: no timeout between events.
  public var timeout: Duration? { .seconds(24 * 3600) }
}
