import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP client on raw sockets, for sending what no HTTP client would: malformed heads,
/// absurd sizes, half requests. Every read has a deadline.
final class RawClient {
  let descriptor: Int32

  /// Connects to 127.0.0.1:`port`; reads time out after `timeout`.
  init(port: Int, timeout: Duration = .seconds(10)) throws {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      // The real reason, for a failure report to name (refused, out of ports, timed out).
      // Not closed here: an initializer that throws once every property is set still runs
      // `deinit`, which closes it; closing it here too closed whatever socket (another test's
      // server) had taken the number meanwhile.
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
    }
    let (seconds, attoseconds) = timeout.components
    var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
  }

  /// Sends `bytes`; `false` if the server closed the connection.
  @discardableResult
  func send(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if sent <= 0 { return false }
      offset += sent
    }
    return true
  }

  /// Sends `text` as UTF-8.
  @discardableResult
  func send(_ text: String) -> Bool { send(Array(text.utf8)) }

  /// Closes the sending half (the server sees the end of the request stream).
  func finishSending() { shutdown(descriptor, Int32(SHUT_WR)) }

  /// Reads until the server closes the connection or the read timeout passes.
  func readAll() -> String {
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while received.count < 16 * 1024 * 1024 {
      let count = recv(descriptor, &chunk, chunk.count, 0)
      if count <= 0 { break }
      received += chunk[0..<count]
    }
    return String(decoding: received, as: UTF8.self)
  }

  /// The status codes of the responses in `text`, in order.
  static func statuses(in text: String) -> [Int] {
    text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
  }
}
