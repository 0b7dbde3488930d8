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
public protocol LocalStore: AnyObject, Sendable {
  /// The value under `key`, if one is kept and readable.
  func read(_ key: String) -> StoredValue?
  /// Keeps `data` under `key`, replacing what was there, as stored at `storedAt` (`nil`: now;
  /// a value changed here without asking the server keeps the age of the answer it came from).
  func write(_ key: String, _ data: Data, storedAt: Date?)
  /// Forgets `key`.
  func remove(_ key: String)
  /// Forgets everything.
  func removeAll()
  /// The store as it is now, for work that ends later: a repository takes it before a request
  /// and writes the answer through it, so an answer for a user who has signed out since goes
  /// nowhere (``UserLocalStore`` gives the signed-in user's own store, which stops keeping
  /// anything when that user's session ends), never into the next user's data. A store that
  /// does not change whose it is gives itself.
  func pinned() -> any LocalStore
}

extension LocalStore {
  /// See ``LocalStore/pinned()``: this store.
  public func pinned() -> any LocalStore { self }

  /// Keeps `data` under `key`, stored now.
  public func write(_ key: String, _ data: Data) { write(key, data, storedAt: nil) }
}

/// A ``LocalStore`` that keeps nothing: what ``UserLocalStore/pinned()`` gives while no user is
/// signed in.
final class NowhereStore: LocalStore {
  func read(_ key: String) -> StoredValue? { nil }
  func write(_ key: String, _ data: Data, storedAt: Date?) {}
  func remove(_ key: String) {}
  func removeAll() {}
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

  /// See ``LocalStore/write(_:_:storedAt:)``.
  public func write(_ key: String, _ data: Data, storedAt: Date?) {
    let stored = StoredValue(data: data, storedAt: storedAt ?? now())
    values.withLock { $0[key] = stored }
  }

  /// See ``LocalStore/remove(_:)``.
  public func remove(_ key: String) { values.withLock { _ = $0.removeValue(forKey: key) } }

  /// See ``LocalStore/removeAll()``.
  public func removeAll() { values.withLock { $0.removeAll() } }
}
