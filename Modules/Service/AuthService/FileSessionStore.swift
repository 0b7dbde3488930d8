import Foundation
import TrellisRepository

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keeps the session in a JSON file under the user's data directory: on Linux
/// `$XDG_DATA_HOME/<app>/session.json`, or `~/.local/share/<app>/session.json`; on every Apple
/// platform (macOS included) the app's Application Support folder (`URL.applicationSupportDirectory`:
/// `~/Library/Application Support` for a Mac app outside the sandbox, the container's for one
/// inside it and on iOS). An Apple app should rather keep tokens in the Keychain: see
/// docs/apple.md.
///
/// - Private: the file is created 0600 and its directory is kept at 0700 (tightened if it
///   was created wider), since the file holds tokens.
/// - Atomic and durable: a write goes to a temporary file in the same directory, is synced,
///   renamed over the old one, and the directory is synced, so a crash leaves the old session
///   or the new one, never half of one.
/// - Versioned: the file records its format (`"format": 1`; a file without it is the same
///   format, saved before it was recorded). A file of a later format, saved by a newer version
///   of the app, is never read, replaced or removed: ``load()`` and ``update(_:)`` report it as
///   ``SessionStoreError/io(_:)`` (the app starts signed out and says why in its log; a
///   session begun here lasts until it quits). ``save(_:)`` and ``clear()`` do as they are
///   told; the auth service writes through ``update(_:)`` only.
/// - Careful with errors: only a file that does not decode as a session is reported
///   ``SessionStoreError/corrupt(_:)`` (and may be discarded); a file that cannot be read (no
///   permission, an I/O error, too many open files) is ``SessionStoreError/io(_:)`` and is
///   left alone.
/// - Shared safely: ``update(_:)`` reads and writes under an exclusive lock on
///   `session.json.lock`, so two instances of the app sharing the file take turns instead of
///   overwriting each other's decisions; ``coordinatingRefresh(_:)`` holds a second lock,
///   `session.json.refresh-lock`, for the whole of a token refresh, so two instances never
///   spend the same refresh token.
public struct FileSessionStore: SessionStore {
  /// The session file.
  public let fileURL: URL
  /// The largest session file read; a bigger one is not a session.
  static let maximumFileSize = 1024 * 1024
  /// The format of the files this version saves.
  static let format = 1
  /// How long ``update(_:)`` waits for another instance's lock.
  static let lockTimeout: Duration = .seconds(2)
  /// How long ``coordinatingRefresh(_:)`` waits for another instance's refresh: longer than
  /// a refresh request may take.
  static let refreshLockTimeout: Duration = .seconds(40)

  /// A store at an explicit path.
  public init(fileURL: URL) {
    self.fileURL = fileURL
  }

  /// The store for `appName` in the user's data directory (see ``dataDirectory(environment:)``).
  public init(appName: String, environment: [String: String] = ProcessInfo.processInfo.environment)
  {
    self.init(
      fileURL: Self.dataDirectory(environment: environment)
        .appendingPathComponent(appName, isDirectory: true)
        .appendingPathComponent("session.json", isDirectory: false))
  }

  /// Where an app keeps its data: on Linux (and other non-Apple systems), `$XDG_DATA_HOME`
  /// when it is an absolute path, else `~/.local/share` (the XDG base directory
  /// specification); on every Apple platform, macOS included, the app's Application Support
  /// folder, where `environment` plays no part.
  public static func dataDirectory(environment: [String: String]) -> URL {
    #if canImport(Darwin)
      return URL.applicationSupportDirectory
    #else
      if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
        return URL(fileURLWithPath: xdg, isDirectory: true)
      }
      let home = URL(
        fileURLWithPath: environment["HOME"] ?? NSHomeDirectory(), isDirectory: true)
      return home.appendingPathComponent(".local/share", isDirectory: true)
    #endif
  }

  /// Creates `directory` (and its parents) with owner-only permissions, or tightens it to
  /// 0700 if it exists with wider ones.
  ///
  /// - Throws: ``SessionStoreError/io(_:)`` when it cannot be created or tightened.
  public static func preparePrivateDirectory(_ directory: URL) throws(SessionStoreError) {
    do {
      try PrivateFiles.prepareDirectory(directory)
    } catch {
      throw .io(error.reason)
    }
  }

  /// How old a temporary file of ``save(_:)`` must be before it counts as left behind by a
  /// crash: a save in progress (another instance's) renames its file within milliseconds.
  static let leftoverAge: TimeInterval = 60

  /// Reads the session; `nil` if there is no file. Removes first the temporary files a save
  /// interrupted by a crash left behind (they hold tokens).
  ///
  /// - Throws: ``SessionStoreError/io(_:)`` when the file exists but cannot be read (it is
  ///   left in place) or was saved by a newer version of the app (kept for it),
  ///   ``SessionStoreError/corrupt(_:)`` when it is not a saved session.
  public func load() throws(SessionStoreError) -> Session? {
    switch try read() {
    case .session(let session): return session
    case .newerFormat(let format):
      throw .io(
        "\(fileURL.path) was saved by a newer version of the app (format \(format), this one "
          + "reads \(Self.format)); it is kept for that version")
    }
  }

  /// What the file holds.
  private enum Contents {
    /// A session of this format (`nil`: no file).
    case session(Session?)
    /// A file of a later format than this version reads.
    case newerFormat(Int)
  }

  /// The file's `format`, alone: read before the session, which a later format may change.
  private struct FormatMark: Codable {
    var format: Int?
  }

  /// A session and the format it is saved in, as one JSON object.
  private struct Saved: Encodable {
    var session: Session

    func encode(to encoder: any Encoder) throws {
      try session.encode(to: encoder)
      try FormatMark(format: FileSessionStore.format).encode(to: encoder)
    }
  }

  private func read() throws(SessionStoreError) -> Contents {
    removeLeftoverTemporaryFiles()
    let data: Data?
    do {
      data = try PrivateFiles.read(fileURL, limit: Self.maximumFileSize)
    } catch {
      guard error.isCorrupt else { throw .io(error.reason) }
      throw .corrupt("\(fileURL.path) is larger than a saved session can be")
    }
    guard let data else { return .session(nil) }
    if let format = (try? Self.decoder.decode(FormatMark.self, from: data))?.format,
      format > Self.format
    {
      return .newerFormat(format)
    }
    do {
      return .session(try Self.decoder.decode(Session.self, from: data))
    } catch {
      throw .corrupt("\(fileURL.path) is not a saved session (\(error))")
    }
  }

  /// Writes the session atomically and durably with owner-only permissions.
  public func save(_ session: Session) throws(SessionStoreError) {
    let data: Data
    do {
      data = try Self.encoder.encode(Saved(session: session))
    } catch {
      throw .io("cannot encode the session: \(error)")
    }
    do {
      // Created 0600 from the start: the tokens are never readable by others, not even briefly.
      try PrivateFiles.write(data, to: fileURL, temporaryPrefix: ".session-")
    } catch {
      throw .io(error.reason)
    }
  }

  /// Removes the file (no error if there is none).
  public func clear() throws(SessionStoreError) {
    do {
      try PrivateFiles.remove(fileURL)
    } catch {
      throw .io(error.reason)
    }
  }

  /// Reads the saved session and applies `change` to it under an exclusive lock shared with
  /// every other instance of the app; a file that does not decode reads as `nil`.
  ///
  /// - Throws: ``SessionStoreError/io(_:)`` when the lock is not granted within two seconds,
  ///   the file cannot be read or written, or a newer version of the app saved it (it is left
  ///   as it is).
  public func update(_ change: (Session?) -> SessionChange) throws(SessionStoreError) {
    let directory = fileURL.deletingLastPathComponent()
    try Self.preparePrivateDirectory(directory)
    let lockPath = fileURL.path + ".lock"
    let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard lock >= 0 else { throw .io("cannot open \(lockPath): \(Self.systemError())") }
    defer { close(lock) }  // closing releases the lock
    let deadline = ContinuousClock.now + Self.lockTimeout
    while flock(lock, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
        throw .io("another instance of the app holds \(lockPath)")
      }
      usleep(10_000)
    }
    let current: Session?
    do {
      current = try load()
    } catch {
      guard case .corrupt = error else { throw error }
      current = nil
    }
    switch change(current) {
    case .keep: break
    case .save(let session): try save(session)
    case .clear: try clear()
    }
  }

  /// Dates are saved in ISO 8601 with milliseconds: which of two sessions was issued later
  /// decides whether an instance takes the other's, and two refreshes can be a second apart.
  private static let dateFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

  private static var encoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(date.formatted(dateFormat))
    }
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return encoder
  }

  /// Reads dates with or without fractional seconds (files saved by older versions).
  private static var decoder: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let text = try decoder.singleValueContainer().decode(String.self)
      if let date = try? dateFormat.parse(text) { return date }
      if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
    }
    return decoder
  }

  /// Runs `refresh` holding an exclusive lock on `session.json.refresh-lock`, which every
  /// instance of the app sharing this file takes for its refreshes. The lock is polled, not
  /// waited for in the kernel, so no thread is blocked meanwhile; the process's death releases
  /// it.
  ///
  /// - Throws: ``SessionStoreError/io(_:)`` when the lock is not granted within
  ///   ``refreshLockTimeout``, or what `refresh` throws.
  public func coordinatingRefresh<Value: Sendable>(
    _ refresh: @Sendable () async throws -> Value
  ) async throws -> Value {
    let directory = fileURL.deletingLastPathComponent()
    try Self.preparePrivateDirectory(directory)
    let lockPath = fileURL.path + ".refresh-lock"
    let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard lock >= 0 else {
      throw SessionStoreError.io("cannot open \(lockPath): \(Self.systemError())")
    }
    defer { close(lock) }  // closing releases the lock
    let deadline = ContinuousClock.now + Self.refreshLockTimeout
    while flock(lock, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
        throw SessionStoreError.io("another instance of the app is refreshing the session")
      }
      try await Task.sleep(for: .milliseconds(10))
    }
    return try await refresh()
  }

  /// Removes the `.session-*.tmp` files of saves that never finished (the process died between
  /// creating and renaming one), once they are older than ``leftoverAge``.
  func removeLeftoverTemporaryFiles() {
    let directory = fileURL.deletingLastPathComponent()
    guard
      let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
    else { return }
    let cutoff = Date().addingTimeInterval(-Self.leftoverAge)
    for name in names where name.hasPrefix(".session-") && name.hasSuffix(".tmp") {
      let path = directory.appendingPathComponent(name).path
      guard
        let modified = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate]
          as? Date, modified < cutoff
      else { continue }
      unlink(path)
    }
  }

  private static func systemError() -> String {
    String(cString: strerror(errno))
  }
}
