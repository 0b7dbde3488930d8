import Foundation
import TrellisCore

/// A ``LocalStore`` in a folder: one file per key, each private (0600, in a 0700 folder),
/// written atomically (a crash leaves the old entry or the new, never half), versioned, and the
/// whole bounded in size (the entries stored longest ago go first).
///
/// An entry is a small JSON envelope around the bytes: the format's version, the key, when it
/// was stored. One from another version of the app, for another key, cut short, corrupt or over
/// the size bound is skipped with a log line (and removed, unless it could not be read at all:
/// a permission or I/O error leaves it for the user to see). A write that fails (a full disk) is
/// logged and dropped: the app then works from the network. Two copies of the app on one folder
/// each replace whole files, so neither reads half of the other's.
public final class FileLocalStore: LocalStore {
  /// The version of the entries' format this app writes and reads.
  public static let format = 1
  /// The default bound on the folder's entries: 8 MiB.
  public static let defaultMaximumSize = 8 * 1024 * 1024

  /// The folder.
  public let folder: URL
  /// The most bytes its entries take together; beyond it, the oldest go.
  public let maximumSize: Int
  private let logger: Logger
  private let now: @Sendable () -> Date
  /// Writes and evictions one at a time in this process.
  private let writing = Lock(())

  /// A store in `folder` (created private when first written), bounded to `maximumSize` bytes.
  public init(
    folder: URL, maximumSize: Int = FileLocalStore.defaultMaximumSize,
    logger: Logger = Logger(category: "LocalStore"),
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.folder = folder
    self.maximumSize = max(1024, maximumSize)
    self.logger = logger
    self.now = now
  }

  /// The file of `key`; `nil` for a key that is not a plain name (letters, digits, `.`, `-`,
  /// `_`; at most 100 characters), which is refused.
  func file(for key: String) -> URL? {
    guard !key.isEmpty, key.count <= 100, !key.hasPrefix("."),
      key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
    else {
      logger.error("Not a store key: \"\(key)\"")
      return nil
    }
    return folder.appendingPathComponent(key + ".entry")
  }

  /// See ``LocalStore/read(_:)``.
  public func read(_ key: String) -> StoredValue? {
    guard let file = file(for: key) else { return nil }
    let data: Data?
    do {
      data = try PrivateFiles.read(file, limit: maximumSize)
    } catch {
      logger.warning("Skipped the stored \(key): \(error)")
      if error.isCorrupt { try? PrivateFiles.remove(file) }
      return nil
    }
    guard let data else { return nil }
    // The format first: another version's entry may not even have this one's fields.
    if let version = try? Self.decoder.decode(Version.self, from: data),
      version.format != Self.format
    {
      let versions = "written in format \(version.format), this app reads \(Self.format)"
      logger.notice("Skipped the stored \(key): \(versions)")
      try? PrivateFiles.remove(file)
      return nil
    }
    let envelope: Envelope
    do {
      envelope = try Self.decoder.decode(Envelope.self, from: data)
    } catch {
      logger.warning("Skipped the stored \(key): not a whole entry (\(data.count) bytes)")
      try? PrivateFiles.remove(file)
      return nil
    }
    guard envelope.key == key else {
      logger.warning("Skipped the stored \(key): the file holds \"\(envelope.key)\"")
      try? PrivateFiles.remove(file)
      return nil
    }
    guard let value = envelope.text.map({ Data($0.utf8) }) ?? envelope.bytes else {
      logger.warning("Skipped the stored \(key): an entry without a value")
      try? PrivateFiles.remove(file)
      return nil
    }
    return StoredValue(data: value, storedAt: envelope.storedAt)
  }

  /// See ``LocalStore/write(_:_:)``.
  public func write(_ key: String, _ data: Data) {
    guard let file = file(for: key) else { return }
    let encoded: Data
    do {
      // Text as text (JSON stays readable, and searchable), other bytes as Base64.
      let text = String(data: data, encoding: .utf8)
      encoded = try Self.encoder.encode(
        Envelope(
          format: Self.format, key: key, storedAt: now(), text: text,
          bytes: text == nil ? data : nil))
    } catch {
      logger.warning("Did not store \(key): \(error)")
      return
    }
    guard encoded.count <= maximumSize else {
      logger.notice("Did not store \(key): \(encoded.count) bytes, over the store's \(maximumSize)")
      return
    }
    writing.withLock { _ in
      do {
        try PrivateFiles.write(encoded, to: file, temporaryPrefix: ".entry-")
      } catch {
        logger.warning("Did not store \(key): \(error)")
        return
      }
      evict(keeping: file)
    }
  }

  /// See ``LocalStore/remove(_:)``.
  public func remove(_ key: String) {
    guard let file = file(for: key) else { return }
    do {
      try PrivateFiles.remove(file)
    } catch {
      logger.warning("Could not remove the stored \(key): \(error)")
    }
  }

  /// See ``LocalStore/removeAll()``: the folder and everything in it.
  public func removeAll() {
    writing.withLock { _ in
      guard FileManager.default.fileExists(atPath: folder.path) else { return }
      do {
        try FileManager.default.removeItem(at: folder)
      } catch {
        logger.warning("Could not erase \(folder.path): \(error.localizedDescription)")
      }
    }
  }

  /// The entries' files with their sizes and ages, and the temporary files a crash left.
  private func contents() -> (entries: [(file: URL, size: Int, modified: Date)], leftovers: [URL]) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
      return ([], [])
    }
    var entries: [(URL, Int, Date)] = []
    var leftovers: [URL] = []
    let cutoff = Date().addingTimeInterval(-60)
    for name in names {
      let file = folder.appendingPathComponent(name)
      guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
        let size = (attributes[.size] as? NSNumber)?.intValue,
        let modified = attributes[.modificationDate] as? Date
      else { continue }
      if name.hasSuffix(".entry") {
        entries.append((file, size, modified))
      } else if name.hasPrefix(".entry-"), name.hasSuffix(".tmp"), modified < cutoff {
        leftovers.append(file)
      }
    }
    return (entries, leftovers)
  }

  /// Removes the oldest entries until the folder is within ``maximumSize`` (never `kept`, just
  /// written), and the temporary files of writes a crash interrupted.
  private func evict(keeping kept: URL) {
    let (entries, leftovers) = contents()
    for leftover in leftovers { try? PrivateFiles.remove(leftover) }
    var total = entries.reduce(0) { $0 + $1.size }
    for entry in entries.sorted(by: { $0.modified < $1.modified })
    where total > maximumSize && entry.file != kept {
      do {
        try PrivateFiles.remove(entry.file)
        total -= entry.size
      } catch {
        logger.warning("Could not remove \(entry.file.lastPathComponent): \(error)")
      }
    }
  }

  /// The one field every version's entries have.
  private struct Version: Decodable {
    var format: Int
  }

  /// An entry as it is written.
  private struct Envelope: Codable {
    var format: Int
    var key: String
    var storedAt: Date
    /// The value, when it is UTF-8 text.
    var text: String?
    /// The value, when it is not.
    var bytes: Data?
  }

  private static var encoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .millisecondsSince1970
    return encoder
  }

  private static var decoder: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .millisecondsSince1970
    return decoder
  }
}
