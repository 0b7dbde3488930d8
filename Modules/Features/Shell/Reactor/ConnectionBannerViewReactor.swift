import TrellisCore
import TrellisReactor
import TrellisService

/// The connection banner: driven entirely by the connection service, through an action the view
/// never sends (FLo: "connection fail, state updated by server" as actions).
@MainActor
public final class ConnectionBannerViewReactor: ReactorProtocol {
  /// What changes the banner.
  public enum Action: Sendable, Equatable {
    /// The connection state changed (merged from the service in `transform(action:)`).
    case connectionChanged(ConnectionState)
  }

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

  /// Creates the reactor.
  public init(serviceProvider: any ConnectionBannerViewServiceProvider) {
    services = serviceProvider
  }

  /// Merges the service's state as actions.
  public func transform(action: ReactorStream<Action>) -> ReactorStream<Action> {
    action.merge(services.connectionService.state.values) { .connectionChanged($0) }
  }

  /// Shows the new state.
  public func mutate(action: Action) -> Effect {
    switch action {
    case .connectionChanged(let state): .just(.setConnection(state))
    }
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
