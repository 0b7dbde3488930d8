import Foundation
import TrellisCore

/// What a store kept: the bytes and when they were stored.
public struct StoredValue: Sendable, Equatable {
  /// The bytes, as written.
  public var data: Data
  /// When they were written.
  public var storedAt: Date

  /// A stored value.
  public init(data: Data, storedAt: Date) {
    self.data = data
    self.storedAt = storedAt
  }
}

/// What the app keeps on the device for the signed-in user between launches: the answers the
/// repositories cache (so a screen shows what it last showed at once, offline too) and drafts.
/// Keys are the repositories' own short names (`projects`, `tasks.2`, `draft.compose`).
///
/// A store never fails its caller: an entry that cannot be read (a file from another version
/// of the app, cut short, corrupt, unreadable) is as if it were not there, and a write that
/// cannot be made (a full disk) is dropped; each is logged. It holds no secret: no token and no
/// password is ever written to it.
///
/// Implementations: ``FileLocalStore`` (the data folder, bounded in size), ``MemoryLocalStore``
/// (tests, and an app that keeps nothing). ``UserLocalStore`` keys one by the signed-in user and
/// erases it when the session ends.
public protocol LocalStore: Sendable {
  /// The value under `key`, if one is kept and readable.
  func read(_ key: String) -> StoredValue?
  /// Keeps `data` under `key`, replacing what was there.
  func write(_ key: String, _ data: Data)
  /// Forgets `key`.
  func remove(_ key: String)
  /// Forgets everything.
  func removeAll()
}

/// A ``LocalStore`` in memory: for tests, and for an app that keeps nothing between launches.
public final class MemoryLocalStore: LocalStore {
  private let values = Lock<[String: StoredValue]>([:])
  private let now: @Sendable () -> Date

  /// An empty store; `now` dates the writes.
  public init(now: @escaping @Sendable () -> Date = { Date() }) {
    self.now = now
  }

  /// The keys kept, sorted.
  public var keys: [String] { values.withLock { $0.keys.sorted() } }

  /// See ``LocalStore/read(_:)``.
  public func read(_ key: String) -> StoredValue? { values.withLock { $0[key] } }

  /// See ``LocalStore/write(_:_:)``.
  public func write(_ key: String, _ data: Data) {
    let stored = StoredValue(data: data, storedAt: now())
    values.withLock { $0[key] = stored }
  }

  /// See ``LocalStore/remove(_:)``.
  public func remove(_ key: String) { values.withLock { _ = $0.removeValue(forKey: key) } }

  /// See ``LocalStore/removeAll()``.
  public func removeAll() { values.withLock { $0.removeAll() } }
}
