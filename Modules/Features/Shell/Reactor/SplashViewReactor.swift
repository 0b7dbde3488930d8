import TrellisCore
import TrellisReactor
import TrellisService

/// The first screen: restores the saved session, then sends the user to the main screen or to
/// sign-in.
@MainActor
public final class SplashViewReactor: ReactorProtocol {
  /// What the splash screen can be asked to do.
  public enum Action: Sendable {
    /// Restore the session (sent when the screen appears).
    case start
  }

  /// The splash screen has no state changes; `Never` would do, but a case keeps it readable.
  public enum Mutation: Sendable {
    /// Show `message` under the logo.
    case setMessage(String)
  }

  /// Where to go next.
  public enum Event: Sendable, Equatable {
    /// A session was restored.
    case showMain
    /// No session: sign in.
    case showLogin
  }

  /// What the splash screen shows.
  public struct State: Sendable, Equatable {
    /// The line under the logo.
    public var message = "Restoring your session…"

    /// The state before anything happened.
    public init() {}
  }

  /// Starts restoring.
  public let initialState = State()
  /// The runtime.
  public let runtime = ReactorRuntime<SplashViewReactor>()
  private let services: any SplashViewServiceProvider

  /// Creates the reactor.
  public init(serviceProvider: any SplashViewServiceProvider) {
    services = serviceProvider
  }

  /// Restores the session and tells the view where to go.
  public func mutate(action: Action) -> Effect {
    switch action {
    case .start:
      let authService = services.authService
      return .run { emit in
        let session = await authService.restoreSession()
        emit(.setMessage(session.user.map { "Welcome back, \($0.displayName)." } ?? "Welcome."))
        emit.event(session.user == nil ? .showLogin : .showMain)
      }
    }
  }

  /// Applies a mutation.
  public func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setMessage(let message): state.message = message
    }
    return state
  }
}
