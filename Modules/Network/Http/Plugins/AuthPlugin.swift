import Foundation

/// Attaches the session's bearer token to requests that need one, and keeps it fresh.
///
/// - Before sending, a token that expires within ``leeway`` is refreshed first.
/// - On `401`, the plugin refreshes only if the request carried the current token; if the
///   token changed meanwhile, the request is simply replayed with the newer one.
/// - However many requests need a refresh at once, one refresh call serves them all.
/// - A request is replayed after a `401` at most once; a second `401` fails with
///   `.authentication(.rejected)`.
/// - More than `maximumRefreshes` refreshes within `refreshWindow` fail with
///   `.authentication(.refreshLoop)` instead of looping.
/// - When a refresh fails, every waiting request fails with `.authentication(.refreshFailed)`
///   and the token source is told to end the session.
public struct AuthPlugin: HTTPPlugin {
  private let source: any AuthTokenSource
  private let refresher: TokenRefresher
  /// How long before expiry a token is refreshed ahead of a request.
  public let leeway: Duration

  /// Creates the plugin for `source` (FLo: `AuthPlugin(authService:)`).
  public init(
    source: any AuthTokenSource, leeway: Duration = .seconds(10), maximumRefreshes: Int = 3,
    refreshWindow: Duration = .seconds(30)
  ) {
    self.source = source
    self.leeway = leeway
    refresher = TokenRefresher(
      source: source, maximumRefreshes: maximumRefreshes, window: refreshWindow)
  }

  /// `"auth"`.
  public var name: String { "auth" }

  /// How many refresh calls the plugin has made.
  public var refreshCount: Int { refresher.refreshCount }

  /// Attaches `Authorization: Bearer <token>`, refreshing a token about to expire.
  ///
  /// - Throws: `.authentication(.notSignedIn)` when there is no session.
  public func prepare(_ request: HTTPRequest, context: HTTPCallContext) async throws(HTTPError)
    -> HTTPRequest
  {
    guard context.endpoint.requiresAuthentication else { return request }
    guard var token = source.currentAccessToken else { throw .authentication(.notSignedIn) }
    if token.expires(within: leeway) {
      token = try await refresher.freshToken(replacing: token.value)
    }
    var request = request
    request.headers["Authorization"] = "Bearer \(token.value)"
    return request
  }

  /// On `401`: refresh (once for all waiting requests) and replay, at most once per request.
  public func retryDecision(
    for result: HTTPResult, of request: HTTPRequest, context: HTTPCallContext
  ) async -> HTTPRetryDecision {
    guard context.endpoint.requiresAuthentication,
      case .failure(.unacceptableStatus(let response)) = result, response.status == 401
    else { return .doNotRetry }
    guard context.retries(by: name) == 0 else { return .fail(.authentication(.rejected)) }
    let sentToken = request.headers["Authorization"].map { String($0.dropFirst("Bearer ".count)) }
    do {
      _ = try await refresher.freshToken(replacing: sentToken)
      return .retry(after: .zero)
    } catch {
      return .fail(error)
    }
  }
}
