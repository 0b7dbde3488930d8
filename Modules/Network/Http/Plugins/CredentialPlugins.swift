import Foundation

/// Sends an API key the way an API's description says (OpenAPI's `apiKey` security scheme): in
/// a header or a query item, on the requests that name the scheme
/// (``HTTPEndpoint/credentialSchemes``), to the requester's own origin only.
///
/// ```swift
/// APIKeyPlugin(scheme: "api_key", placement: .header("X-Zq-Key")) { keychain.zqKey }
/// ```
///
/// The key never reaches a log, a description or another host: the field is marked secret
/// (``HTTPRequest/secretFields``), whatever its name. A request that needs the key when `key`
/// gives none fails with `.authentication(.missingCredential)` before anything is sent.
public struct APIKeyPlugin: HTTPPlugin {
  /// Where the key goes.
  public enum Placement: Sendable, Equatable {
    /// In the header field of this name.
    case header(String)
    /// In the query item of this name.
    case query(String)
  }

  /// The security scheme's name in the API's description.
  public let scheme: String
  /// Where the key goes.
  public let placement: Placement
  /// Origins besides the requester's own that receive the key.
  public let allowedOrigins: Set<HTTPOrigin>
  private let key: @Sendable () -> String?

  /// Creates the plugin for `scheme`; `key` is read for each request (`nil` or empty: none).
  public init(
    scheme: String, placement: Placement, allowedOrigins: Set<HTTPOrigin> = [],
    key: @escaping @Sendable () -> String?
  ) {
    self.scheme = scheme
    self.placement = placement
    self.allowedOrigins = allowedOrigins
    self.key = key
  }

  /// `"api-key <scheme>"`.
  public var name: String { "api-key \(scheme)" }

  /// Attaches the key to a request that names the scheme.
  ///
  /// - Throws: `.authentication(.untrustedOrigin)` for another server,
  ///   `.authentication(.missingCredential)` when there is no key.
  public func prepare(_ request: HTTPRequest, context: HTTPCallContext) async throws(HTTPError)
    -> HTTPRequest
  {
    guard context.endpoint.credentialSchemes.contains(scheme) else { return request }
    try Self.checkOrigin(of: request, context: context, allowed: allowedOrigins)
    guard let key = key(), !key.isEmpty else {
      throw .authentication(.missingCredential(scheme))
    }
    var request = request
    switch placement {
    case .header(let field):
      request.headers[field] = key
      request.secretFields.insert(field.lowercased())
    case .query(let item):
      guard var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
      else { throw .invalidRequest("the API key cannot be added to \(request.target)") }
      components.percentEncodedQueryItems =
        (components.percentEncodedQueryItems ?? [])
        + [URLQueryItem(name: PercentEncoding.encode(item), value: PercentEncoding.encode(key))]
      guard let url = components.url else {
        throw .invalidRequest("the API key cannot be added to \(request.target)")
      }
      request.url = url
      request.secretFields.insert(item.lowercased())
    }
    return request
  }

  /// Refuses a request to a server the credential does not belong to.
  static func checkOrigin(
    of request: HTTPRequest, context: HTTPCallContext, allowed: Set<HTTPOrigin>
  ) throws(HTTPError) {
    guard let origin = HTTPOrigin(request.url), context.origin == origin || allowed.contains(origin)
    else {
      throw .authentication(
        .untrustedOrigin(HTTPOrigin(request.url)?.description ?? "an invalid URL"))
    }
  }
}

/// Sends a user name and password with HTTP Basic authentication (OpenAPI's `http` security
/// scheme `basic`) on the requests that name the scheme, to the requester's own origin only.
/// The header is marked secret like the session's.
public struct BasicAuthPlugin: HTTPPlugin {
  /// The security scheme's name in the API's description.
  public let scheme: String
  /// Origins besides the requester's own that receive the credentials.
  public let allowedOrigins: Set<HTTPOrigin>
  private let credentials: @Sendable () -> (user: String, password: String)?

  /// Creates the plugin for `scheme`; `credentials` is read for each request.
  public init(
    scheme: String, allowedOrigins: Set<HTTPOrigin> = [],
    credentials: @escaping @Sendable () -> (user: String, password: String)?
  ) {
    self.scheme = scheme
    self.allowedOrigins = allowedOrigins
    self.credentials = credentials
  }

  /// `"basic-auth <scheme>"`.
  public var name: String { "basic-auth \(scheme)" }

  /// Attaches `Authorization: Basic ...` to a request that names the scheme.
  ///
  /// - Throws: `.authentication(.untrustedOrigin)` for another server,
  ///   `.authentication(.missingCredential)` when there are no credentials.
  public func prepare(_ request: HTTPRequest, context: HTTPCallContext) async throws(HTTPError)
    -> HTTPRequest
  {
    guard context.endpoint.credentialSchemes.contains(scheme) else { return request }
    try APIKeyPlugin.checkOrigin(of: request, context: context, allowed: allowedOrigins)
    guard let (user, password) = credentials() else {
      throw .authentication(.missingCredential(scheme))
    }
    var request = request
    request.headers["Authorization"] =
      "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    return request
  }
}
