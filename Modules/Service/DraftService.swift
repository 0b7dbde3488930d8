import Foundation
import TrellisCore
import TrellisRepository

/// Keeps what the user is typing on the device, so a form closed by a quit or a crash opens
/// again as it was: a draft is kept as it changes (written a moment after the last change,
/// several changes in one write), read back when the form opens, and dropped when it is saved
/// or the user discards it.
public protocol DraftService: Sendable {
  /// The draft kept under `key`, if any.
  func draft<Value: Decodable & Sendable>(_ type: Value.Type, for key: String) -> Value?
  /// Keeps `draft` under `key` (written shortly; ``flush()`` writes it now).
  func keep<Value: Encodable>(_ draft: Value, for key: String)
  /// Drops the draft under `key`.
  func discard(_ key: String)
  /// Writes every draft not yet written: the app is about to quit.
  func flush()
}

/// The ``DraftService`` over a ``TrellisRepository/LocalStore`` (the user's drafts folder:
/// Application Support on Apple platforms, backed up with the app).
public final class DraftServiceImpl: DraftService {
  private let store: any LocalStore
  private let delay: Duration
  private let sleep: @Sendable (Duration) async throws -> Void
  /// Drafts kept but not yet written, each with the store it goes to (the user's who typed
  /// it: see ``TrellisRepository/LocalStore/pinned()``), and whether a write is scheduled.
  private let pending = Lock<(drafts: [String: Pending], isScheduled: Bool)>(([:], false))

  /// A draft not yet written.
  private struct Pending {
    var data: Data
    var store: any LocalStore
  }
  /// Writes and discards one at a time, so a discard is never undone by a write in flight.
  private let writing = Lock(())

  /// A service over `store`, writing `delay` after the first of a run of changes.
  public init(
    store: any LocalStore, delay: Duration = .milliseconds(500),
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
  ) {
    self.store = store
    self.delay = delay
    self.sleep = sleep
  }

  /// See ``DraftService/draft(_:for:)``: the one kept last, written or not.
  public func draft<Value: Decodable & Sendable>(_ type: Value.Type, for key: String) -> Value? {
    // One typed by the user signed in now (not by one who has signed out since).
    let current = store.pinned()
    if let waiting = pending.withLock({ $0.drafts[key] }), waiting.store === current {
      return try? StoreCoding.decoder.decode(type, from: waiting.data)
    }
    return current.value(type, forKey: key)?.value
  }

  /// See ``DraftService/keep(_:for:)``.
  public func keep<Value: Encodable>(_ draft: Value, for key: String) {
    guard let data = try? StoreCoding.encoder.encode(draft) else { return }
    let target = store.pinned()
    let schedules = pending.withLock { pending -> Bool in
      pending.drafts[key] = Pending(data: data, store: target)
      defer { pending.isScheduled = true }
      return !pending.isScheduled
    }
    guard schedules else { return }
    let (delay, sleep) = (delay, sleep)
    Task { [weak self] in
      try? await sleep(delay)
      self?.flush()
    }
  }

  /// See ``DraftService/discard(_:)``.
  public func discard(_ key: String) {
    writing.withLock { _ in
      _ = pending.withLock { $0.drafts.removeValue(forKey: key) }
      store.remove(key)
    }
  }

  /// See ``DraftService/flush()``.
  public func flush() {
    writing.withLock { _ in
      let drafts = pending.withLock { pending in
        defer { pending = ([:], false) }
        return pending.drafts
      }
      // Each to its user's store: one whose user has signed out since keeps nothing.
      for (key, draft) in drafts { draft.store.write(key, draft.data) }
    }
  }
}
