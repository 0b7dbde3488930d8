import Foundation
import TrellisCore

/// Changes the user made that the server has not confirmed yet, kept on the device in the order
/// they were made, each with the idempotency key it is sent with every time (so a change sent
/// twice, or whose answer was lost, is made once by a server that honours the key).
///
/// A change is added before it is first sent and removed when the server has answered it, so
/// one made offline, or whose answer never came, is still here after a quit or a crash, for
/// the next send. It lives in a ``LocalStore`` under one key: give it the user's durable store
/// (the drafts' ``UserLocalStore``), and it follows that store's rules: private, written
/// atomically, one user's never read in another's session, erased at sign-out and kept for
/// the same user when the server ends the session. It is bounded (``limit`` changes: an
/// ``append(_:)`` beyond is refused, never an older change dropped) and versioned (its key
/// names its format's version, so another version's outbox is left alone); an entry that no
/// longer reads (cut short, written by a model that changed) is skipped with a log line, and
/// the others are kept.
public final class Outbox<Change: Codable & Sendable & Equatable>: Sendable {
  /// One change, with the key it is sent with.
  public struct Entry: Codable, Sendable, Equatable, Identifiable {
    /// The idempotency key: the same at every send of this change, across launches.
    public let id: String
    /// The change.
    public var change: Change
    /// When the user made it.
    public let madeAt: Date

    /// An entry.
    public init(id: String, change: Change, madeAt: Date) {
      self.id = id
      self.change = change
      self.madeAt = madeAt
    }
  }

  /// Why a change was not kept.
  public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The outbox holds ``Outbox/limit`` changes already.
    case full(limit: Int)
    /// The device did not keep it (no space left, the store's size bound, no user signed in).
    case notKept

    /// A sentence for the user.
    public var description: String {
      switch self {
      case .full(let limit):
        "\(limit) changes are waiting to be sent already. Connect to send them first."
      case .notKept:
        "The change could not be kept on this device (it may be full), so it was not made."
      }
    }
  }

  /// The start of every outbox's key in its store: a store that evicts what it keeps to stay
  /// within its size (``FileLocalStore``) never evicts these (what the user did and the server
  /// has not seen is not a cache).
  public static var keyPrefix: String { OutboxKeys.prefix }

  /// The version of the outbox's format, part of its key in the store.
  public static var formatVersion: Int { 1 }

  /// The most changes it keeps.
  public let limit: Int
  let store: any LocalStore
  private let key: String
  private let logger: Logger
  private let now: @Sendable () -> Date
  /// Each read, change and write in this process one at a time (shared with the outboxes
  /// ``pinned()`` makes).
  private let serial: Lock<Void>
  /// The stores a ``sendWaiting(with:)`` is sending from, each with whether another call came
  /// meanwhile (shared with the ``pinned()`` copies; one user's send never holds another's).
  let sending: Lock<[ObjectIdentifier: Bool]>

  /// An outbox named `name` in `store` (its key there: `outbox.v1.<name>`), of at most `limit`
  /// changes; `now` dates them.
  public init(
    store: any LocalStore, name: String, limit: Int = 200,
    logger: Logger = Logger(category: "Outbox"), now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.store = store
    key = "\(OutboxKeys.prefix)v\(Self.formatVersion).\(name)"
    self.limit = max(1, limit)
    self.logger = logger
    self.now = now
    serial = Lock(())
    sending = Lock([:])
  }

  private init(
    store: any LocalStore, key: String, limit: Int, logger: Logger,
    now: @escaping @Sendable () -> Date, serial: Lock<Void>,
    sending: Lock<[ObjectIdentifier: Bool]>
  ) {
    self.store = store
    self.key = key
    self.limit = limit
    self.logger = logger
    self.now = now
    self.serial = serial
    self.sending = sending
  }

  /// The outbox as it is now, for work that ends later (a send): over the store's
  /// ``LocalStore/pinned()``, so what that work changes after a sign-out goes nowhere, never
  /// into the next user's outbox. It shares this outbox's lock (copies of a ``Lock`` share
  /// it), so a change made here and one made there never meet halfway.
  public func pinned() -> Outbox {
    Outbox(
      store: store.pinned(), key: key, limit: limit, logger: logger, now: now, serial: serial,
      sending: sending)
  }

  /// The changes, oldest first.
  public var entries: [Entry] { serial.withLock { _ in read() } }

  /// Adds `change` after the others, with a new key; returns its entry once the store holds it.
  ///
  /// - Throws: ``Failure/full(limit:)`` when it holds ``limit`` changes (none is dropped);
  ///   ``Failure/notKept`` when the store did not keep it.
  @discardableResult
  public func append(_ change: Change) throws(Failure) -> Entry {
    try append { change }
  }

  /// Adds the change `make` returns after the others, with a new key; returns its entry.
  ///
  /// `make` runs under the outbox's lock, so what it reads to decide the change (the id the
  /// server gave a task made here, which a send records before it rewrites the outbox) cannot
  /// change between the reading and the keeping. It must not use this outbox.
  ///
  /// - Throws: ``Failure/full(limit:)`` when it holds ``limit`` changes (none is dropped);
  ///   ``Failure/notKept`` when the store did not keep it.
  @discardableResult
  public func append(making make: () -> Change) throws(Failure) -> Entry {
    try serial.withLock { (_: inout ()) throws(Failure) -> Entry in
      var entries = read()
      guard entries.count < limit else { throw .full(limit: limit) }
      let change = make()
      // Whole seconds: what the store keeps (ISO 8601) reads back the same.
      let madeAt = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
      let entry = Entry(id: UUID().uuidString, change: change, madeAt: madeAt)
      entries.append(entry)
      write(entries)
      // Read back: a store that dropped the write (a full disk, its size bound, a session
      // ended) must not leave the caller thinking the change is safe.
      guard read().last?.id == entry.id else {
        logger.error("The outbox \(key) did not keep a change")
        throw .notKept
      }
      return entry
    }
  }

  /// Replaces the change of entry `id` with what `transform` makes of it (a temporary id
  /// replaced by the server's, two changes to one task folded); nothing if it is not here.
  public func update(_ id: String, _ transform: (inout Change) -> Void) {
    serial.withLock { _ in
      var entries = read()
      guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
      transform(&entries[index].change)
      write(entries)
    }
  }

  /// Replaces entry `id` in its place by `change` under a new key (a change resolved against
  /// the server's newer version is another request: the old key would be refused with it);
  /// returns the new entry, `nil` if `id` is not here.
  @discardableResult
  public func renew(_ id: String, with change: Change) -> Entry? {
    serial.withLock { _ -> Entry? in
      var entries = read()
      guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
      let entry = Entry(id: UUID().uuidString, change: change, madeAt: entries[index].madeAt)
      entries[index] = entry
      write(entries)
      return entry
    }
  }

  /// Replaces each change with what `transform` makes of it, and drops those it makes `nil`.
  public func rewrite(_ transform: (Entry) -> Change?) {
    serial.withLock { _ in
      let entries = read()
      let rewritten = entries.compactMap { entry in
        transform(entry).map { Entry(id: entry.id, change: $0, madeAt: entry.madeAt) }
      }
      if rewritten != entries { write(rewritten) }
    }
  }

  /// Removes entry `id` (the server answered it); nothing if it is not here.
  public func remove(_ id: String) {
    serial.withLock { _ in
      var entries = read()
      guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
      entries.remove(at: index)
      write(entries)
    }
  }

  /// Removes every change.
  public func removeAll() {
    serial.withLock { _ in store.remove(key) }
  }

  /// The stored entries; those that do not read are skipped with a log line.
  private func read() -> [Entry] {
    guard let stored = store.read(key) else { return [] }
    guard let file = try? StoreCoding.decoder.decode(File.self, from: stored.data) else {
      logger.warning("Skipped the outbox \(key): it cannot be read")
      return []
    }
    let skipped = file.entries.count { $0.entry == nil }
    if skipped > 0 {
      logger.warning("Skipped \(skipped) change(s) of the outbox \(key) that cannot be read")
    }
    return file.entries.compactMap(\.entry)
  }

  private func write(_ entries: [Entry]) {
    if entries.isEmpty {
      store.remove(key)
    } else {
      store.keep(File(entries: entries.map(Slot.init)), forKey: key)
    }
  }

  /// What is stored: the entries in order.
  private struct File: Codable {
    var entries: [Slot]
  }

  /// One stored entry, `nil` when it does not read (the others still do).
  private struct Slot: Codable {
    var entry: Entry?

    init(_ entry: Entry) { self.entry = entry }

    init(from decoder: any Decoder) throws {
      entry = try? Entry(from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
      try entry.encode(to: encoder)
    }
  }
}

/// The outboxes' keys in a store.
enum OutboxKeys {
  /// What every outbox key begins with.
  static let prefix = "outbox."
}
