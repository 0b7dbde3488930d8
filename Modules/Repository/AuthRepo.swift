import TrellisNetwork

/// Signs in, refreshes and signs out against the auth endpoints. Nothing is cached: the
/// session itself is kept by the auth service.
public protocol AuthRepo: Sendable {
  /// Exchanges a user name and password for tokens.
  func login(username: String, password: String) async throws(RepositoryError) -> TokensModel
  /// Exchanges a refresh token for new tokens (the old refresh token stops working).
  func refresh(refreshToken: String) async throws(RepositoryError) -> TokensModel
  /// Ends the session that `refreshToken` belongs to on the server (its access tokens stop
  /// working too).
  func logout(refreshToken: String) async throws(RepositoryError)
}

/// The ``AuthRepo`` that calls ``AuthDataAPI``.
public final class AuthRepoImpl: AuthRepo {
  private let requester: HTTPRequester<AuthDataAPI>

  /// Creates the repository. Its requester must not carry the auth plugin (see
  /// ``AuthDataAPI``).
  public init(requester: HTTPRequester<AuthDataAPI>) {
    self.requester = requester
  }

  /// See ``AuthRepo/login(username:password:)``.
  public func login(username: String, password: String) async throws(RepositoryError)
    -> TokensModel
  {
    try await requester.fetch(
      .login(CredentialsModel(username: username, password: password)), as: TokensModel.self)
  }

  /// See ``AuthRepo/refresh(refreshToken:)``.
  public func refresh(refreshToken: String) async throws(RepositoryError) -> TokensModel {
    try await requester.fetch(
      .refresh(RefreshTokenModel(refreshToken: refreshToken)), as: TokensModel.self)
  }

  /// See ``AuthRepo/logout(refreshToken:)``.
  public func logout(refreshToken: String) async throws(RepositoryError) {
    try await requester.send(.logout(RefreshTokenModel(refreshToken: refreshToken)))
  }
}
