import Foundation
import TrellisNetwork

/// What a route answers: a response, a stream of chunks, or a fault to inject.
public struct ServerResponse: Sendable {
  /// How the body is delivered.
  public enum Body: Sendable {
    /// All at once, with `Content-Length`.
    case data(Data)
    /// Over time with chunked encoding (an event stream). The closure writes chunks until it
    /// returns (the response then ends cleanly) or the client goes away (then writes throw and
    /// the task is cancelled). If the closure throws, the response is cut short: the
    /// connection closes without the final chunk, or is reset when it throws
    /// ``Fault/reset``, so tests can drop a stream mid-event.
    case stream(@Sendable (ChunkWriter) async throws -> Void)
  }

  /// Faults a test can ask the server to commit; a streaming body may also throw one.
  public enum Fault: Error, Sendable, Equatable {
    /// Send the status line, headers and half of the body, then close the connection.
    case closeMidResponse
    /// Reset the connection (TCP RST) without answering.
    case reset
    /// Close the connection without answering.
    case closeWithoutResponse
  }

  /// The status code.
  public var status: Int
  /// The header fields.
  public var headers: HTTPHeaders
  /// The body.
  public var body: Body
  /// A fault committed instead of (or part way through) the answer.
  public var fault: Fault?
  /// How long to wait before answering (cancelled if the client goes away).
  public var delay: Duration = .zero

  /// Creates a response with a body sent all at once.
  public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = .data(body)
  }

  /// A JSON response.
  public static func json(_ value: some Encodable, status: Int = 200) -> ServerResponse {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
    return ServerResponse(
      status: status, headers: ["Content-Type": "application/json"], body: body)
  }

  /// A plain-text response.
  public static func text(_ text: String, status: Int = 200) -> ServerResponse {
    ServerResponse(
      status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data(text.utf8))
  }

  /// An empty response with `status`.
  public static func status(_ status: Int, headers: HTTPHeaders = [:]) -> ServerResponse {
    ServerResponse(status: status, headers: headers)
  }

  /// A chunked response whose body `write` produces over time.
  public static func stream(
    status: Int = 200, headers: HTTPHeaders = ["Content-Type": "text/event-stream"],
    _ write: @escaping @Sendable (ChunkWriter) async throws -> Void
  ) -> ServerResponse {
    var response = ServerResponse(status: status, headers: headers)
    response.body = .stream(write)
    return response
  }

  /// A fault instead of an answer (``Fault/closeMidResponse`` sends part of this response).
  public static func fault(_ fault: Fault, partOf response: ServerResponse? = nil)
    -> ServerResponse
  {
    var faulty = response ?? .text(String(repeating: "x", count: 1024))
    faulty.fault = fault
    return faulty
  }

  /// The same response, sent after `delay`.
  public func delayed(by delay: Duration) -> ServerResponse {
    var copy = self
    copy.delay = delay
    return copy
  }
}

/// Writes the chunks of a streamed response.
public protocol ChunkWriter: Sendable {
  /// Sends `data` as one chunk; throws when the client has gone away.
  func write(_ data: Data) async throws
}

extension ChunkWriter {
  /// Sends one server-sent event.
  public func writeEvent(id: String? = nil, event: String? = nil, data: String) async throws {
    var text = ""
    if let id { text += "id: \(id)\n" }
    if let event { text += "event: \(event)\n" }
    for line in data.split(separator: "\n", omittingEmptySubsequences: false) {
      text += "data: \(line)\n"
    }
    try await write(Data((text + "\n").utf8))
  }

  /// Sends a server-sent-events comment line (`:` and `text`), which clients ignore: a
  /// heartbeat that shows an idle stream's connection is alive.
  public func writeComment(_ text: String = "") async throws {
    let line = text.isEmpty ? ":" : ": " + text.replacingOccurrences(of: "\n", with: " ")
    try await write(Data((line + "\n").utf8))
  }
}
