import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keeps the session in a JSON file under the user's data directory:
/// `$XDG_DATA_HOME/<app>/session.json`, or `~/.local/share/<app>/session.json`.
///
/// Writes are atomic (a temporary file in the same directory, then `rename`) and the file is
/// readable by its owner only (0600; the directory 0700), since it holds tokens.
public struct FileSessionStore: SessionStore {
  /// The session file.
  public let fileURL: URL

  /// A store at an explicit path.
  public init(fileURL: URL) {
    self.fileURL = fileURL
  }

  /// The store for `appName` in the user's data directory, following the XDG base directory
  /// specification.
  public init(appName: String, environment: [String: String] = ProcessInfo.processInfo.environment)
  {
    self.init(
      fileURL: Self.dataDirectory(environment: environment)
        .appendingPathComponent(appName, isDirectory: true)
        .appendingPathComponent("session.json", isDirectory: false))
  }

  /// `$XDG_DATA_HOME` when it is an absolute path, else `~/.local/share`.
  public static func dataDirectory(environment: [String: String]) -> URL {
    if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
      return URL(fileURLWithPath: xdg, isDirectory: true)
    }
    let home =
      environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
      ?? FileManager.default.homeDirectoryForCurrentUser
    return home.appendingPathComponent(".local/share", isDirectory: true)
  }

  /// Reads the session; `nil` if there is no file.
  public func load() throws(SessionStoreError) -> Session? {
    let data: Data
    do {
      data = try Data(contentsOf: fileURL)
    } catch {
      if !FileManager.default.fileExists(atPath: fileURL.path) { return nil }
      throw .corrupt("cannot read \(fileURL.path): \(error.localizedDescription)")
    }
    do {
      let decoder = JSONDecoder()
      decoder.dateDecodingStrategy = .iso8601
      return try decoder.decode(Session.self, from: data)
    } catch {
      throw .corrupt("\(fileURL.path) is not a saved session (\(error))")
    }
  }

  /// Writes the session atomically with owner-only permissions.
  public func save(_ session: Session) throws(SessionStoreError) {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let data: Data
    do {
      data = try encoder.encode(session)
    } catch {
      throw .io("cannot encode the session: \(error)")
    }
    let directory = fileURL.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw .io("cannot create \(directory.path): \(error.localizedDescription)")
    }
    let temporary = directory.appendingPathComponent(".session-\(UUID().uuidString).tmp")
    // Created 0600 from the start: the tokens are never readable by others, not even briefly.
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, 0o600)
    guard descriptor >= 0 else {
      throw .io("cannot create \(temporary.path): \(String(cString: strerror(errno)))")
    }
    let written = data.withUnsafeBytes { bytes in
      write(descriptor, bytes.baseAddress, bytes.count)
    }
    let synced = fsync(descriptor) == 0
    close(descriptor)
    guard written == data.count, synced else {
      unlink(temporary.path)
      throw .io("cannot write \(temporary.path)")
    }
    guard rename(temporary.path, fileURL.path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary.path)
      throw .io("cannot replace \(fileURL.path): \(reason)")
    }
  }

  /// Removes the file (no error if there is none).
  public func clear() throws(SessionStoreError) {
    guard unlink(fileURL.path) == 0 || errno == ENOENT else {
      throw .io("cannot remove \(fileURL.path): \(String(cString: strerror(errno)))")
    }
  }
}
