import Foundation
import Network

/// The auth endpoints. None goes through the auth plugin: sign-in and refresh run without a
/// token, and sign-out carries the token it ends itself (so the auth service, which the plugin
/// depends on, can use this API without a cycle).
public enum AuthDataAPI: HTTPEndpoint {
  /// `POST /auth/login`.
  case login(CredentialsModel)
  /// `POST /auth/refresh`.
  case refresh(RefreshTokenModel)
  /// `POST /auth/logout`, signed with `accessToken`.
  case logout(accessToken: String)

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
    case .refresh(let token): .json(token)
    case .logout: .none
    }
  }

  /// The token being ended, for sign-out.
  public var headers: HTTPHeaders {
    guard case .logout(let token) = self else { return [:] }
    return ["Authorization": "Bearer \(token)"]
  }

  /// Never: see the type's comment.
  public var requiresAuthentication: Bool { false }
}
