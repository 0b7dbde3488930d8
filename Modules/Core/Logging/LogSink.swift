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
  /// How large the file grows before it is moved to `<name>.1` (replacing the one moved
  /// before) and a new one is begun: the log takes at most about twice this on disk, however
  /// many instances of the app write to it (each looks at the file's size, not at its own
  /// writes).
  public let maximumSize: Int
  private let url: URL
  /// Whether the file is a regular one: a device given as `--log-file`, such as a terminal or
  /// `/dev/null`, is never narrowed, moved or emptied.
  private let isRegular: Bool
  /// The open file. The lock keeps each line's bytes together within this process.
  private let descriptor: Lock<Int32>

  /// The default ``maximumSize``: 4 MiB.
  public static let defaultMaximumSize = 4 << 20

  /// Opens (or creates) the file at `url` for appending, readable and writable by its owner
  /// only (a regular file made before with wider permissions is narrowed).
  ///
  /// - Throws: `CocoaError` when the folder cannot be created, ``LogFileError`` when the file
  ///   cannot be opened.
  public init(url: URL, maximumSize: Int = FileLogSink.defaultMaximumSize) throws {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    self.url = url
    self.maximumSize = max(1, maximumSize)
    let opened = try Self.openFile(url)
    isRegular = Self.size(of: opened) != nil
    descriptor = Lock(opened)
  }

  deinit {
    descriptor.withLock { _ = close($0) }
  }

  /// Appends `record` followed by a newline to the file at the path (opened again if another
  /// instance has moved it or erased the log); first moves a full file to `<name>.1`.
  public func write(_ record: LogRecord) {
    let line = Array((record.description + "\n").utf8)
    descriptor.withLock { descriptor in
      if isRegular {
        // Another instance may have moved the file or erased the log since the last line.
        var size = sizeIfAtPath(descriptor)
        if size == nil {
          reopen(&descriptor)
          size = Self.size(of: descriptor)
        }
        if let size, size > 0, size + line.count > maximumSize { rotate(&descriptor) }
      }
      _ = writeFully(to: descriptor, line)
    }
  }

  /// Empties the log and removes `<name>.1`: its user left (signed out, or another signed in),
  /// and the record of what the app did in their session goes with their data. With
  /// `--log-file`, that is the file given.
  public func erase() {
    guard isRegular else { return }
    descriptor.withLock { descriptor in
      // The file at the path first (another instance may have begun it since this one opened
      // its own), then its lock, which an instance moving it to `.1` takes too.
      if sizeIfAtPath(descriptor) == nil { reopen(&descriptor) }
      Self.withFileLock(descriptor) {
        _ = unlink(url.path + ".1")
        _ = truncate(url.path, 0)
      }
    }
  }

  /// Moves the full file to `<name>.1` and opens a new one; if another instance sharing the
  /// file has moved it already, only opens the new one. The check and the move are made under
  /// a lock on the file, which every instance takes, so two never move it twice.
  private func rotate(_ descriptor: inout Int32) {
    let full = descriptor
    Self.withFileLock(full) {
      if sizeIfAtPath(full) != nil { _ = rename(url.path, url.path + ".1") }
    }
    reopen(&descriptor)
  }

  /// Opens the file at the path in place of the one held; if it cannot be opened, the one held
  /// goes on (past the bound) rather than losing lines.
  private func reopen(_ descriptor: inout Int32) {
    guard let reopened = try? Self.openFile(url) else { return }
    _ = close(descriptor)
    descriptor = reopened
  }

  /// The size of the file open as `descriptor` if it is still the file at the path; `nil` if it
  /// was moved to `.1` or removed since.
  private func sizeIfAtPath(_ descriptor: Int32) -> Int? {
    var onDisk = stat()
    var held = stat()
    guard stat(url.path, &onDisk) == 0, fstat(descriptor, &held) == 0,
      onDisk.st_ino == held.st_ino, onDisk.st_dev == held.st_dev
    else { return nil }
    return Int(held.st_size)
  }

  /// Runs `body` holding an exclusive `flock` on the open file (instances of the app sharing it
  /// take turns); runs it anyway if the lock cannot be had.
  private static func withFileLock(_ descriptor: Int32, _ body: () -> Void) {
    var locked = flock(descriptor, LOCK_EX)
    while locked != 0 && errno == EINTR { locked = flock(descriptor, LOCK_EX) }
    body()
    if locked == 0 { _ = flock(descriptor, LOCK_UN) }
  }

  private static func openFile(_ url: URL) throws -> Int32 {
    let opened = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    guard opened >= 0 else {
      throw LogFileError(path: url.path, reason: String(cString: strerror(errno)))
    }
    // What the app did is the user's: a file left readable by others is narrowed.
    if size(of: opened) != nil { _ = fchmod(opened, 0o600) }
    return opened
  }

  /// The size of the regular file open as `descriptor`; `nil` for anything else.
  private static func size(of descriptor: Int32) -> Int? {
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int(status.st_size)
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
