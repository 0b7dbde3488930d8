import Foundation
import Network
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A request read off a connection, with what the connection should do after answering it.
struct ReceivedRequest: Sendable {
  var request: ServerRequest
  var keepsAlive: Bool

  var method: HTTPMethod { request.method }
  var path: String { request.path }
  var headers: HTTPHeaders { request.headers }
}

extension ServerRequest {
  typealias Received = ReceivedRequest
}

/// One accepted socket: buffered reads of HTTP/1.1 requests, whole writes, hang-up checks.
///
/// Reads happen on the connection's thread; writes may also come from a streaming handler's
/// task. The read buffer is behind a lock so the type is honestly `Sendable`.
final class Connection: Sendable {
  let descriptor: Int32
  private let buffer = Mutex(Data())

  /// The largest request head accepted; a longer one closes the connection.
  static let maximumHeadSize = 64 * 1024
  /// The largest request body accepted.
  static let maximumBodySize = 64 * 1024 * 1024

  init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  // MARK: Reading

  /// Reads the next request, or returns `nil` when the client closed the connection or sent
  /// something that is not HTTP/1.1 (after answering `400`).
  func readRequest() -> ReceivedRequest? {
    guard let headEnd = readUntil(Data("\r\n\r\n".utf8), limit: Self.maximumHeadSize) else {
      return nil
    }
    let head = takeBytes(headEnd)
    _ = takeBytes(4)
    let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
    let requestLine = lines.first?.split(separator: " ") ?? []
    guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
      return badRequest("malformed request line")
    }
    var headers = HTTPHeaders()
    for line in lines.dropFirst() where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else { return badRequest("malformed header") }
      headers[String(line[..<colon])] = line[line.index(after: colon)...]
        .trimmingCharacters(in: .whitespaces)
    }
    let body: Data
    if headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
      guard let chunked = readChunkedBody() else { return badRequest("malformed chunked body") }
      body = chunked
    } else if let lengthText = headers["Content-Length"] {
      guard let length = Int(lengthText), length >= 0, length <= Self.maximumBodySize,
        fill(length)
      else { return badRequest("bad Content-Length") }
      body = takeBytes(length)
    } else {
      body = Data()
    }
    let target = String(requestLine[1])
    let components = URLComponents(string: target)
    let path = components?.path.removingPercentEncoding ?? components?.path ?? target
    let isHTTP10 = requestLine[2] == "HTTP/1.0"
    let connectionHeader = headers["Connection"]?.lowercased() ?? ""
    let keepsAlive =
      isHTTP10 ? connectionHeader.contains("keep-alive") : !connectionHeader.contains("close")
    let request = ServerRequest(
      method: HTTPMethod(rawValue: String(requestLine[0])), path: path,
      query: components?.queryItems ?? [], headers: headers, body: body)
    return ReceivedRequest(request: request, keepsAlive: keepsAlive)
  }

  private func badRequest(_ reason: String) -> ReceivedRequest? {
    let body = "{\"error\":\"\(reason)\"}"
    _ = write(
      Data(
        ("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: "
          + "\(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)").utf8))
    return nil
  }

  private func readChunkedBody() -> Data? {
    var body = Data()
    while true {
      guard let lineEnd = readUntil(Data("\r\n".utf8), limit: 1024) else { return nil }
      let sizeLine = String(decoding: takeBytes(lineEnd), as: UTF8.self)
      _ = takeBytes(2)
      let sizeText = sizeLine.split(separator: ";").first.map(String.init) ?? ""
      guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0,
        body.count + size <= Self.maximumBodySize
      else { return nil }
      if size == 0 {
        // Trailer fields, if any, end with an empty line.
        while let end = readUntil(Data("\r\n".utf8), limit: Self.maximumHeadSize) {
          _ = takeBytes(end + 2)
          if end == 0 { return body }
        }
        return nil
      }
      guard fill(size + 2) else { return nil }
      body.append(takeBytes(size))
      _ = takeBytes(2)
    }
  }

  /// Reads until `delimiter` is buffered; returns its offset, or `nil` on EOF, error or when
  /// more than `limit` bytes arrive without it.
  private func readUntil(_ delimiter: Data, limit: Int) -> Int? {
    while true {
      let found = buffer.withLock { buffer -> Int? in
        buffer.range(of: delimiter).map {
          buffer.distance(from: buffer.startIndex, to: $0.lowerBound)
        }
      }
      if let found { return found }
      guard buffer.withLock({ $0.count }) <= limit, receive() else { return nil }
    }
  }

  /// Reads until at least `count` bytes are buffered; `false` on EOF or error.
  private func fill(_ count: Int) -> Bool {
    while buffer.withLock({ $0.count }) < count {
      guard receive() else { return false }
    }
    return true
  }

  private func takeBytes(_ count: Int) -> Data {
    buffer.withLock { buffer in
      let taken = Data(buffer.prefix(count))
      buffer = Data(buffer.dropFirst(count))
      return taken
    }
  }

  /// Receives what is available (blocking); `false` on EOF or error.
  private func receive() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let count = recv(descriptor, &chunk, chunk.count, 0)
      if count > 0 {
        buffer.withLock { $0.append(contentsOf: chunk[0..<count]) }
        return true
      }
      if count < 0, errno == EINTR { continue }
      return false
    }
  }

  // MARK: Writing

  /// Writes all of `data`; `false` if the client has gone.
  func write(_ data: Data) -> Bool {
    data.withUnsafeBytes { bytes -> Bool in
      guard let base = bytes.baseAddress else { return true }
      var offset = 0
      while offset < bytes.count {
        let sent = send(descriptor, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        if sent < 0 {
          if errno == EINTR { continue }
          return false
        }
        offset += sent
      }
      return true
    }
  }

  /// Makes the coming `close` send a TCP reset instead of a normal close.
  func resetOnClose() {
    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
    setsockopt(
      descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
  }

  // MARK: Watching

  /// Linux's `POLLRDHUP` (the peer closed its end), which Glibc only exports under
  /// `_GNU_SOURCE`; its value is fixed by the kernel ABI.
  private static let pollReadHangUp: Int16 = 0x2000

  /// Whether the client has hung up (checked without waiting).
  func hasHungUp() -> Bool {
    var descriptorSet = pollfd(
      fd: descriptor, events: Int16(POLLIN) | Self.pollReadHangUp, revents: 0)
    let ready = poll(&descriptorSet, 1, 0)
    guard ready > 0 else { return false }
    if descriptorSet.revents & (Int16(POLLHUP) | Int16(POLLERR) | Self.pollReadHangUp) != 0 {
      return true
    }
    // Readable: either the end of the stream (a hang-up) or a pipelined request.
    var byte: UInt8 = 0
    return recv(descriptor, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) == 0
  }
}
