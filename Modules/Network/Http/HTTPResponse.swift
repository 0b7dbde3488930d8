import Foundation

/// A response as the transport received it.
///
/// Its `description` shows the status, the request and the body's size: never a header
/// secret, a token in the query, or the body (which may hold tokens).
public struct HTTPResponse: Sendable, Equatable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The status code.
  public var status: Int
  /// The header fields.
  public var headers: HTTPHeaders
  /// The body bytes.
  public var body: Data
  /// The request that produced this response, as it was finally sent.
  public var request: HTTPRequest

  /// Creates a response.
  public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data(), request: HTTPRequest) {
    self.status = status
    self.headers = headers
    self.body = body
    self.request = request
  }

  /// `200 for GET https://host/path (214-byte body)`.
  public var description: String {
    "\(status) for \(request.method) \(request.redactedURL) (\(body.count)-byte body)"
  }

  /// The same as ``description``, with the headers (secret values redacted).
  public var debugDescription: String {
    headers.isEmpty ? description : "\(description) [\(headers.redactedSummary())]"
  }

  /// The body as UTF-8 text (invalid bytes replaced), for messages and logs.
  public var text: String {
    String(decoding: body, as: UTF8.self)
  }

  /// Decodes the body as JSON into `type`.
  ///
  /// - Throws: ``HTTPError/decoding(_:)`` naming the type, the path of the failing key and
  ///   the reason.
  public func decode<Value: Decodable>(
    _ type: Value.Type = Value.self, using decoder: JSONDecoder = JSONDecoder()
  ) throws(HTTPError) -> Value {
    do {
      return try decoder.decode(type, from: body)
    } catch let error as DecodingError {
      throw .decoding(DecodingFailure(type: type, error: error, response: self))
    } catch {
      throw .decoding(
        DecodingFailure(
          typeName: String(describing: type), codingPath: "", reason: "\(error)", response: self))
    }
  }
}
