import TrellisCore
import TrellisReactor
import TrellisService

/// The signed-in area's home: the user's name, the menu, and sign-out. It also watches the
/// session, so that signing out or a session ended on the server returns to sign-in from any
/// screen above it.
@MainActor
public final class MainViewReactor: ReactorProtocol {
  /// What happens to the main screen.
  public enum Action: Sendable, Equatable {
    /// The screen appeared: load the user.
    case load
    /// Tapped "Sign out".
    case signOut
    /// The session ended (not from the view: merged from the auth service).
    case sessionEnded(notice: String?)
  }

  /// State changes.
  public enum Mutation: Sendable, Equatable {
    /// The signed-in user changed.
    case setUser(User?)
    /// Signing out started.
    case setSigningOut(Bool)
  }

  /// One-shot outputs.
  public enum Event: Sendable, Equatable {
    /// Go to sign-in, with a notice when the session ended by itself.
    case showLogin(notice: String?)
    /// Show an alert.
    case alert(title: String, message: String)
  }

  /// What the main screen shows.
  public struct State: Sendable, Equatable {
    /// The signed-in user's name, once known.
    public var userName: String?
    /// Whether sign-out is in progress.
    public var isSigningOut = false

    /// The state before anything happened.
    public init() {}
  }

  /// Nothing known yet.
  public let initialState = State()
  /// The runtime.
  public let runtime = ReactorRuntime<MainViewReactor>()
  private let services: any MainViewServiceProvider

  /// Creates the reactor.
  public init(serviceProvider: any MainViewServiceProvider) {
    services = serviceProvider
  }

  /// Session changes come in as actions: an ended session is an action the view never sent.
  public func transform(action: ReactorStream<Action>) -> ReactorStream<Action> {
    action.merge(services.authService.sessionState.changes) { session in
      switch session {
      case .signedIn: nil
      case .signedOut: .sessionEnded(notice: nil)
      case .expired(let reason): .sessionEnded(notice: reason)
      }
    }
  }

  /// The user's changes come in as mutations (FLo: a reactor monitors user state through a
  /// service subject).
  public func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation> {
    mutation.merge(services.userService.currentUser.values) { .setUser($0) }
  }

  /// Loads the user, signs out, or leaves for sign-in.
  public func mutate(action: Action) -> Effect {
    switch action {
    case .load:
      let userService = services.userService
      return .task { .setUser(try await userService.loadCurrentUser(forceRefresh: false)) }
        .catch { error in
          // Offline is a state: home greets the user the session knows, and the banner says
          // the app is offline; only another failure is worth an alert.
          guard !ErrorMessage.isOffline(error) else { return .none }
          return .event(
            .alert(
              title: "Could not load your profile", message: ErrorMessage.text(for: error)))
        }
    case .signOut:
      guard !currentState.isSigningOut else { return .none }
      let authService = services.authService
      return .concat(.just(.setSigningOut(true)), .run { _ in await authService.logout() })
    case .sessionEnded(let notice):
      return .event(.showLogin(notice: notice))
    }
  }

  /// Applies a mutation.
  public func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setUser(let user): state.userName = user?.displayName
    case .setSigningOut(let isSigningOut): state.isSigningOut = isSigningOut
    }
    return state
  }
}
