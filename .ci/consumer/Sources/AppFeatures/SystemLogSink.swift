import TrellisCore

/// `os.Logger`, as the sink uses it: one per category, a message at a level. (The app imports
/// `os` and wraps `Logger(subsystem:category:)`: docs/apple.md shows it.)
public nonisolated protocol SystemLog: Sendable {
  /// Logs `message` at `level`.
  func log(_ level: SystemLogLevel, _ message: String)
}

/// `OSLogType`'s levels.
public nonisolated enum SystemLogLevel: Sendable, Equatable {
  /// `OSLogType`'s cases.
  case debug, info, `default`, error, fault
}

/// A ``TrellisCore/LogSink`` that writes to the system log: Trellis's records, already
/// redacted, at the matching level of a log per category.
public nonisolated struct SystemLogSink: LogSink {
  private let makeLog: @Sendable (String) -> any SystemLog

  /// A sink that writes each record to `makeLog(category)`: on Apple platforms an `os.Logger`
  /// of that category (docs/apple.md).
  public init(makeLog: @escaping @Sendable (String) -> any SystemLog) {
    self.makeLog = makeLog
  }

  /// Logs `record` in its category's log.
  public func write(_ record: LogRecord) {
    makeLog(record.category).log(Self.level(of: record.level), record.message)
  }

  /// Trellis's level as the system log's.
  public static func level(of level: LogLevel) -> SystemLogLevel {
    switch level {
    case .trace, .debug: .debug
    case .info: .info
    case .notice: .default
    case .warning, .error: .error
    }
  }
}
