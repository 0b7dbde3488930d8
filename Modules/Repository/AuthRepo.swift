import TrellisNetwork

/// Signs in, refreshes and signs out against the auth endpoints. Nothing is cached: the
/// session itself is kept by the auth service.
public protocol AuthRepo: Sendable {
  /// Exchanges a user name and password for tokens.
  func login(username: String, password: String) async throws(RepositoryError) -> TokensModel
  /// Exchanges a refresh token for new tokens (the old refresh token stops working).
  ///
  /// - Throws: ``RepositoryError/unauthorized(_:)`` only when the server refused the refresh
  ///   token (``TrellisNetwork/HTTPResponse/refusesRefreshToken``: a `401`, or a `400` with
  ///   `invalid_grant`); any other answer is ``RepositoryError/server(status:_:)`` (a proxy's
  ///   `403` or `413`, a firewall's challenge page), so the session is never ended by something
  ///   between the app and the server.
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
    do {
      return try await requester.request(.refresh(RefreshTokenModel(refreshToken: refreshToken)))
        .decode(TokensModel.self, using: RepositoryCoding.decoder)
    } catch {
      throw Self.refreshFailure(error)
    }
  }

  /// A refresh's failure, decided on the HTTP status: only the server's refusal of the token
  /// is `.unauthorized`.
  static func refreshFailure(_ error: HTTPError) -> RepositoryError {
    guard case .unacceptableStatus(let response) = error else { return RepositoryError(error) }
    let translated = RepositoryError(error)
    if response.refusesRefreshToken {
      return .unauthorized(translated.message)
    }
    let message =
      (try? response.decode(APIErrorModel.self))?.message
      ?? "The server answered the session renewal with status \(response.status)."
    return .server(status: response.status, message)
  }

  /// See ``AuthRepo/logout(refreshToken:)``.
  public func logout(refreshToken: String) async throws(RepositoryError) {
    try await requester.send(.logout(RefreshTokenModel(refreshToken: refreshToken)))
  }
}
