import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of a server, whose network a test cuts and restores: the
/// faults of a real network (a reset, a black hole) played over loopback.
///
/// - ``cut()``: every open connection is closed and every new one is closed as soon as it is
///   accepted (a reset: the client knows at once).
/// - ``blackHole()``: no byte passes, and nothing is closed: open connections fall silent and
///   new ones are accepted and then hear nothing, as in a tunnel or a Wi-Fi-to-cellular
///   handover. The connections held through it stay dead after ``restore()`` (the NAT forgot
///   them); only new ones carry bytes again.
/// - ``restore()``: new connections carry bytes both ways again.
///
/// Each connection is pumped by a thread of its own with `poll` (100 ms), so a cut takes
/// effect within a tenth of a second; ``stop()`` ends everything.
public final class CuttableProxy: Sendable {
  private struct State {
    var isCut = false
    var isBlackHole = false
    var isStopped = false
    /// Bumped by each cut: a pump started before it closes.
    var epoch = 0
    /// Bumped by each black hole: a pump started before it goes silent for good.
    var silence = 0
  }

  /// The port clients connect to.
  public let port: Int
  private let listener: Int32
  private let targetPort: Int
  private let state = Mutex(State())

  /// Listens on a free port and forwards to 127.0.0.1:`targetPort`.
  public init(targetPort: Int) throws {
    self.targetPort = targetPort
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw POSIXError(.EMFILE) }
    self.listener = listener
    var address = Self.loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 64) == 0 else {
      close(listener)
      throw POSIXError(.EADDRINUSE)
    }
    var actual = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &actual) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(listener, $0, &length)
      }
    }
    port = Int(UInt16(bigEndian: actual.sin_port))
    Thread { [self] in
      while true {
        var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        if poll(&ready, 1, 100) <= 0 {
          if state.withLock({ $0.isStopped }) { return }
          continue
        }
        let client = accept(listener, nil, nil)
        guard client >= 0 else { continue }
        let (cut, epoch, silence) = state.withLock {
          ($0.isCut || $0.isStopped, $0.epoch, $0.isBlackHole ? -1 : $0.silence)
        }
        if cut {
          close(client)
          continue
        }
        forward(client, epoch: epoch, silence: silence)
      }
    }.start()
  }

  deinit {
    close(listener)
  }

  /// The URL of the proxied server.
  public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Closes every connection now, and every new one until ``restore()``.
  public func cut() {
    state.withLock { state in
      state.isCut = true
      state.epoch += 1
    }
  }

  /// Lets no byte through and closes nothing, until ``restore()``; the connections open now or
  /// opened meanwhile never carry a byte again.
  public func blackHole() {
    state.withLock { state in
      state.isBlackHole = true
      state.silence += 1
    }
  }

  /// Lets new connections through again.
  public func restore() {
    state.withLock { state in
      state.isCut = false
      state.isBlackHole = false
    }
  }

  /// Closes everything for good.
  public func stop() {
    state.withLock { state in
      state.isStopped = true
      state.epoch += 1
    }
  }

  /// Pumps bytes between `client` and the server until a cut after `epoch`; a black hole after
  /// `silence` (or during it: `-1`) silences it for good, holding both sockets open.
  private func forward(_ client: Int32, epoch: Int, silence: Int) {
    let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = Self.loopback(port: targetPort)
    let connected =
      upstream >= 0
      && withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      } == 0
    guard connected else {
      close(client)
      if upstream >= 0 { close(upstream) }
      return
    }
    Thread { [self] in
      defer {
        close(client)
        close(upstream)
      }
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      var fds = [
        pollfd(fd: client, events: Int16(POLLIN), revents: 0),
        pollfd(fd: upstream, events: Int16(POLLIN), revents: 0),
      ]
      while state.withLock({ $0.epoch == epoch }) {
        if state.withLock({ $0.silence != silence }) {
          // Dead: hold the sockets, pass nothing, until a cut or the end.
          usleep(100_000)
          continue
        }
        fds[0].revents = 0
        fds[1].revents = 0
        guard poll(&fds, 2, 100) >= 0 else { return }
        for (index, from) in [client, upstream].enumerated() where fds[index].revents != 0 {
          let to = index == 0 ? upstream : client
          let count = recv(from, &buffer, buffer.count, 0)
          guard count > 0 else { return }
          var offset = 0
          while offset < count {
            let sent = buffer[offset..<count].withUnsafeBytes {
              send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return }
            offset += sent
          }
        }
      }
    }.start()
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}
