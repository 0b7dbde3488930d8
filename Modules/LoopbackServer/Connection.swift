import Foundation
import TrellisCore
import TrellisNetwork

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

/// One accepted socket: whole writes with a send deadline, and hang-up checks. Reads go
/// through a ``SocketSource`` owned by the connection's thread.
///
/// Writes may come from the connection's thread or from a streaming handler's task; each is
/// a loop of `send` calls on a descriptor, which the kernel serialises per call. The type holds
/// only the descriptor, so it is `Sendable` without a lock.
struct Connection: Sendable {
  let descriptor: Int32

  /// Writes all of `data`; `false` if the client has gone or did not read within the send
  /// timeout (`SO_SNDTIMEO`, set when the connection was accepted).
  func write(_ data: Data) -> Bool {
    data.withUnsafeBytes { bytes -> Bool in
      guard let base = bytes.baseAddress else { return true }
      var offset = 0
      while offset < bytes.count {
        let sent = send(descriptor, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        if sent < 0 {
          if errno == EINTR { continue }
          return false  // EAGAIN here means the send timeout passed
        }
        offset += sent
      }
      return true
    }
  }

  /// Writes a complete error response and asks for the connection to close.
  func reject(status: Int, reason: String) {
    let body = #"{"error":"\#(reason.replacingOccurrences(of: "\"", with: "'"))"}"#
    _ = write(
      Data(
        ("HTTP/1.1 \(status) \(LoopbackServer.reason(for: status))\r\n"
          + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
          + "Connection: close\r\n\r\n\(body)").utf8))
  }

  /// Makes the coming `close` send a TCP reset instead of a normal close.
  func resetOnClose() {
    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
    setsockopt(
      descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
  }

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

/// Reads a socket for a ``RequestReader``: each receive waits (with `poll`) no later than its
/// deadline.
struct SocketSource: ByteSource {
  let descriptor: Int32
  private var chunk = [UInt8](repeating: 0, count: 16 * 1024)

  init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  mutating func receive(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant)
    -> ReceiveStatus
  {
    while true {
      let remaining = deadline - .now
      guard remaining > .zero else { return .timedOut }
      let milliseconds = min(remaining.inMilliseconds, Int64(Int32.max) - 1) + 1
      var descriptorSet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptorSet, 1, Int32(clamping: milliseconds))
      if ready < 0 {
        if errno == EINTR { continue }
        return .closed
      }
      if ready == 0 { continue }  // the loop's deadline check decides
      let count = recv(descriptor, &chunk, chunk.count, 0)
      if count > 0 {
        buffer.append(contentsOf: chunk[0..<count])
        return .received
      }
      if count < 0, errno == EINTR || errno == EAGAIN { continue }
      return .closed
    }
  }
}
