import Foundation
import TrellisCore

/// A ``LocalStore`` in a folder: one file per key, each private (0600, in a 0700 folder),
/// written atomically (a crash leaves the old entry or the new, never half), versioned, and the
/// whole bounded in size (the entries stored longest ago go first; an ``Outbox``'s never: what
/// the user did and the server has not seen is not a cache, and its own bound keeps it small).
///
/// An entry is a small JSON envelope around the bytes: the format's version, the key, when it
/// was stored. One from another version of the app, for another key, cut short, corrupt or over
/// the size bound is skipped with a log line, and removed unless it is another version's (two
/// versions may share the folder) or could not be read at all (a permission or I/O error leaves
/// it for the user to see). A write that fails (a full disk) is
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
  /// Whether each write is synced to the disk before it counts (see
  /// ``PrivateFiles/write(_:to:temporaryPrefix:durably:)``): drafts are, cached answers need not
  /// be (a write a power cut loses is fetched again).
  public let isDurable: Bool
  private let logger: Logger
  private let now: @Sendable () -> Date
  /// Writes, removals and evictions one at a time in this process, with the entries' total size
  /// as last counted (`nil`: not counted yet) and the writes since: the folder is scanned on the
  /// first write, when the count passes the bound, and every ``rescanInterval`` writes (another
  /// copy of the app may write to the folder too), not on every write.
  private let writing = Lock<Tally>(Tally())
  /// What ``writing`` guards.
  private struct Tally {
    /// The entries' total size as last counted; `nil` before the first count.
    var total: Int?
    /// Writes since the last count.
    var writesSinceScan = 0
    /// Whether the store keeps nothing more (``retire()``).
    var isRetired = false
  }
  /// How many writes may go by between two scans of the folder.
  static let rescanInterval = 64

  /// A store in `folder` (created private when first written), bounded to `maximumSize` bytes;
  /// `isDurable` syncs each write to the disk.
  public init(
    folder: URL, maximumSize: Int = FileLocalStore.defaultMaximumSize, isDurable: Bool = true,
    logger: Logger = Logger(category: "LocalStore"),
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.folder = folder
    self.maximumSize = max(1024, maximumSize)
    self.isDurable = isDurable
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
      if error.isCorrupt { removeBadEntry(file, reading: nil) }
      return nil
    }
    guard let data else { return nil }
    // The format first: another version's entry may not even have this one's fields.
    if let version = try? Self.decoder.decode(Version.self, from: data),
      version.format != Self.format
    {
      // Kept: another version of the app may share the folder (its entry goes when this
      // version writes the key, or with the oldest entries).
      let versions = "written in format \(version.format), this app reads \(Self.format)"
      logger.notice("Skipped the stored \(key): \(versions)")
      return nil
    }
    let envelope: Envelope
    do {
      envelope = try Self.decoder.decode(Envelope.self, from: data)
    } catch {
      logger.warning("Skipped the stored \(key): not a whole entry (\(data.count) bytes)")
      removeBadEntry(file, reading: data)
      return nil
    }
    guard envelope.key == key else {
      logger.warning("Skipped the stored \(key): the file holds \"\(envelope.key)\"")
      removeBadEntry(file, reading: data)
      return nil
    }
    guard let value = envelope.text.map({ Data($0.utf8) }) ?? envelope.bytes else {
      logger.warning("Skipped the stored \(key): an entry without a value")
      removeBadEntry(file, reading: data)
      return nil
    }
    return StoredValue(data: value, storedAt: envelope.storedAt)
  }

  /// Removes `file`, found bad (its contents `bad`; `nil`: over the size bound), unless a
  /// write replaced it since (this copy of the app or another may have put a good entry there
  /// between the read and now).
  private func removeBadEntry(_ file: URL, reading bad: Data?) {
    writing.withLock { tally in
      guard !tally.isRetired else { return }
      let size = Self.size(of: file)
      if let bad {
        guard (try? PrivateFiles.read(file, limit: maximumSize)) == bad else { return }
      } else {
        guard size > maximumSize else { return }
      }
      try? PrivateFiles.remove(file)
      tally.total = tally.total.map { max(0, $0 - size) }
    }
  }

  /// See ``LocalStore/write(_:_:storedAt:)``.
  public func write(_ key: String, _ data: Data, storedAt: Date?) {
    guard let file = file(for: key) else { return }
    let encoded: Data
    do {
      // Text as text (JSON stays readable, and searchable), other bytes as Base64.
      let text = String(data: data, encoding: .utf8)
      encoded = try Self.encoder.encode(
        Envelope(
          format: Self.format, key: key, storedAt: storedAt ?? now(), text: text,
          bytes: text == nil ? data : nil))
    } catch {
      logger.warning("Did not store \(key): \(error)")
      return
    }
    guard encoded.count <= maximumSize else {
      logger.notice("Did not store \(key): \(encoded.count) bytes, over the store's \(maximumSize)")
      return
    }
    writing.withLock { tally in
      guard !tally.isRetired else { return }
      let replaced = Self.size(of: file)
      do {
        try PrivateFiles.write(
          encoded, to: file, temporaryPrefix: ".entry-", durably: isDurable)
      } catch {
        logger.warning("Did not store \(key): \(error)")
        return
      }
      tally.writesSinceScan += 1
      if let total = tally.total, tally.writesSinceScan < Self.rescanInterval {
        tally.total = total + encoded.count - replaced
        if total + encoded.count - replaced <= maximumSize { return }
      }
      tally.total = evict(keeping: file)
      tally.writesSinceScan = 0
    }
  }

  /// Keeps nothing more: writes and removals after it do nothing (a write in flight ends
  /// first), so its folder, once erased, stays erased. ``UserLocalStore`` retires a user's
  /// store when another user is set.
  public func retire() {
    writing.withLock { $0.isRetired = true }
  }

  /// The size of `file`; 0 when there is none.
  private static func size(of file: URL) -> Int {
    var status = stat()
    return stat(file.path, &status) == 0 ? Int(status.st_size) : 0
  }

  /// See ``LocalStore/remove(_:)``.
  public func remove(_ key: String) {
    guard let file = file(for: key) else { return }
    writing.withLock { tally in
      guard !tally.isRetired else { return }
      let size = Self.size(of: file)
      do {
        try PrivateFiles.remove(file)
        tally.total = tally.total.map { max(0, $0 - size) }
      } catch {
        logger.warning("Could not remove the stored \(key): \(error)")
      }
    }
  }

  /// See ``LocalStore/removeAll()``: the folder and everything in it.
  public func removeAll() {
    writing.withLock { tally in
      guard !tally.isRetired else { return }
      tally.total = nil
      tally.writesSinceScan = 0
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
  /// written), and the temporary files of writes a crash interrupted; returns the entries'
  /// total size after.
  private func evict(keeping kept: URL) -> Int {
    let (entries, leftovers) = contents()
    for leftover in leftovers { try? PrivateFiles.remove(leftover) }
    var total = entries.reduce(0) { $0 + $1.size }
    for entry in entries.sorted(by: { $0.modified < $1.modified })
    where total > maximumSize && entry.file != kept
      && !entry.file.lastPathComponent.hasPrefix(OutboxKeys.prefix)
    {
      do {
        try PrivateFiles.remove(entry.file)
        total -= entry.size
      } catch {
        logger.warning("Could not remove \(entry.file.lastPathComponent): \(error)")
      }
    }
    return total
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
