import Foundation

/// Sends the requests an API's endpoints describe, through a chain of plugins: FLo's
/// `HTTPRequester<userDataAPI>(plugins: [AuthPlugin(authService:)])` on Foundation alone.
///
/// ```swift
/// let userRequester = HTTPRequester<UserDataAPI>(
///   baseURL: server, transport: URLSessionTransport(),
///   plugins: [authPlugin, RetryPlugin(), LoggingPlugin()])
/// let user = try await userRequester.request(.me, as: UserDTO.self)
/// ```
///
/// Every failure is an ``HTTPError``. Cancelling the calling task cancels the request in
/// flight (or the wait before a retry) and throws `.transport` with kind `.cancelled`.
public final class HTTPRequester<API: HTTPEndpoint>: Sendable {
  /// Settings shared by all of a requester's calls.
  public struct Configuration: Sendable {
    /// The timeout of endpoints that do not set their own.
    public var defaultTimeout: Duration = .seconds(30)
    /// The most attempts one call may make, whatever the plugins decide: a last guard
    /// against retry loops between plugins.
    public var maximumAttempts = 8
    /// Encodes `.json` bodies.
    public var encoder = JSONEncoder()
    /// Decodes responses in ``HTTPRequester/request(_:as:)``.
    public var decoder = JSONDecoder()
    /// Waits before a retry. Replaceable in tests, to record delays instead of waiting.
    public var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    /// The default configuration.
    public init() {}
  }

  /// The server of endpoints that do not name their own.
  public let baseURL: URL?
  /// The origin of ``baseURL``, computed once.
  private let origin: HTTPOrigin?
  private let transport: any HTTPTransport
  private let plugins: [any HTTPPlugin]
  private let configuration: Configuration

  /// Creates a requester that sends to `baseURL` through `transport`, passing each request
  /// through `plugins` in order.
  public init(
    baseURL: URL? = nil, transport: any HTTPTransport, plugins: [any HTTPPlugin] = [],
    configuration: Configuration = Configuration()
  ) {
    self.baseURL = baseURL
    origin = baseURL.flatMap(HTTPOrigin.init)
    self.transport = transport
    self.plugins = plugins
    self.configuration = configuration
  }

  /// Sends the request `endpoint` describes and returns a response with an acceptable status.
  ///
  /// - Parameter progress: Told how much of the body has been sent (uploads), where the
  ///   transport can tell.
  /// - Throws: ``HTTPError``: transport failures, unacceptable statuses (with the response),
  ///   authentication failures, and invalid requests.
  public func request(_ endpoint: API, progress: HTTPProgressHandler? = nil)
    async throws(HTTPError) -> HTTPResponse
  {
    let base = try HTTPRequest(
      endpoint: endpoint, baseURL: baseURL, encoder: configuration.encoder,
      defaultTimeout: configuration.defaultTimeout)
    var context = HTTPCallContext(endpoint: endpoint, baseURL: baseURL, origin: origin)
    while true {
      if Task.isCancelled { throw .transport(TransportFailure(.cancelled)) }
      var request = base
      for plugin in plugins { request = try await plugin.prepare(request, context: context) }
      context.sentAt = ContinuousClock.now
      for plugin in plugins { await plugin.willSend(request, context: context) }

      var result = await send(request, endpoint: endpoint, progress: progress)
      for plugin in plugins { await plugin.didReceive(result, for: request, context: context) }

      switch await retryDecision(for: result, of: request, context: context) {
      case .retry(let delay, let plugin):
        do {
          if delay > .zero { try await configuration.sleep(delay) }
        } catch {
          throw .transport(TransportFailure(.cancelled, detail: "cancelled while waiting to retry"))
        }
        context.attempt += 1
        context.retries[plugin, default: 0] += 1
        context.previousRequest = request
        continue
      case .fail(let error):
        result = .failure(error)
      case .none:
        break
      }
      for plugin in plugins {
        result = await plugin.process(result, for: request, context: context)
      }
      return try result.get()
    }
  }

  /// Sends the request and decodes the body as JSON into `type` with the configured decoder.
  ///
  /// - Throws: ``HTTPError``; a body that does not decode throws ``HTTPError/decoding(_:)``
  ///   with the path of the failing key.
  public func request<Value: Decodable>(
    _ endpoint: API, as type: Value.Type, progress: HTTPProgressHandler? = nil
  ) async throws(HTTPError) -> Value {
    try await request(endpoint, progress: progress).decode(type, using: configuration.decoder)
  }

  /// Builds the request for `endpoint` and passes it through every plugin's `prepare` (the
  /// auth plugin attaches a token), without sending it: for connections a transport keeps
  /// open, such as an event stream.
  public func preparedRequest(for endpoint: API) async throws(HTTPError) -> HTTPRequest {
    var request = try HTTPRequest(
      endpoint: endpoint, baseURL: baseURL, encoder: configuration.encoder,
      defaultTimeout: configuration.defaultTimeout)
    let context = HTTPCallContext(endpoint: endpoint, baseURL: baseURL, origin: origin)
    for plugin in plugins { request = try await plugin.prepare(request, context: context) }
    return request
  }

  /// Asks the plugins whether a response a stream connection got should be retried (the
  /// auth plugin refreshes on 401), as ``request(_:progress:)`` does for its own attempts.
  public func retryDecision(for response: HTTPResponse, endpoint: API, attempt: Int)
    async -> HTTPRetryDecision
  {
    var context = HTTPCallContext(endpoint: endpoint, baseURL: baseURL, origin: origin)
    context.attempt = attempt
    let result = accepting(response, endpoint: endpoint)
    return switch await retryDecision(for: result, of: response.request, context: context) {
    case .retry(let delay, _): .retry(after: delay)
    case .fail(let error): .fail(error)
    case .none: .doNotRetry
    }
  }

  private enum Decision {
    case retry(Duration, plugin: String)
    case fail(HTTPError)
  }

  private func retryDecision(
    for result: HTTPResult, of request: HTTPRequest, context: HTTPCallContext
  ) async -> Decision? {
    if case .failure(let error) = result, error.isCancellation { return nil }
    for plugin in plugins {
      switch await plugin.retryDecision(for: result, of: request, context: context) {
      case .doNotRetry:
        continue
      case .retry(let delay):
        guard context.attempt < configuration.maximumAttempts else { return nil }
        return .retry(delay, plugin: plugin.name)
      case .fail(let error):
        return .fail(error)
      }
    }
    return nil
  }

  private func send(_ request: HTTPRequest, endpoint: API, progress: HTTPProgressHandler?) async
    -> HTTPResult
  {
    do {
      let response = try await transport.send(request, for: endpoint, progress: progress)
      return accepting(response, endpoint: endpoint)
    } catch {
      return .failure(error)
    }
  }

  private func accepting(_ response: HTTPResponse, endpoint: API) -> HTTPResult {
    endpoint.acceptableStatusCodes.contains(response.status)
      ? .success(response) : .failure(.unacceptableStatus(response))
  }
}
