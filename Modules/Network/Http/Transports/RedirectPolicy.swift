import Foundation
import TrellisCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Which redirects ``URLSessionTransport`` follows.
///
/// By default it follows a redirect only within the request's own origin (scheme, host and
/// port), at most ``maximumRedirects`` times, and never from `https` to `http`. A redirect to
/// another origin fails with ``HTTPError/redirectRefused(_:)``: the credentials the request
/// carries (`Authorization`, cookies, API keys) and its body belong to the origin it was made
/// for, and following would hand them to a host the app never chose. With
/// ``CrossOriginRule/followWithoutCredentials`` such a redirect is followed with every
/// sensitive header removed, unless it would re-send a body (a 307 or 308 of a `POST`), which
/// is still refused.
public struct RedirectPolicy: Sendable, Equatable {
  /// What to do with a redirect to another origin.
  public enum CrossOriginRule: Sendable, Equatable {
    /// Fail with ``HTTPError/redirectRefused(_:)`` (the default).
    case refuse
    /// Follow it without the sensitive headers (`SecretRedactor.defaultSensitiveKeys`:
    /// `Authorization`, `Cookie`, `X-API-Key`, ...); a redirect that would re-send the body
    /// is refused.
    case followWithoutCredentials
  }

  /// The most redirects one request may follow; `0` follows none.
  public var maximumRedirects: Int
  /// What to do with a redirect to another origin.
  public var crossOrigin: CrossOriginRule

  /// Creates a policy.
  public init(maximumRedirects: Int = 5, crossOrigin: CrossOriginRule = .refuse) {
    self.maximumRedirects = maximumRedirects
    self.crossOrigin = crossOrigin
  }

  /// Follows no redirect at all.
  public static let never = RedirectPolicy(maximumRedirects: 0)

  /// Decides the redirect of a request first sent to `original`, after `followed` redirects:
  /// the request to send next, or why not.
  ///
  /// - Parameters:
  ///   - status: The redirect's status.
  ///   - from: The URL that answered with the redirect.
  ///   - next: The request URLSession would send next (method and body already adjusted
  ///     for the status).
  ///   - secretHeaders: Header fields the request marked secret (``HTTPRequest/secretFields``),
  ///     dropped like the sensitive ones when the redirect goes to another origin.
  public func decide(
    original: URL, from: URL, status: Int, followed: Int, next: URLRequest,
    secretHeaders: Set<String> = []
  ) -> Result<URLRequest, RedirectRefusal> {
    guard let target = next.url else {
      return .failure(RedirectRefusal(status: status, from: from, to: from, reason: .crossOrigin))
    }
    func refuse(_ reason: RedirectRefusal.Reason) -> Result<URLRequest, RedirectRefusal> {
      .failure(RedirectRefusal(status: status, from: from, to: target, reason: reason))
    }
    guard followed < maximumRedirects else { return refuse(.tooManyRedirects(maximumRedirects)) }
    let originalOrigin = HTTPOrigin(original)
    let targetOrigin = HTTPOrigin(target)
    if originalOrigin?.scheme == "https", targetOrigin?.scheme != "https" {
      return refuse(.insecure)
    }
    if let originalOrigin, originalOrigin == targetOrigin { return .success(next) }
    switch crossOrigin {
    case .refuse:
      return refuse(.crossOrigin)
    case .followWithoutCredentials:
      if let body = next.httpBody, !body.isEmpty { return refuse(.bodyToAnotherOrigin) }
      var stripped = next
      for name in (next.allHTTPHeaderFields ?? [:]).keys
      where SecretRedactor.standard.isSensitive(name)
        || secretHeaders.contains(where: { $0.lowercased() == name.lowercased() })
      {
        stripped.setValue(nil, forHTTPHeaderField: name)
      }
      return .success(stripped)
    }
  }
}
