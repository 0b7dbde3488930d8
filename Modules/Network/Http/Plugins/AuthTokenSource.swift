import Foundation

/// A bearer token and when it stops being valid.
public struct AccessToken: Sendable, Equatable, Codable {
  /// The token sent as `Authorization: Bearer <value>`.
  public var value: String
  /// When the token expires; `nil` when unknown.
  public var expiresAt: Date?

  /// Creates a token.
  public init(value: String, expiresAt: Date?) {
    self.value = value
    self.expiresAt = expiresAt
  }

  /// Whether the token expires within `leeway` of `now` (or already has).
  public func expires(within leeway: Duration, of now: Date = Date()) -> Bool {
    guard let expiresAt else { return false }
    let seconds = Double(leeway.components.seconds) + Double(leeway.components.attoseconds) / 1e18
    return expiresAt.timeIntervalSince(now) <= seconds
  }
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
  func refreshAccessToken() async throws -> AccessToken

  /// The session cannot be refreshed: end it, so the user signs in again.
  func invalidateSession(because failure: AuthenticationFailure) async
}
