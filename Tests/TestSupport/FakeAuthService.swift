import Foundation
import Synchronization
import TrellisCore
import TrellisNetwork
import TrellisService

/// An ``AuthService`` whose answers the test sets; sign-in waits on a gate when asked to.
public final class FakeAuthService: AuthService {
  /// The session state, which tests may also send to directly.
  public let sessionState: Relay<SessionState>
  private struct State {
    var restored: SessionState
    var loginResult: Result<User, ServiceError>
    var calls: [String] = []
  }

  private let state: Mutex<State>

  /// Creates the fake; `restored` is what ``restoreSession()`` finds.
  public init(restored: SessionState = .signedOut, user: User = .alice) {
    sessionState = Relay(.signedOut)
    state = Mutex(State(restored: restored, loginResult: .success(user)))
  }

  /// Every call, in order.
  public var calls: [String] { state.withLock { $0.calls } }

  /// Sets what sign-in returns.
  public func setLoginResult(_ result: Result<User, ServiceError>) {
    state.withLock { $0.loginResult = result }
  }

  /// Publishes the restored state.
  public func restoreSession() async -> SessionState {
    let restored = state.withLock { state in
      state.calls.append("restore")
      return state.restored
    }
    sessionState.send(restored)
    return restored
  }

  /// Answers the set result and publishes `.signedIn` on success.
  public func login(username: String, password: String) async throws(ServiceError) -> User {
    let result = state.withLock { state in
      state.calls.append("login \(username) \(password)")
      return state.loginResult
    }
    let user = try result.get()
    sessionState.send(.signedIn(user))
    return user
  }

  /// Publishes `.signedOut`.
  public func logout() async {
    state.withLock { $0.calls.append("logout") }
    sessionState.send(.signedOut)
  }

  /// Publishes `.expired`.
  public func endSession(reason: String) async {
    state.withLock { $0.calls.append("end \(reason)") }
    sessionState.send(.expired(reason: reason))
  }

  /// A fixed token while signed in.
  public var currentAccessToken: AccessToken? {
    sessionState.value.user == nil ? nil : AccessToken(value: "fake", expiresAt: nil)
  }

  /// Refreshing is not part of what screens do; it fails.
  public func refreshAccessToken() async throws -> AccessToken {
    throw ServiceError(.unauthorized, "The fake does not refresh.")
  }

  /// Ends the session.
  public func invalidateSession(of token: AccessToken, because failure: AuthenticationFailure)
    async
  {
    await endSession(reason: "\(failure)")
  }
}

extension User {
  /// The demo's first user.
  public static let alice = User(
    id: 1, username: "alice", displayName: "Alice Kim", email: "alice@trellis.example",
    title: "iOS Engineer", bio: "")
}
