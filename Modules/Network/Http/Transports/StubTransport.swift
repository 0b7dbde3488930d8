import Foundation

/// Answers requests in process: Moya's stubbing. Either from each endpoint's ``HTTPEndpoint/stub``
/// (offline and demo mode, unit tests), or from an ``HTTPResponder`` such as an embedded demo
/// backend, so that everything above the transport (plugins, token refresh, decoding) runs
/// for real without a network.
public struct StubTransport: HTTPTransport, StreamingHTTPTransport {
  private enum Source: Sendable {
    case endpointStubs(extraDelay: Duration)
    case responder(any HTTPResponder)
  }

  private let source: Source

  /// Answers with each endpoint's stub, after the stub's delay plus `extraDelay`. An endpoint
  /// without a stub fails with a transport error that names it.
  public init(extraDelay: Duration = .zero) {
    source = .endpointStubs(extraDelay: extraDelay)
  }

  /// Answers every request with `responder`.
  public init(responder: some HTTPResponder) {
    source = .responder(responder)
  }

  /// Returns the stubbed or responded answer; a stub failure is thrown as
  /// ``HTTPError/transport(_:)``. Cancellation during a delay throws `.cancelled`.
  public func send(
    _ request: HTTPRequest, for endpoint: any HTTPEndpoint, progress: HTTPProgressHandler?
  ) async throws(HTTPError) -> HTTPResponse {
    switch source {
    case .responder(let responder):
      let response = try await responder.respond(to: request)
      if Task.isCancelled { throw .transport(TransportFailure(.cancelled)) }
      progress?(1)
      return response
    case .endpointStubs(let extraDelay):
      guard let stub = endpoint.stub else {
        throw .transport(
          TransportFailure(.other, detail: "no stub for \(endpoint.summary) in offline mode"))
      }
      do {
        let delay = stub.delay + extraDelay
        if delay > .zero { try await Task.sleep(for: delay) }
        try Task.checkCancellation()
      } catch {
        throw .transport(TransportFailure(.cancelled))
      }
      switch stub.outcome {
      case .response(let status, let headers, let body):
        progress?(1)
        return HTTPResponse(status: status, headers: headers, body: body, request: request)
      case .failure(let failure):
        throw .transport(failure)
      }
    }
  }

  /// Opens a stream on the responder; endpoint stubs cannot stream, so they fail.
  public func openStream(_ request: HTTPRequest) async throws(HTTPError) -> HTTPStreamingResponse {
    guard case .responder(let responder) = source else {
      throw .transport(TransportFailure(.other, detail: "endpoint stubs cannot stream"))
    }
    return try await responder.respondStreaming(to: request)
  }
}

/// Something that answers HTTP requests in process, such as an embedded backend.
public protocol HTTPResponder: Sendable {
  /// Returns the response to `request`, or throws the transport failure a real connection
  /// would have had (a reset, a dropped connection).
  func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse

  /// Returns the response to `request` with a body that may arrive over time (an event
  /// stream). The default sends ``respond(to:)``'s body as one chunk.
  func respondStreaming(to request: HTTPRequest) async throws(HTTPError) -> HTTPStreamingResponse
}

extension HTTPResponder {
  /// Sends ``respond(to:)``'s body as one chunk.
  public func respondStreaming(to request: HTTPRequest) async throws(HTTPError)
    -> HTTPStreamingResponse
  {
    let response = try await respond(to: request)
    let (body, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    if !response.body.isEmpty { continuation.yield(response.body) }
    continuation.finish()
    return HTTPStreamingResponse(status: response.status, headers: response.headers, body: body)
  }
}
