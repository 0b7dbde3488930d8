import Foundation

/// The outcome of one attempt: a response whose status the endpoint accepts, or an error.
public typealias HTTPResult = Result<HTTPResponse, HTTPError>

/// What a plugin knows about the call it is part of.
public struct HTTPCallContext: Sendable {
  /// The endpoint being called.
  public var endpoint: any HTTPEndpoint
  /// The attempt number, from 1; retries and replays increase it.
  public var attempt: Int
  /// How many retries each plugin has asked for so far, by ``HTTPPlugin/name``.
  public var retries: [String: Int]
  /// When the current attempt was handed to the transport (set from `willSend` on).
  public var sentAt: ContinuousClock.Instant?
  /// The requester's base URL.
  public var baseURL: URL?
  /// The origin of ``baseURL``: the server the requester's credentials belong to.
  public var origin: HTTPOrigin?
  /// The request the previous attempt sent, as the plugins prepared it; `nil` on the first
  /// attempt. A plugin that attaches credentials compares them with what it would attach now
  /// (the auth plugin refuses to send a retry with another session's token).
  public var previousRequest: HTTPRequest?

  /// Creates a context for the first attempt.
  public init(endpoint: any HTTPEndpoint, baseURL: URL? = nil) {
    self.init(endpoint: endpoint, baseURL: baseURL, origin: baseURL.flatMap(HTTPOrigin.init))
  }

  /// Creates a context with the base URL's origin already computed (a requester does it once).
  init(endpoint: any HTTPEndpoint, baseURL: URL?, origin: HTTPOrigin?) {
    self.endpoint = endpoint
    self.baseURL = baseURL
    self.origin = origin
    attempt = 1
    retries = [:]
  }

  /// How many retries the plugin named `name` has asked for.
  public func retries(by name: String) -> Int {
    retries[name, default: 0]
  }
}

/// A plugin's answer after an attempt.
public enum HTTPRetryDecision: Sendable, Equatable {
  /// This plugin has no reason to retry; the next plugin decides.
  case doNotRetry
  /// Send the request again after the delay (prepared again by every plugin).
  case retry(after: Duration)
  /// Stop and fail the call with this error.
  case fail(HTTPError)
}

/// A hook into every request of an ``HTTPRequester``, Moya's `PluginType` with async hooks.
///
/// For each attempt the requester calls, in plugin order: ``prepare(_:context:)`` (change the
/// request: add a token), ``willSend(_:context:)`` (observe it: log), then sends it, then
/// ``didReceive(_:for:context:)`` (observe the result) and
/// ``retryDecision(for:of:context:)`` (the first plugin that does not answer `.doNotRetry`
/// decides). When no plugin retries, ``process(_:for:context:)`` may change the final
/// result. Auth, retry and logging are plugins: the requester has no special cases.
///
/// Every hook has a default that does nothing, so a plugin implements only what it needs.
public protocol HTTPPlugin: Sendable {
  /// The plugin's name, the key of its retries in ``HTTPCallContext/retries``.
  var name: String { get }

  /// Returns the request to send. Throwing fails the call without sending.
  func prepare(_ request: HTTPRequest, context: HTTPCallContext) async throws(HTTPError)
    -> HTTPRequest

  /// Called just before the request is handed to the transport.
  func willSend(_ request: HTTPRequest, context: HTTPCallContext) async

  /// Called with the outcome of the attempt.
  func didReceive(_ result: HTTPResult, for request: HTTPRequest, context: HTTPCallContext) async

  /// Decides whether the call should be retried after this outcome.
  func retryDecision(for result: HTTPResult, of request: HTTPRequest, context: HTTPCallContext)
    async -> HTTPRetryDecision

  /// Returns the final result of the call, possibly changed.
  func process(_ result: HTTPResult, for request: HTTPRequest, context: HTTPCallContext) async
    -> HTTPResult
}

extension HTTPPlugin {
  /// The type's name.
  public var name: String { String(describing: Self.self) }

  /// Leaves the request as it is.
  public func prepare(_ request: HTTPRequest, context: HTTPCallContext) async throws(HTTPError)
    -> HTTPRequest
  {
    request
  }

  /// Does nothing.
  public func willSend(_ request: HTTPRequest, context: HTTPCallContext) async {}

  /// Does nothing.
  public func didReceive(_ result: HTTPResult, for request: HTTPRequest, context: HTTPCallContext)
    async
  {}

  /// Never retries.
  public func retryDecision(
    for result: HTTPResult, of request: HTTPRequest, context: HTTPCallContext
  ) async -> HTTPRetryDecision {
    .doNotRetry
  }

  /// Leaves the result as it is.
  public func process(_ result: HTTPResult, for request: HTTPRequest, context: HTTPCallContext)
    async -> HTTPResult
  {
    result
  }
}
