import Foundation
import Synchronization

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
/// The terminal app logs here, since standard error is the screen it draws on.
public final class FileLogSink: LogSink {
  private let handle: Mutex<FileHandle>

  /// Opens (or creates) the file at `url` for appending.
  public init(url: URL) throws {
    let manager = FileManager.default
    try manager.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    if !manager.fileExists(atPath: url.path) {
      // A failure here surfaces as the error of `FileHandle(forWritingTo:)` just below.
      _ = manager.createFile(
        atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
    }
    let handle = try FileHandle(forWritingTo: url)
    try handle.seekToEnd()
    self.handle = Mutex(handle)
  }

  /// Appends `record` followed by a newline.
  public func write(_ record: LogRecord) {
    handle.withLock { handle in
      try? handle.write(contentsOf: Data((record.description + "\n").utf8))
    }
  }
}

/// Keeps records in memory, for tests that assert what was logged.
public final class MemoryLogSink: LogSink {
  private let storage = Mutex<[LogRecord]>([])

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
