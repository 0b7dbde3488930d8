#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Standard output or standard error, written without ever trapping.
///
/// corelibs-foundation's `FileHandle.write(_:)` traps when the write fails (a closed pipe, a
/// full disk); a command-line tool whose output is piped into `head` must not crash for it.
/// These writes retry on `EINTR` and give up quietly on any other error. The programs ignore
/// `SIGPIPE` (``ignoreBrokenPipes()``), so a closed pipe is an error here, not a signal.
public enum StandardStream: Sendable {
  /// Standard output.
  case output
  /// Standard error.
  case error

  /// Writes `text`; returns whether all of it was written.
  @discardableResult
  public func write(_ text: String) -> Bool {
    writeFully(to: self == .output ? STDOUT_FILENO : STDERR_FILENO, Array(text.utf8))
  }

  /// Makes a write to a closed pipe fail with `EPIPE` instead of killing the process.
  public static func ignoreBrokenPipes() {
    signal(SIGPIPE, SIG_IGN)
  }
}

/// Writes every byte of `bytes` to `descriptor`, retrying after `EINTR` and short writes;
/// returns whether all were written. The same POSIX call on Linux and Apple platforms.
func writeFully(to descriptor: Int32, _ bytes: [UInt8]) -> Bool {
  var remaining = bytes[...]
  while !remaining.isEmpty {
    let written = remaining.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    if written < 0 {
      if errno == EINTR { continue }
      return false
    }
    remaining = remaining.dropFirst(written)
  }
  return true
}
