import Foundation
import Synchronization
import TrellisCore
import TrellisNetwork
import TrellisRepository

/// A scripted ``AuthRepo``: answers from its settable results and records calls.
public final class FakeAuthRepo: AuthRepo {
  private struct State {
    var loginResult: Result<TokensModel, RepositoryError>
    var refreshResult: Result<TokensModel, RepositoryError>
    var logoutResult: Result<Void, RepositoryError> = .success(())
    var calls: [String] = []
  }

  private let state: Mutex<State>
  /// Holds `refresh` calls until opened (open by default), so a test can change the session
  /// while a refresh is out.
  public let refreshGate = CallGate()

  /// Creates the fake; sign-in and refresh succeed for `user` by default.
  public init(user: UserModel = .alice) {
    state = Mutex(
      State(
        loginResult: .success(.tokens(for: user, suffix: "1")),
        refreshResult: .success(.tokens(for: user, suffix: "2"))))
  }

  /// Every call, in order: `login alice`, `refresh rt-1`, `logout rt-1`.
  public var calls: [String] { state.withLock { $0.calls } }

  /// Sets what `login` returns.
  public func setLoginResult(_ result: Result<TokensModel, RepositoryError>) {
    state.withLock { $0.loginResult = result }
  }

  /// Sets what `refresh` returns.
  public func setRefreshResult(_ result: Result<TokensModel, RepositoryError>) {
    state.withLock { $0.refreshResult = result }
  }

  /// Sets what `logout` returns.
  public func setLogoutResult(_ result: Result<Void, RepositoryError>) {
    state.withLock { $0.logoutResult = result }
  }

  /// The protocol requirement, answered from the fake's state.
  public func login(username: String, password: String) async throws(RepositoryError)
    -> TokensModel
  {
    try state.withLock { state in
      state.calls.append("login \(username)")
      return state.loginResult
    }.get()
  }

  /// The protocol requirement, answered from the fake's state.
  public func refresh(refreshToken: String) async throws(RepositoryError) -> TokensModel {
    await refreshGate.enter("refresh \(refreshToken)")
    defer { refreshGate.leave() }
    return try state.withLock { state in
      state.calls.append("refresh \(refreshToken)")
      return state.refreshResult
    }.get()
  }

  /// The protocol requirement, answered from the fake's state.
  public func logout(refreshToken: String) async throws(RepositoryError) {
    try state.withLock { state in
      state.calls.append("logout \(refreshToken)")
      return state.logoutResult
    }.get()
  }
}

extension UserModel {
  /// The demo's first user.
  public static let alice = UserModel(
    id: 1, username: "alice", displayName: "Alice Kim", email: "alice@trellis.example",
    title: "iOS Engineer", bio: "")

  /// The demo's second user.
  public static let bob = UserModel(
    id: 2, username: "bob", displayName: "Bob Lee", email: "bob@trellis.example",
    title: "Backend Engineer", bio: "")
}

extension TokensModel {
  /// Tokens `at-<suffix>` and `rt-<suffix>` for `user`, valid for an hour.
  public static func tokens(for user: UserModel, suffix: String) -> TokensModel {
    TokensModel(
      accessToken: "at-\(suffix)", refreshToken: "rt-\(suffix)", expiresIn: 3600, user: user)
  }
}
