/// How important a log record is, from the chattiest to the most severe.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
  /// Step-by-step detail, normally off.
  case trace
  /// Detail useful while developing a feature.
  case debug
  /// Normal operation worth a line: a request, a screen shown.
  case info
  /// Something unusual but handled: a token refreshed, a retry.
  case notice
  /// Something went wrong and was recovered from: a corrupt file ignored, a reconnect.
  case warning
  /// An operation failed: an unhandled effect error, a request that gave up.
  case error

  /// Orders levels by severity.
  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

  /// The lowercase name used in log lines and accepted by `init?(name:)`.
  public var description: String {
    switch self {
    case .trace: "trace"
    case .debug: "debug"
    case .info: "info"
    case .notice: "notice"
    case .warning: "warning"
    case .error: "error"
    }
  }

  /// Parses a level name such as `"debug"` (any case), for command-line options.
  public init?(name: String) {
    guard let level = Self.allCases.first(where: { $0.description == name.lowercased() }) else {
      return nil
    }
    self = level
  }
}
