import Foundation
import TrellisCore

/// Why a request failed: the one error type ``HTTPRequester`` throws.
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The request never got a response: unreachable, timed out, connection lost, cancelled.
  case transport(TransportFailure)
  /// The server answered with a status the endpoint does not accept. The response, headers
  /// and body included, is kept so a typed error body can be decoded from it.
  case unacceptableStatus(HTTPResponse)
  /// The response body did not decode into the expected type.
  case decoding(DecodingFailure)
  /// There is no session, the token could not be refreshed, or the server rejected the
  /// refreshed token.
  case authentication(AuthenticationFailure)
  /// The request could not be built (an invalid URL, a body that does not encode).
  case invalidRequest(String)
  /// The server redirected, and the transport's ``RedirectPolicy`` does not follow that
  /// redirect (to another origin, to plain HTTP, or one hop too many).
  case redirectRefused(RedirectRefusal)

  /// Whether the request was cancelled (by its task, or by the transport).
  public var isCancellation: Bool {
    if case .transport(let failure) = self { return failure.kind == .cancelled }
    return false
  }

  /// The response, for ``unacceptableStatus(_:)`` and ``decoding(_:)``.
  public var response: HTTPResponse? {
    switch self {
    case .unacceptableStatus(let response): response
    case .decoding(let failure): failure.response
    default: nil
    }
  }

  /// A one-line explanation.
  public var description: String {
    switch self {
    case .transport(let failure): "Transport failure: \(failure)"
    case .unacceptableStatus(let response):
      "Unacceptable status \(response.status) for \(response.request.method) "
        + "\(response.request.target)"
    case .decoding(let failure): "Decoding failure: \(failure)"
    case .authentication(let failure): "Authentication failure: \(failure)"
    case .invalidRequest(let reason): "Invalid request: \(reason)"
    case .redirectRefused(let refusal): "Redirect refused: \(refusal)"
    }
  }
}

/// Why no response arrived.
public struct TransportFailure: Sendable, Equatable, CustomStringConvertible {
  /// The kinds of transport failure a caller may treat differently.
  public enum Kind: Sendable, Equatable {
    /// The server could not be reached: connection refused, host not found, offline.
    case cannotConnect
    /// The request took longer than its timeout.
    case timedOut
    /// The connection dropped before the response was complete.
    case connectionLost
    /// The transport replaced the connection, which may have been dead (the network changed):
    /// an idempotent call sent again over a new one may succeed at once. Not a sign that the
    /// server is out of reach.
    case connectionReplaced
    /// The request was cancelled.
    case cancelled
    /// The response body was larger than the transport accepts; the transfer was stopped.
    case responseTooLarge
    /// Anything else the transport reported.
    case other
  }

  /// The kind of failure.
  public var kind: Kind
  /// The transport's own description, for logs.
  public var detail: String

  /// Creates a failure.
  public init(_ kind: Kind, detail: String = "") {
    self.kind = kind
    self.detail = detail
  }

  /// Whether trying again later may succeed (timeouts, dropped and refused connections).
  public var isTemporary: Bool {
    [.cannotConnect, .timedOut, .connectionLost, .connectionReplaced].contains(kind)
  }

  /// The kind and detail.
  public var description: String {
    detail.isEmpty ? "\(kind)" : "\(kind) (\(detail))"
  }
}

/// A redirect the transport did not follow, and why.
public struct RedirectRefusal: Error, Sendable, Equatable, CustomStringConvertible {
  /// Why a redirect is not followed.
  public enum Reason: Sendable, Equatable {
    /// It leads to another origin (scheme, host or port) than the request's.
    case crossOrigin
    /// It leads from `https` to plain `http`.
    case insecure
    /// The request has already been redirected the policy's maximum number of times.
    case tooManyRedirects(Int)
    /// It would re-send a request body to another origin (a 307 or 308 of a request with a
    /// body), which the policy does not do.
    case bodyToAnotherOrigin
  }

  /// The redirect status (301, 302, 303, 307 or 308).
  public var status: Int
  /// The URL that answered with the redirect.
  public var from: URL
  /// Where it pointed.
  public var to: URL
  /// Why it was not followed.
  public var reason: Reason

  /// Creates a refusal.
  public init(status: Int, from: URL, to: URL, reason: Reason) {
    self.status = status
    self.from = from
    self.to = to
    self.reason = reason
  }

  /// The status, both origins and the reason; query strings are left out.
  public var description: String {
    let origin = { (url: URL) in HTTPOrigin(url).map(\.description) ?? "an invalid URL" }
    let why =
      switch reason {
      case .crossOrigin: "another origin"
      case .insecure: "a downgrade from https to http"
      case .tooManyRedirects(let count): "more than \(count) redirects"
      case .bodyToAnotherOrigin: "it would re-send the body to another origin"
      }
    return "\(status) from \(origin(from)) to \(origin(to)): \(why)"
  }
}

/// Why a response body did not decode.
public struct DecodingFailure: Sendable, Equatable, CustomStringConvertible {
  /// The type that was expected.
  public var typeName: String
  /// The path of the key that failed, such as `items[2].owner.name`; empty for the root.
  public var codingPath: String
  /// What was wrong there.
  public var reason: String
  /// The response whose body failed to decode.
  public var response: HTTPResponse

  /// Creates a failure.
  public init(typeName: String, codingPath: String, reason: String, response: HTTPResponse) {
    self.typeName = typeName
    self.codingPath = codingPath
    self.reason = reason
    self.response = response
  }

  /// Describes a `DecodingError` for `type`.
  public init(type: Any.Type, error: DecodingError, response: HTTPResponse) {
    let (path, reason): ([any CodingKey], String) =
      switch error {
      case .typeMismatch(let expected, let context):
        (context.codingPath, "expected \(expected): \(context.debugDescription)")
      case .valueNotFound(let expected, let context):
        (context.codingPath, "missing \(expected) value: \(context.debugDescription)")
      case .keyNotFound(let key, let context):
        (context.codingPath + [key], "missing key: \(context.debugDescription)")
      case .dataCorrupted(let context):
        (context.codingPath, "data corrupted: \(context.debugDescription)")
      @unknown default:
        ([], "\(error)")
      }
    self.init(
      typeName: String(describing: type), codingPath: Self.render(path), reason: reason,
      response: response)
  }

  /// `items[2].owner.name` from coding keys.
  static func render(_ path: [any CodingKey]) -> String {
    var rendered = ""
    for key in path {
      if let index = key.intValue {
        rendered += "[\(index)]"
      } else {
        rendered += rendered.isEmpty ? key.stringValue : ".\(key.stringValue)"
      }
    }
    return rendered
  }

  /// The type, the failing path and the reason.
  public var description: String {
    let at = codingPath.isEmpty ? "the root" : "'\(codingPath)'"
    return "\(typeName) at \(at): \(reason)"
  }
}

/// Why authentication failed.
///
/// Only ``refreshRejected(_:)`` ends a session: the server refused the refresh token. A
/// refresh the server could not answer now is ``refreshUnavailable(_:)``, and the session is
/// kept (being offline is a state, not a verdict).
public enum AuthenticationFailure: Error, Sendable, Equatable, CustomStringConvertible {
  /// There is no session: the user is signed out.
  case notSignedIn
  /// The server refused the refresh token (it answered 400 or 401, or the token source said
  /// so): the session has ended and the user must sign in again.
  case refreshRejected(String)
  /// The token could not be refreshed now: the server could not be reached, timed out, or
  /// answered that it cannot serve the refresh (5xx, 429). The session is kept; the next
  /// request tries the refresh again. Every request that waited for the refresh gets this
  /// same error.
  case refreshUnavailable(String)
  /// Too many refreshes in a short time: the server keeps rejecting fresh tokens.
  case refreshLoop(refreshes: Int, window: Duration)
  /// The server rejected the request even after a refresh and a replay.
  case rejected
  /// The session the request was made for ended or was replaced (a sign-out, another
  /// sign-in) while it waited for a token refresh.
  case sessionChanged
  /// The endpoint requires authentication but goes to this origin, which is neither the
  /// requester's nor one the auth plugin allows: the token is not sent there.
  case untrustedOrigin(String)
  /// The endpoint needs the credential of this security scheme (an API key, a user name and
  /// password) and the app has none: nothing was sent.
  case missingCredential(String)

  /// Whether trying again later may succeed with the same session: true only for
  /// ``refreshUnavailable(_:)``.
  public var isTemporary: Bool {
    if case .refreshUnavailable = self { return true }
    return false
  }

  /// A one-line explanation.
  public var description: String {
    switch self {
    case .notSignedIn: "not signed in"
    case .refreshRejected(let reason): "the server refused to refresh the session (\(reason))"
    case .refreshUnavailable(let reason):
      "the session could not be refreshed now; it is kept and tried again (\(reason))"
    case .refreshLoop(let refreshes, let window):
      "stopped after \(refreshes) token refreshes within \(window.readable): the server keeps "
        + "rejecting new tokens"
    case .rejected: "the server rejected the credentials"
    case .sessionChanged: "the session changed while the request waited"
    case .untrustedOrigin(let origin):
      "the token is not sent to \(origin), which is not the requester's origin (allow it "
        + "with AuthPlugin(allowedOrigins:) or mark the endpoint as not requiring authentication)"
    case .missingCredential(let scheme):
      "the request needs the credential of the security scheme \"\(scheme)\" and the app has "
        + "none (give its APIKeyPlugin or BasicAuthPlugin one)"
    }
  }
}
