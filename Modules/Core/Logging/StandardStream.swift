#if canImport(Glibc)
  import Glibc
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
    let descriptor = self == .output ? STDOUT_FILENO : STDERR_FILENO
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
      if written < 0 {
        if errno == EINTR { continue }
        return false
      }
      bytes = bytes.dropFirst(written)
    }
    return true
  }

  /// Makes a write to a closed pipe fail with `EPIPE` instead of killing the process.
  public static func ignoreBrokenPipes() {
    signal(SIGPIPE, SIG_IGN)
  }
}
