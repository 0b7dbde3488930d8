import Foundation
import TrellisNetwork

/// The auth endpoints. None goes through the auth plugin: sign-in and refresh run without a
/// token, and sign-out names the session it ends by its refresh token, which outlives an
/// expired access token (so the auth service, which the plugin depends on, can use this API
/// without a cycle).
public enum AuthDataAPI: HTTPEndpoint {
  /// `POST /auth/login`.
  case login(CredentialsModel)
  /// `POST /auth/refresh`.
  case refresh(RefreshTokenModel)
  /// `POST /auth/logout`: ends the session `refreshToken` belongs to, even when its access
  /// token has expired.
  case logout(RefreshTokenModel)

  /// The endpoint's path.
  public var path: String {
    switch self {
    case .login: "/auth/login"
    case .refresh: "/auth/refresh"
    case .logout: "/auth/logout"
    }
  }

  /// Always `POST`.
  public var method: HTTPMethod { .post }

  /// The JSON body.
  public var body: HTTPRequestBody {
    switch self {
    case .login(let credentials): .json(credentials)
    case .refresh(let token), .logout(let token): .json(token)
    }
  }

  /// Never: see the type's comment.
  public var requiresAuthentication: Bool { false }

  /// A refresh's own deadline, short: every request that needs a token waits for it, and one
  /// held by a dead connection must not hold them long (the auth service tries once more at
  /// once when no answer came, so a refresh takes at most twice this). Sign-in and sign-out
  /// keep the requester's default.
  public var timeout: Duration? {
    if case .refresh = self { return Self.refreshTimeout }
    return nil
  }

  /// The deadline of one refresh call.
  public static let refreshTimeout: Duration = .seconds(5)
}
