/// Writes log records for one category, to the process-wide sink or to its own.
///
/// ```swift
/// let logger = Logger(category: "Network")
/// logger.info("GET \(url) -> \(status)")
/// logger.debug("Authorization: \(token, privacy: .secret)")
/// ```
///
/// Messages are built only when their level passes the minimum, so a disabled `debug` line
/// costs one atomic load.
public struct Logger: Sendable {
  /// The subsystem this logger writes for.
  public let category: String
  private let sink: (any LogSink)?
  private let minimumLevel: LogLevel?

  /// Creates a logger for `category`.
  ///
  /// - Parameters:
  ///   - sink: Where records go; `nil` uses ``LogSystem``'s process-wide sink.
  ///   - minimumLevel: The lowest level written; `nil` uses ``LogSystem``'s minimum level.
  public init(category: String, sink: (any LogSink)? = nil, minimumLevel: LogLevel? = nil) {
    self.category = category
    self.sink = sink
    self.minimumLevel = minimumLevel
  }

  /// Whether a record at `level` would be written.
  public func isEnabled(_ level: LogLevel) -> Bool {
    level >= (minimumLevel ?? LogSystem.minimumLevel)
  }

  /// Writes `message` at `level` if that level is enabled.
  public func log(_ level: LogLevel, _ message: @autoclosure () -> LogMessage) {
    guard isEnabled(level) else { return }
    let record = LogRecord(level: level, category: category, message: message().description)
    (sink ?? LogSystem.sink).write(record)
  }

  /// Writes a `trace` record.
  public func trace(_ message: @autoclosure () -> LogMessage) { log(.trace, message()) }
  /// Writes a `debug` record.
  public func debug(_ message: @autoclosure () -> LogMessage) { log(.debug, message()) }
  /// Writes an `info` record.
  public func info(_ message: @autoclosure () -> LogMessage) { log(.info, message()) }
  /// Writes a `notice` record.
  public func notice(_ message: @autoclosure () -> LogMessage) { log(.notice, message()) }
  /// Writes a `warning` record.
  public func warning(_ message: @autoclosure () -> LogMessage) { log(.warning, message()) }
  /// Writes an `error` record.
  public func error(_ message: @autoclosure () -> LogMessage) { log(.error, message()) }
}

/// The process-wide logging configuration used by loggers without their own sink or level.
///
/// The app sets it once at start-up (``bootstrap(sink:minimumLevel:)``); tests that assert on
/// logs give their loggers a ``MemoryLogSink`` instead, so parallel tests do not share records.
public enum LogSystem {
  private static let currentSink = Lock<any LogSink>(StandardErrorLogSink())
  private static let level = Lock<Int>(LogLevel.info.rawValue)

  /// Replaces the process-wide sink and minimum level.
  public static func bootstrap(sink: any LogSink, minimumLevel: LogLevel) {
    currentSink.withLock { $0 = sink }
    level.withLock { $0 = minimumLevel.rawValue }
  }

  /// The process-wide sink.
  public static var sink: any LogSink {
    currentSink.withLock { $0 }
  }

  /// The process-wide minimum level.
  public static var minimumLevel: LogLevel {
    LogLevel(rawValue: level.withLock { $0 }) ?? .info
  }
}
