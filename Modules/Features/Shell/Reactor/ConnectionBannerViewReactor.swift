import TrellisCore
import TrellisReactor
import TrellisService

/// The connection banner: driven entirely by services, through actions the view never sends
/// (FLo: "connection fail, state updated by server" as actions). It shows the connection, and,
/// as it is above every screen of the signed-in area, the notices the user has not seen (work
/// that went wrong in the background: a change the server refused when the network returned),
/// each as an alert over whatever screen is open, then marks them seen.
@MainActor
public final class ConnectionBannerViewReactor: ReactorProtocol {
  /// What changes the banner.
  public enum Action: Sendable, Equatable {
    /// The connection state changed (merged from the service in `transform(action:)`).
    case connectionChanged(ConnectionState)
    /// The notices not seen yet changed (merged from the ``NoticeBoard``).
    case noticesChanged([Notice])
  }

  /// Its events: each notice, as an alert.
  public typealias Event = ScreenEvent

  /// State changes.
  public enum Mutation: Sendable, Equatable {
    /// Show this connection state.
    case setConnection(ConnectionState)
  }

  /// The connection as the banner shows it.
  public enum Status: Sendable, Equatable {
    /// Server events arrive live.
    case online
    /// Connecting for the first time.
    case connecting
    /// Connecting again after the connection was lost.
    case reconnecting
    /// Not connected (the connection is retried after a wait).
    case offline
  }

  /// What the banner shows.
  public struct State: Sendable, Equatable {
    /// The connection state.
    public var status = Status.offline

    /// The state before anything happened.
    public init() {}
  }

  /// Offline until the service says otherwise.
  public let initialState = State()
  /// The runtime.
  public let runtime = ReactorRuntime<ConnectionBannerViewReactor>()
  private let services: any ConnectionBannerViewServiceProvider
  /// The notices this banner has shown (marked seen: they leave the board).
  private var shownNotices: Set<Notice.ID> = []

  /// Creates the reactor.
  public init(serviceProvider: any ConnectionBannerViewServiceProvider) {
    services = serviceProvider
  }

  /// Merges the service's state as actions.
  public func transform(action: ReactorStream<Action>) -> ReactorStream<Action> {
    action
      .merge(services.connectionService.state.values) { .connectionChanged($0) }
      .merge(services.noticeBoard.unseen.values) { .noticesChanged($0) }
  }

  /// Shows the new state.
  public func mutate(action: Action) -> Effect {
    switch action {
    case .connectionChanged(let state): .just(.setConnection(state))
    case .noticesChanged(let notices): show(notices)
    }
  }

  /// Shows each notice not shown yet as an alert, and marks it seen.
  private func show(_ notices: [Notice]) -> Effect {
    // Those still on the board (marking one seen takes a moment to come back as a change).
    shownNotices.formIntersection(notices.map(\.id))
    let new = notices.filter { !shownNotices.contains($0.id) }
    for notice in new {
      shownNotices.insert(notice.id)
      services.noticeBoard.markSeen(notice.id)
    }
    return .concat(new.map { .event(.alert(title: $0.title, message: $0.message)) })
  }

  /// Applies a mutation.
  public func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setConnection(let connection):
      state.status =
        switch connection {
        case .online: .online
        case .connecting: .connecting
        case .reconnecting: .reconnecting
        case .offline: .offline
        }
    }
    return state
  }
}
