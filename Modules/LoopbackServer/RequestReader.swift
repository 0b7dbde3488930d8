import Foundation
import TrellisNetwork

/// Where a ``RequestReader`` gets bytes: a socket, or memory in tests.
protocol ByteSource {
  /// Appends what arrives (at least one byte) to `buffer`, waiting no later than `deadline`.
  mutating func receive(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant)
    -> ReceiveStatus
}

/// What a receive came to.
enum ReceiveStatus: Equatable {
  /// Bytes were appended.
  case received
  /// The peer closed the connection (or it failed).
  case closed
  /// Nothing arrived before the deadline.
  case timedOut
}

/// What reading the next request came to.
enum ReadOutcome {
  /// A whole request, with what the connection does after answering it.
  case request(ReceivedRequest)
  /// The client closed the connection, or was silent past the idle timeout, between
  /// requests: close without answering.
  case end
  /// The request cannot be served: answer `status` with `reason`, then close.
  case reject(status: Int, reason: String)
}

/// Reads HTTP/1.1 requests off a byte stream, one after another (keep-alive, pipelining),
/// treating every byte as hostile.
///
/// Every size and offset read from the input is checked before it is used: the head, each
/// header field, the body, each chunk size line and the trailer have limits; a chunk size
/// that does not fit what is left of the body limit is refused (413) before any arithmetic
/// could overflow. Every wait has a deadline: the whole head must arrive within the header
/// timeout, and the connection may stay silent no longer than the idle timeout. Parsing is
/// linear: the buffer is scanned once, and consumed bytes are dropped in bulk.
struct RequestReader {
  let limits: LoopbackServer.Limits
  private var buffer: [UInt8] = []
  /// The first byte not yet consumed.
  private var start = 0

  init(limits: LoopbackServer.Limits) {
    self.limits = limits
  }

  /// Bytes received and not yet consumed (pipelined requests wait here).
  var pendingByteCount: Int { buffer.count - start }

  /// Reads the next request from `source`.
  mutating func next(from source: inout some ByteSource) -> ReadOutcome {
    compact()
    // Between requests only the idle timeout applies; the head's deadline starts with its
    // first byte.
    if pendingByteCount == 0 {
      switch source.receive(into: &buffer, until: .now + limits.idleTimeout) {
      case .received: break
      case .closed, .timedOut: return .end
      }
    }
    let headDeadline = ContinuousClock.now + limits.headerTimeout
    guard
      let headEnd = find(crlfcrlf, limit: limits.maximumHeadSize, until: headDeadline, in: &source)
    else { return rejection ?? .end }
    let head = take(headEnd - start)
    start += 4
    return parse(head: head, from: &source)
  }

  // MARK: The head

  private mutating func parse(head: ArraySlice<UInt8>, from source: inout some ByteSource)
    -> ReadOutcome
  {
    // Lines end with CRLF; the head's last line lost its CRLF to the blank line after it.
    let rawLines = head.split(separator: lf, omittingEmptySubsequences: false)
    for line in rawLines.dropLast() where line.last != cr {
      return .reject(status: 400, reason: "bare LF in the head")
    }
    guard rawLines.last?.last != cr else {
      return .reject(status: 400, reason: "bare CR in the head")
    }
    let cleanLines = rawLines.map(Self.droppingCR)
    guard !cleanLines.contains(where: { $0.contains(cr) }) else {
      return .reject(status: 400, reason: "bare CR in the head")
    }
    var lines = cleanLines.makeIterator()
    guard let requestLine = lines.next() else {
      return .reject(status: 400, reason: "empty request")
    }
    let parts = requestLine.split(separator: space, omittingEmptySubsequences: false)
    guard parts.count == 3, let method = Self.token(parts[0]), !parts[1].isEmpty,
      parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F })
    else { return .reject(status: 400, reason: "malformed request line") }
    let version = String(decoding: parts[2], as: UTF8.self)
    guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
      return .reject(status: 505, reason: "only HTTP/1.0 and HTTP/1.1 are served")
    }
    var headers = HTTPHeaders()
    var contentLengths: Set<String> = []
    var fieldCount = 0
    while let line = lines.next() {
      fieldCount += 1
      guard fieldCount <= limits.maximumHeaderFields else {
        return .reject(status: 431, reason: "more than \(limits.maximumHeaderFields) header fields")
      }
      guard let colon = line.firstIndex(of: colon), let name = Self.token(line[..<colon]) else {
        // Also refuses obsolete line folding (a line starting with whitespace).
        return .reject(status: 400, reason: "malformed header field")
      }
      let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
        .trimmingCharacters(in: .whitespaces)
      if name.lowercased() == "content-length" { contentLengths.insert(value) }
      if let existing = headers[name], name.lowercased() != "content-length" {
        headers[name] = existing + ", " + value
      } else {
        headers[name] = value
      }
    }

    let body: Data
    if let encoding = headers["Transfer-Encoding"] {
      // Both framings at once is how requests are smuggled past proxies: refuse it.
      guard contentLengths.isEmpty else {
        return .reject(status: 400, reason: "both Transfer-Encoding and Content-Length")
      }
      guard encoding.lowercased() == "chunked" else {
        return .reject(status: 501, reason: "unsupported Transfer-Encoding \(encoding)")
      }
      switch readChunkedBody(from: &source) {
      case .success(let chunked): body = chunked
      case .failure(let rejection): return rejection.outcome
      }
    } else if let lengthText = contentLengths.first {
      guard contentLengths.count == 1, !lengthText.isEmpty, lengthText.utf8.count <= 19,
        lengthText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(lengthText)
      else { return .reject(status: 400, reason: "bad Content-Length") }
      guard length <= limits.maximumBodySize else {
        return .reject(
          status: 413, reason: "a body of \(length) bytes (at most \(limits.maximumBodySize))")
      }
      guard fill(length, in: &source) else { return rejection ?? .end }
      body = Data(take(length))
    } else {
      body = Data()
    }

    let target = String(decoding: parts[1], as: UTF8.self)
    let components = URLComponents(string: target)
    // Kept encoded: the router splits it at its slashes, then decodes each segment.
    let path = components?.percentEncodedPath ?? target
    let connection = headers["Connection"]?.lowercased() ?? ""
    let keepsAlive =
      version == "HTTP/1.0" ? connection.contains("keep-alive") : !connection.contains("close")
    let request = ServerRequest(
      method: HTTPMethod(rawValue: method), path: path, query: components?.queryItems ?? [],
      headers: headers, body: body)
    return .request(ReceivedRequest(request: request, keepsAlive: keepsAlive))
  }

  // MARK: Chunked bodies

  private struct Rejection: Error {
    var outcome: ReadOutcome
  }

  private mutating func readChunkedBody(from source: inout some ByteSource)
    -> Result<Data, Rejection>
  {
    var body = Data()
    while true {
      let deadline = ContinuousClock.now + limits.idleTimeout
      guard
        let lineEnd = find(crlf, limit: Self.maximumChunkLineLength, until: deadline, in: &source)
      else { return .failure(Rejection(outcome: rejection ?? .end)) }
      let line = take(lineEnd - start)
      start += 2
      let sizeText = line.prefix { $0 != UInt8(ascii: ";") }
      guard let size = Self.hexadecimal(sizeText) else {
        return .failure(Rejection(outcome: .reject(status: 400, reason: "malformed chunk size")))
      }
      // Checked before any arithmetic: `size` may be anything up to 15 hex digits.
      guard size <= limits.maximumBodySize - body.count else {
        return .failure(
          Rejection(
            outcome: .reject(
              status: 413, reason: "a chunked body over \(limits.maximumBodySize) bytes")))
      }
      if size == 0 { return readTrailer(from: &source).map { body } }
      guard fill(size + 2, in: &source) else {
        return .failure(Rejection(outcome: rejection ?? .end))
      }
      body.append(contentsOf: take(size))
      guard take(2).elementsEqual(crlf) else {
        return .failure(
          Rejection(outcome: .reject(status: 400, reason: "a chunk not followed by CRLF")))
      }
    }
  }

  /// Reads trailer fields (ignored) up to the empty line, within a size limit.
  private mutating func readTrailer(from source: inout some ByteSource) -> Result<Void, Rejection> {
    var trailerSize = 0
    while true {
      let deadline = ContinuousClock.now + limits.idleTimeout
      let remaining = Self.maximumTrailerSize - trailerSize
      guard let lineEnd = find(crlf, limit: remaining, until: deadline, in: &source) else {
        return .failure(Rejection(outcome: rejection ?? .end))
      }
      let length = lineEnd - start
      start = lineEnd + 2
      if length == 0 { return .success(()) }
      trailerSize += length + 2
    }
  }

  // MARK: Buffer

  /// Why the last `find` or `fill` failed, when it was not a plain close.
  private var rejection: ReadOutcome?

  /// Receives until `delimiter` is in the unconsumed bytes; returns its index. `nil` when the
  /// peer closes, the deadline passes (``rejection`` says 408) or more than `limit` bytes come
  /// without it (``rejection`` says 431 or 413).
  private mutating func find(
    _ delimiter: [UInt8], limit: Int, until deadline: ContinuousClock.Instant,
    in source: inout some ByteSource
  ) -> Int? {
    rejection = nil
    var scanFrom = start
    while true {
      // Scan only what was not scanned before (minus a delimiter's length of overlap).
      if let found = Self.index(of: delimiter, in: buffer, from: scanFrom, before: buffer.count) {
        guard found - start <= limit else { break }
        return found
      }
      guard buffer.count - start <= limit else { break }
      scanFrom = max(start, buffer.count - delimiter.count + 1)
      switch source.receive(into: &buffer, until: deadline) {
      case .received: continue
      case .closed: return nil
      case .timedOut:
        rejection = .reject(status: 408, reason: "the request did not arrive in time")
        return nil
      }
    }
    rejection =
      delimiter == crlfcrlf
      ? .reject(status: 431, reason: "a request head over \(limit) bytes")
      : .reject(status: 400, reason: "a chunk line or trailer over its limit")
    return nil
  }

  /// Receives until at least `count` unconsumed bytes are buffered; `false` on close or when
  /// the body stalls past the idle timeout (``rejection`` says 408).
  private mutating func fill(_ count: Int, in source: inout some ByteSource) -> Bool {
    rejection = nil
    while buffer.count - start < count {
      switch source.receive(into: &buffer, until: .now + limits.idleTimeout) {
      case .received: continue
      case .closed: return false
      case .timedOut:
        rejection = .reject(status: 408, reason: "the request body stalled")
        return false
      }
    }
    return true
  }

  /// Consumes `count` bytes.
  private mutating func take(_ count: Int) -> ArraySlice<UInt8> {
    defer { start += count }
    return buffer[start..<(start + count)]
  }

  /// Drops consumed bytes, keeping any pipelined ones.
  private mutating func compact() {
    guard start > 0 else { return }
    buffer.removeSubrange(0..<start)
    start = 0
  }

  // MARK: Lexing

  private let cr = UInt8(ascii: "\r")
  private let lf = UInt8(ascii: "\n")
  private let space = UInt8(ascii: " ")
  private let colon = UInt8(ascii: ":")
  private let crlf: [UInt8] = [13, 10]
  private let crlfcrlf: [UInt8] = [13, 10, 13, 10]
  /// The longest chunk size line (with extensions) accepted.
  static let maximumChunkLineLength = 1024
  /// The largest trailer accepted.
  static let maximumTrailerSize = 8 * 1024

  private static func index(of needle: [UInt8], in haystack: [UInt8], from: Int, before end: Int)
    -> Int?
  {
    guard end - from >= needle.count else { return nil }
    var index = from
    let last = end - needle.count
    while index <= last {
      if haystack[index] == needle[0] {
        var matches = true
        for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
          matches = false
          break
        }
        if matches { return index }
      }
      index += 1
    }
    return nil
  }

  private static func droppingCR(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    line.last == UInt8(ascii: "\r") ? line.dropLast() : line
  }

  /// `bytes` as a string when it is a non-empty RFC 9110 token (method and field names).
  private static func token(_ bytes: ArraySlice<UInt8>) -> String? {
    guard !bytes.isEmpty, bytes.count <= 256,
      bytes.allSatisfy({ byte in
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
          UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
          UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
          UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
          true
        default: false
        }
      })
    else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// A chunk size: 1 to 15 hexadecimal digits (so it always fits an `Int`), optional
  /// whitespace around.
  private static func hexadecimal(_ bytes: ArraySlice<UInt8>) -> Int? {
    let digits = bytes.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop {
      $0 == 0x20 || $0 == 0x09
    }
    .reversed()
    guard !digits.isEmpty, digits.count <= 15 else { return nil }
    var value = 0
    for byte in digits {
      let digit: Int
      switch byte {
      case 0x30...0x39: digit = Int(byte - 0x30)
      case 0x41...0x46: digit = Int(byte - 0x41 + 10)
      case 0x61...0x66: digit = Int(byte - 0x61 + 10)
      default: return nil
      }
      value = value << 4 | digit
    }
    return value
  }
}
