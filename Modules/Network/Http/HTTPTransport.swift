import Foundation

/// Called with the fraction (0...1) of the request body sent so far.
public typealias HTTPProgressHandler = @Sendable (Double) -> Void

/// A transport that may keep connections open between calls, and can be told to open new ones.
public protocol ConnectionResettable: Sendable {
  /// Opens new connections for the calls from now on: the network may have changed, and a
  /// connection kept open from before may be dead without knowing it (after a tunnel or a
  /// handover a kept-alive connection falls silent; it is not closed). A transport may end its
  /// idempotent calls in flight as ``TransportFailure/Kind/connectionReplaced`` so that they are
  /// sent again over new connections (``URLSessionTransport`` does). Default: nothing (a
  /// transport that keeps no connections).
  func resetConnections()
}

extension ConnectionResettable {
  /// Nothing: this transport keeps no connections.
  public func resetConnections() {}
}

/// Sends one request and returns the response, whatever its status: the part of the stack
/// that touches the network (or pretends to).
///
/// Trellis has two: ``URLSessionTransport`` for real HTTP and ``StubTransport`` for the
/// endpoints' stub answers or an in-process backend. Cancelling the calling task must cancel
/// the request and throw ``HTTPError/transport(_:)`` with kind `.cancelled`.
public protocol HTTPTransport: ConnectionResettable {
  /// Sends `request` (built from `endpoint`) and returns the response.
  ///
  /// - Parameter progress: Told how much of the body has been sent, where the transport can
  ///   tell; it may never be called.
  func send(_ request: HTTPRequest, for endpoint: any HTTPEndpoint, progress: HTTPProgressHandler?)
    async throws(HTTPError) -> HTTPResponse
}

/// A response whose body arrives over time: a server-sent-event stream.
public struct HTTPStreamingResponse: Sendable {
  /// The status code.
  public var status: Int
  /// The header fields.
  public var headers: HTTPHeaders
  /// The body, chunk by chunk as it arrives. It ends when the server ends the response, and
  /// throws ``HTTPError/transport(_:)`` when the connection drops.
  public var body: AsyncThrowingStream<Data, any Error>
  /// The request this answers, when the one who opened the stream recorded it (for errors
  /// that name the request).
  public var request: HTTPRequest?

  /// Creates a streaming response.
  public init(
    status: Int, headers: HTTPHeaders, body: AsyncThrowingStream<Data, any Error>,
    request: HTTPRequest? = nil
  ) {
    self.status = status
    self.headers = headers
    self.body = body
    self.request = request
  }
}

/// A transport that can deliver a response body incrementally, for event streams.
public protocol StreamingHTTPTransport: ConnectionResettable {
  /// Sends `request` and returns as soon as the status and headers arrive. Cancelling the
  /// task iterating the body closes the connection.
  func openStream(_ request: HTTPRequest) async throws(HTTPError) -> HTTPStreamingResponse
}
