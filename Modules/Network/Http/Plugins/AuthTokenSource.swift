import Foundation

/// A bearer token and when it stops being valid.
///
/// Its `description` never shows the token itself.
public struct AccessToken: Sendable, Equatable, Codable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The token sent as `Authorization: Bearer <value>`.
  public var value: String
  /// When the token expires; `nil` when unknown.
  public var expiresAt: Date?
  /// When the token was issued; with ``expiresAt`` it gives the token's lifetime, which bounds
  /// how early the auth plugin refreshes it.
  public var issuedAt: Date?

  /// Creates a token.
  public init(value: String, expiresAt: Date?, issuedAt: Date? = nil) {
    self.value = value
    self.expiresAt = expiresAt
    self.issuedAt = issuedAt
  }

  /// How long the token is valid from issue to expiry, when both are known.
  public var lifetime: TimeInterval? {
    guard let expiresAt, let issuedAt else { return nil }
    return expiresAt.timeIntervalSince(issuedAt)
  }

  /// Whether the token expires within `leeway` of `now` (or already has).
  ///
  /// When the lifetime is known the leeway is at most a quarter of it, so a token that lives
  /// less than the leeway is still used for most of its life instead of being refreshed on
  /// every request; a token without a positive lifetime is never refreshed ahead.
  public func expires(within leeway: Duration, of now: Date = Date()) -> Bool {
    guard let expiresAt else { return false }
    var seconds = leeway.inSeconds
    if let lifetime {
      guard lifetime > 0 else { return false }
      seconds = min(seconds, lifetime / 4)
    }
    return expiresAt.timeIntervalSince(now) <= seconds
  }

  /// Whether the token has expired at `now` (a token without an expiry never does).
  public func hasExpired(at now: Date = Date()) -> Bool {
    expiresAt.map { $0 <= now } ?? false
  }

  /// `AccessToken(<redacted>, expires ...)`.
  public var description: String {
    "AccessToken(<redacted>\(expiresAt.map { ", expires \($0)" } ?? ""))"
  }

  /// The same as ``description``.
  public var debugDescription: String { description }
}

/// Where the ``AuthPlugin`` gets tokens: the auth service conforms (dependency inversion, so
/// that Network never imports Service).
public protocol AuthTokenSource: Sendable {
  /// The access token of the current session, or `nil` when signed out. Read on every
  /// request, so it must be cheap and synchronous.
  var currentAccessToken: AccessToken? { get }

  /// Exchanges the session's refresh token for a new access token (one network call) and
  /// stores it, so that ``currentAccessToken`` returns it afterwards. The plugin never calls
  /// this concurrently.
  ///
  /// If the session changed while the call was out (a sign-out, another sign-in), the answer
  /// must not be applied: throw ``AuthenticationFailure/sessionChanged`` (or
  /// ``AuthenticationFailure/notSignedIn``) instead, and the plugin ends nothing.
  ///
  /// Throw ``AuthenticationFailure/refreshRejected(_:)`` when the server refused the refresh
  /// token; any other error (unreachable, timed out, 5xx, 429) is taken as temporary unless
  /// ``isRefreshRejection(_:)`` says otherwise, and the session is kept.
  func refreshAccessToken() async throws -> AccessToken

  /// Whether `error`, thrown by ``refreshAccessToken()``, means the server refused the session,
  /// so that it must end. Only the server ends a session: a refresh that could not reach it, or
  /// that it could not answer now, keeps the session for the next request to try again.
  ///
  /// Default: ``AuthenticationFailure/refreshRejected(_:)``, or an ``HTTPError`` whose response
  /// ``HTTPResponse/refusesRefreshToken`` (a `401`, or a `400` with OAuth's `invalid_grant`).
  /// Anything else (a proxy's or a firewall's `403`, a `413`, a sign-in portal's page) is not the
  /// server ending the session.
  func isRefreshRejection(_ error: any Error) -> Bool

  /// The server refused the refresh of `token`: end the session it belongs to, so the user
  /// signs in again, unless that session has already ended or been replaced (then do nothing).
  func invalidateSession(of token: AccessToken, because failure: AuthenticationFailure) async

  /// Whether `response` says the request's credentials were not accepted, so the plugin
  /// should refresh the token and replay. Default: the status is `401`.
  func isAuthenticationFailure(_ response: HTTPResponse) -> Bool
}

extension AuthTokenSource {
  /// A `401 Unauthorized`.
  public func isAuthenticationFailure(_ response: HTTPResponse) -> Bool {
    response.status == 401
  }

  /// ``AuthenticationFailure/refreshRejected(_:)``, or an answer that
  /// ``HTTPResponse/refusesRefreshToken``.
  public func isRefreshRejection(_ error: any Error) -> Bool {
    if case .refreshRejected = error as? AuthenticationFailure { return true }
    return (error as? HTTPError)?.response?.refusesRefreshToken ?? false
  }
}

extension HTTPResponse {
  /// Whether this answer to a token refresh is the server refusing the refresh token, so the
  /// session must end: a `401`, or a `400` whose JSON body names OAuth's `invalid_grant`
  /// (RFC 6749, section 5.2: `{"error": "invalid_grant"}`; a `"code"` field is read too).
  ///
  /// Nothing else is: a `403` or `409` from a CDN's or firewall's challenge page, a proxy's
  /// `413`, a `422`, a `400` without `invalid_grant` (a request the client got wrong) or a
  /// portal's `200` page come from something between the app and the server, or from a fault
  /// the next attempt may not have; ending the session on them would sign the user out and
  /// delete their session for good.
  public var refusesRefreshToken: Bool {
    switch status {
    case 401: return true
    case 400:
      // An error body is small; a large one is a page, not an OAuth error.
      guard body.count <= 64 * 1024,
        let error = try? JSONDecoder().decode(OAuthErrorBody.self, from: body)
      else { return false }
      return error.error == "invalid_grant" || error.code == "invalid_grant"
    default: return false
    }
  }
}

/// The fields of an OAuth error answer that say why a grant was refused.
private struct OAuthErrorBody: Decodable {
  var error: String?
  var code: String?
}
