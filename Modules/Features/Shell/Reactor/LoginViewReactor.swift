import TrellisCore
import TrellisReactor
import TrellisService

/// Sign-in: a user name, a password, and errors shown as alerts.
@MainActor
public final class LoginViewReactor: ReactorProtocol {
  /// What the user does.
  public enum Action: Sendable, Equatable {
    /// Typed the user name.
    case setUsername(String)
    /// Typed the password.
    case setPassword(String)
    /// Tapped "Sign in".
    case signIn
  }

  /// State changes.
  public enum Mutation: Sendable, Equatable {
    /// The user name changed.
    case setUsername(String)
    /// The password changed.
    case setPassword(String)
    /// Signing in started or ended.
    case setSigningIn(Bool)
  }

  /// One-shot outputs.
  public enum Event: Sendable, Equatable {
    /// Show an alert.
    case alert(title: String, message: String)
    /// Signed in: go to the main screen.
    case signedIn
  }

  /// What the sign-in screen shows.
  public struct State: Sendable, Equatable {
    /// The user name field.
    public var username = ""
    /// The password field.
    public var password = ""
    /// Whether a sign-in is in flight.
    public var isSigningIn = false
    /// Why the user is here (a session that ended), if it ended.
    public var notice: String?

    /// Whether "Sign in" can be tapped.
    public var canSignIn: Bool { !username.isEmpty && !password.isEmpty && !isSigningIn }

    /// The state before anything happened.
    public init() {}
  }

  /// Empty fields, with the notice given at creation.
  public let initialState: State
  /// The runtime.
  public let runtime = ReactorRuntime<LoginViewReactor>()
  private let services: any LoginViewServiceProvider

  /// Creates the reactor; `notice` explains an ended session.
  public init(serviceProvider: any LoginViewServiceProvider, notice: String? = nil) {
    services = serviceProvider
    var state = State()
    state.notice = notice
    initialState = state
  }

  /// Edits the fields, or signs in.
  public func mutate(action: Action) -> Effect {
    switch action {
    case .setUsername(let username): return .just(.setUsername(username))
    case .setPassword(let password): return .just(.setPassword(password))
    case .signIn:
      let state = currentState
      guard state.canSignIn else { return .none }
      let authService = services.authService
      return .concat(
        .just(.setSigningIn(true)),
        .run { emit in
          _ = try await authService.login(username: state.username, password: state.password)
          emit.event(.signedIn)
        },
        .just(.setSigningIn(false))
      )
      .catch { error in
        // The user name stays; the password that failed goes, as sign-in forms do.
        .concat(
          .event(.alert(title: "Sign-in failed", message: ErrorMessage.text(for: error))),
          .just(.setPassword("")),
          .just(.setSigningIn(false)))
      }
    }
  }

  /// Applies a mutation.
  public func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setUsername(let username): state.username = username
    case .setPassword(let password): state.password = password
    case .setSigningIn(let isSigningIn): state.isSigningIn = isSigningIn
    }
    return state
  }

}
