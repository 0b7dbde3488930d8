import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One line of log: what happened, where, and how important it was.
public struct LogRecord: Sendable, CustomStringConvertible {
  /// When the record was made.
  public var date: Date
  /// Its importance.
  public var level: LogLevel
  /// The subsystem that wrote it, such as `"Network"` or `"LoginViewReactor"`.
  public var category: String
  /// The message, secrets already redacted.
  public var message: String

  /// Creates a record.
  public init(date: Date = Date(), level: LogLevel, category: String, message: String) {
    self.date = date
    self.level = level
    self.category = category
    self.message = message
  }

  /// The record as one line: `2026-11-21T10:00:00Z [info] [Network] GET /me 200`.
  public var description: String {
    "\(date.formatted(.iso8601)) [\(level)] [\(category)] \(message)"
  }
}

/// Where log records go. Sinks are called from any thread, so they must be thread-safe.
public protocol LogSink: Sendable {
  /// Writes one record.
  func write(_ record: LogRecord)
}

/// Writes each record as one line to standard error.
public struct StandardErrorLogSink: LogSink {
  /// Creates the sink.
  public init() {}

  /// Writes `record` followed by a newline.
  public func write(_ record: LogRecord) {
    StandardStream.error.write(record.description + "\n")
  }
}

/// Appends each record as one line to a file, creating it (and any missing folders) with
/// owner-only permissions: logs hold user names, paths and other personal data.
///
/// The file is opened for appending (`O_APPEND`) and each line goes out in one `write`, so two
/// instances of the app logging to the same file interleave whole lines instead of writing
/// over each other.
///
/// The terminal app logs here, since standard error is the screen it draws on. An app on
/// Apple platforms would log through `os.Logger` with a ``LogSink`` of its own.
public final class FileLogSink: LogSink {
  /// The open file. The lock keeps each line's bytes together within this process.
  private let descriptor: Lock<Int32>

  /// Opens (or creates) the file at `url` for appending.
  ///
  /// - Throws: `CocoaError` when the folder cannot be created, ``LogFileError`` when the file
  ///   cannot be opened.
  public init(url: URL) throws {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    let opened = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    guard opened >= 0 else {
      throw LogFileError(path: url.path, reason: String(cString: strerror(errno)))
    }
    descriptor = Lock(opened)
  }

  deinit {
    descriptor.withLock { _ = close($0) }
  }

  /// Appends `record` followed by a newline.
  public func write(_ record: LogRecord) {
    let line = Array((record.description + "\n").utf8)
    descriptor.withLock { _ = writeFully(to: $0, line) }
  }
}

/// A log file that could not be opened.
public struct LogFileError: Error, CustomStringConvertible {
  /// The file.
  public var path: String
  /// What the system said.
  public var reason: String

  /// `cannot open <path>: <reason>`.
  public var description: String { "cannot open \(path): \(reason)" }
}

/// Keeps records in memory, for tests that assert what was logged.
public final class MemoryLogSink: LogSink {
  private let storage = Lock<[LogRecord]>([])

  /// Creates an empty sink.
  public init() {}

  /// Stores `record`.
  public func write(_ record: LogRecord) {
    storage.withLock { $0.append(record) }
  }

  /// Every record written so far, oldest first.
  public var records: [LogRecord] {
    storage.withLock { $0 }
  }

  /// The messages written so far, oldest first.
  public var messages: [String] {
    records.map(\.message)
  }
}
