import Foundation
import TrellisCore

/// Attaches the session's bearer token to requests that need one, and keeps it fresh.
///
/// - The token goes only to the requester's own origin (its base URL's scheme, host and
///   port) and to ``allowedOrigins``: an endpoint that requires authentication but names
///   another server fails with `.authentication(.untrustedOrigin)` before anything is sent.
/// - Before sending, a token that expires within ``leeway`` (at most a quarter of its
///   lifetime) is refreshed first.
/// - When the token source says a response is an authentication failure (by default a
///   `401`), the plugin refreshes only if the request carried the current token; if the token
///   was refreshed meanwhile, the request is simply replayed with the newer one. A request
///   made for a session that has since ended or been replaced fails with
///   `.authentication(.sessionChanged)` instead of being replayed with another user's token;
///   so does a retry another plugin asked for (a `5xx`, a timeout) when the session changed
///   during its wait.
/// - However many requests need a refresh at once, one refresh call serves them all.
/// - A request is replayed after a rejection at most once; a second one fails with
///   `.authentication(.rejected)`.
/// - More than `maximumRefreshes` refreshes after rejections within `refreshWindow` fail with
///   `.authentication(.refreshLoop)` instead of looping.
/// - Only the server ends a session. When it refuses a refresh (by default a `400` or `401`
///   to the refresh call; the token source decides, see
///   ``AuthTokenSource/isRefreshRejection(_:)``), every request waiting for it, and every
///   later request that was sent with the same token, fails with the same
///   `.authentication(.refreshRejected)`, and the token source is told to end that session.
/// - When a refresh cannot be made now (the server is unreachable, times out, answers 5xx or
///   429), every request waiting for it fails with the same
///   `.authentication(.refreshUnavailable)`, the session is kept, and the next request tries
///   the refresh again. A refresh ahead of expiry that cannot be made sends the still-valid
///   token instead.
public struct AuthPlugin: HTTPPlugin {
  private let source: any AuthTokenSource
  private let refresher: TokenRefresher
  private let now: @Sendable () -> Date
  /// How long before expiry a token is refreshed ahead of a request (at most a quarter of its
  /// lifetime).
  public let leeway: Duration
  /// Origins besides the requester's own that receive the token.
  public let allowedOrigins: Set<HTTPOrigin>

  /// Creates the plugin for `source` (FLo: `AuthPlugin(authService:)`). Give every requester
  /// of a token source the same plugin: it knows which token was refreshed from which, and
  /// takes a token it did not refresh for another session's (a request made with the old one
  /// then fails with `.authentication(.sessionChanged)` instead of being sent with it).
  ///
  /// - Parameters:
  ///   - allowedOrigins: Servers besides the requester's base URL that may receive the token
  ///     (an API split over two hosts). Default: none.
  ///   - time: The clock of the refresh-loop window and of the pause after a failed refresh;
  ///     `now`: the date tokens expire by (both replaceable in tests).
  public init(
    source: any AuthTokenSource, leeway: Duration = .seconds(10), maximumRefreshes: Int = 3,
    refreshWindow: Duration = .seconds(30), allowedOrigins: Set<HTTPOrigin> = [],
    time: TimeSource = .continuous, now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.source = source
    self.leeway = leeway
    self.allowedOrigins = allowedOrigins
    self.now = now
    refresher = TokenRefresher(
      source: source, maximumRefreshes: maximumRefreshes, window: refreshWindow, time: time,
      now: now)
  }

  /// `"auth"`.
  public var name: String { "auth" }

  /// How many refresh calls the plugin has made.
  public var refreshCount: Int { refresher.refreshCount }

  /// Attaches `Authorization: Bearer <token>`, refreshing a token about to expire.
  ///
  /// - Throws: `.authentication(.notSignedIn)` when there is no session;
  ///   `.authentication(.untrustedOrigin)` when the request goes to a server the token does
  ///   not belong to.
  public func prepare(_ request: HTTPRequest, context: HTTPCallContext) async throws(HTTPError)
    -> HTTPRequest
  {
    guard context.endpoint.requiresAuthentication else { return request }
    guard let origin = HTTPOrigin(request.url), trusts(origin, context: context) else {
      throw .authentication(
        .untrustedOrigin(HTTPOrigin(request.url)?.description ?? "an invalid URL"))
    }
    guard var token = source.currentAccessToken else { throw .authentication(.notSignedIn) }
    // A retry (a 5xx, a timeout) is prepared again after its wait: if the session changed
    // meanwhile, this request was made for the session before and must not go with the new
    // user's token (checked before any refresh, which would be made for the new session).
    try requireSameSession(token, as: context)
    if token.expires(within: leeway, of: now()) {
      do {
        token = try await refresher.freshToken(replacing: token.value, cause: .expiring)
      } catch {
        // Offline ahead of expiry: the token still works, so the request goes with it.
        guard case .authentication(let failure) = error, failure.isTemporary,
          !token.hasExpired(at: now())
        else { throw error }
      }
    }
    // Again after a refresh ahead of expiry, which may have joined one made for another token.
    try requireSameSession(token, as: context)
    var request = request
    request.headers["Authorization"] = "Bearer \(token.value)"
    return request
  }

  /// Throws `.authentication(.sessionChanged)` unless `token` is the one the previous attempt
  /// of the call was sent with, or was refreshed from it.
  private func requireSameSession(_ token: AccessToken, as context: HTTPCallContext)
    throws(HTTPError)
  {
    guard let sent = Self.bearerToken(of: context.previousRequest) else { return }
    guard refresher.continuesSession(token.value, from: sent) else {
      throw .authentication(.sessionChanged)
    }
  }

  /// The token a prepared request carries, if any.
  private static func bearerToken(of request: HTTPRequest?) -> String? {
    guard let header = request?.headers["Authorization"], header.hasPrefix("Bearer ") else {
      return nil
    }
    return String(header.dropFirst("Bearer ".count))
  }

  /// On an authentication failure: refresh (once for all waiting requests) and replay, at
  /// most once per request.
  public func retryDecision(
    for result: HTTPResult, of request: HTTPRequest, context: HTTPCallContext
  ) async -> HTTPRetryDecision {
    guard context.endpoint.requiresAuthentication,
      case .failure(.unacceptableStatus(let response)) = result,
      source.isAuthenticationFailure(response)
    else { return .doNotRetry }
    guard context.retries(by: name) == 0 else { return .fail(.authentication(.rejected)) }
    let sentToken = Self.bearerToken(of: request)
    do {
      _ = try await refresher.freshToken(replacing: sentToken, cause: .rejected)
      return .retry(after: .zero)
    } catch {
      return .fail(error)
    }
  }

  private func trusts(_ origin: HTTPOrigin, context: HTTPCallContext) -> Bool {
    context.origin == origin || allowedOrigins.contains(origin)
  }
}
