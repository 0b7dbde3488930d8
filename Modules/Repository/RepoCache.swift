import TrellisCore

/// The latest data a repository keeps (FLo: "keeps the latest data in the class and hands it to
/// services, refreshing when asked"): values by key, each fresh for `lifetime`.
///
/// A write that changes a list invalidates it. An invalidation also discards whatever fetch
/// was in flight for that key when it happened, so a response that left the server before the
/// write can never be stored as fresh after it.
final class RepoCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  private struct Entry {
    var value: Value
    var storedAt: ContinuousClock.Instant
  }

  private struct State {
    var entries: [Key: Entry] = [:]
    /// Bumped by each invalidation of a key, and for all keys by `epoch`.
    var generations: [Key: Int] = [:]
    var epoch = 0

    func version(of key: Key) -> (Int, Int) { (generations[key, default: 0], epoch) }
  }

  private let lifetime: Duration
  private let now: @Sendable () -> ContinuousClock.Instant
  private let state = Lock(State())

  init(
    lifetime: Duration,
    now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
  ) {
    self.lifetime = lifetime
    self.now = now
  }

  /// The cached value if it is still fresh, else a fresh one from `load` (which is then
  /// cached). `forceRefresh` skips the cache.
  func value<Failure: Error>(
    for key: Key, forceRefresh: Bool,
    load: () async throws(Failure) -> Value
  ) async throws(Failure) -> Value {
    let (cached, version) = state.withLock { state -> (Value?, (Int, Int)) in
      let version = state.version(of: key)
      guard !forceRefresh, let entry = state.entries[key], now() - entry.storedAt < lifetime
      else { return (nil, version) }
      return (entry.value, version)
    }
    if let cached { return cached }
    let value = try await load()
    state.withLock { state in
      // Stored only if nothing invalidated the key while the load was in flight.
      if state.version(of: key) == version {
        state.entries[key] = Entry(value: value, storedAt: now())
      }
    }
    return value
  }

  /// Which ``invalidateAll()`` the cache is at: read before a request whose answer will be
  /// stored with ``store(_:for:ifClearedNotSince:)``.
  var era: Int { state.withLock { $0.epoch } }

  /// Replaces the cached value, as after a write that returned the new value, unless the cache
  /// was cleared since `era` (the answer belongs to a session that has ended: it is dropped).
  func store(_ value: Value, for key: Key, ifClearedNotSince era: Int) {
    state.withLock { state in
      guard state.epoch == era else { return }
      state.generations[key, default: 0] += 1
      state.entries[key] = Entry(value: value, storedAt: now())
    }
  }

  /// Forgets `key`, and discards any fetch of it in flight.
  func invalidate(_ key: Key) {
    state.withLock { state in
      state.generations[key, default: 0] += 1
      state.entries[key] = nil
    }
  }

  /// Forgets everything (sign-out).
  func invalidateAll() {
    state.withLock { state in
      state.epoch += 1
      state.entries.removeAll()
    }
  }
}
