import TrellisCore
import TrellisNetwork

/// Where the user's session stands.
public enum SessionState: Sendable, Equatable {
  /// No session: show sign-in.
  case signedOut
  /// Signed in as the user.
  case signedIn(User)
  /// The session ended without the user signing out (refresh refused, revoked on the
  /// server); `reason` says why, for the sign-in screen.
  case expired(reason: String)

  /// The signed-in user, if any.
  public var user: User? {
    if case .signedIn(let user) = self { return user }
    return nil
  }
}

/// Signs the user in and out and keeps the session (FLo's `AuthService`). It is also the
/// Network layer's token source, so the auth plugin attaches its token and asks it to refresh.
///
/// Implementations: ``AuthServiceImpl`` (the backend's token API, session persisted by a
/// ``SessionStore``); tests use fakes.
public protocol AuthService: AuthTokenSource {
  /// The session state; reactors merge its changes (an expired session returns to sign-in
  /// from anywhere).
  var sessionState: Relay<SessionState> { get }

  /// Loads the saved session, if any, and publishes the result. Called once at start-up.
  func restoreSession() async -> SessionState

  /// Signs in and publishes `.signedIn`.
  func login(username: String, password: String) async throws(ServiceError) -> User

  /// Signs out (on the server too, when it can be reached) and publishes `.signedOut`.
  func logout() async

  /// Ends the session because the server says so, and publishes `.expired(reason:)`.
  func endSession(reason: String) async
}
