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
  /// The drafts of the user signed in now, for what is done with them after an `await` (a
  /// save's discard): they stay that user's whatever the session does meanwhile. Set aside
  /// because the server ended the session, the draft is still dropped (else it would come back
  /// when they sign in again, and the task be made twice); once another user has signed in,
  /// nothing is kept or dropped through it (that user's drafts are never touched).
  func pinned() -> any DraftService
}

/// The ``DraftService`` over a ``TrellisRepository/LocalStore`` (the user's drafts folder:
/// Application Support on Apple platforms, backed up with the app).
public final class DraftServiceImpl: DraftService {
  private let store: any LocalStore
  private let delay: Duration
  private let sleep: @Sendable (Duration) async throws -> Void
  /// Drafts kept but not yet written, by the store they go to (the user's who typed them: see
  /// ``TrellisRepository/LocalStore/pinned()``) and key, so that one user's draft never
  /// replaces another's of the same key; and whether a write is scheduled.
  private let pending = Lock<(drafts: [PendingKey: Pending], isScheduled: Bool)>(([:], false))

  /// Where a pending draft goes: its store (held by the draft, so the identity stays its own)
  /// and its key.
  private struct PendingKey: Hashable {
    var store: ObjectIdentifier
    var key: String

    init(_ key: String, in store: any LocalStore) {
      self.store = ObjectIdentifier(store)
      self.key = key
    }
  }

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
    draft(type, for: key, in: store.pinned())
  }

  fileprivate func draft<Value: Decodable & Sendable>(
    _ type: Value.Type, for key: String, in target: any LocalStore
  ) -> Value? {
    if let waiting = pending.withLock({ $0.drafts[PendingKey(key, in: target)] }) {
      return try? StoreCoding.decoder.decode(type, from: waiting.data)
    }
    return target.value(type, forKey: key)?.value
  }

  /// See ``DraftService/keep(_:for:)``.
  public func keep<Value: Encodable>(_ draft: Value, for key: String) {
    keep(draft, for: key, in: store.pinned())
  }

  fileprivate func keep<Value: Encodable>(
    _ draft: Value, for key: String, in target: any LocalStore
  ) {
    guard let data = try? StoreCoding.encoder.encode(draft) else { return }
    let schedules = pending.withLock { pending -> Bool in
      pending.drafts[PendingKey(key, in: target)] = Pending(data: data, store: target)
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
    // The draft of the user signed in now (none while their session is set aside).
    discard(key, from: store.pinned())
  }

  /// Drops the draft under `key` from `target` only (a pending one too, if it goes there).
  fileprivate func discard(_ key: String, from target: any LocalStore) {
    writing.withLock { _ in
      _ = pending.withLock { $0.drafts.removeValue(forKey: PendingKey(key, in: target)) }
      target.remove(key)
    }
  }

  /// See ``DraftService/pinned()``.
  public func pinned() -> any DraftService {
    PinnedDrafts(service: self, store: store.pinned())
  }

  /// See ``DraftService/flush()``.
  public func flush() {
    writing.withLock { _ in
      let drafts = pending.withLock { pending in
        defer { pending = ([:], false) }
        return pending.drafts
      }
      // Each to its user's store: one whose user has signed out since keeps nothing.
      for (key, draft) in drafts { draft.store.write(key.key, draft.data) }
    }
  }
}

/// ``DraftServiceImpl``'s drafts of one user (``DraftService/pinned()``).
private struct PinnedDrafts: DraftService {
  let service: DraftServiceImpl
  let store: any LocalStore

  func draft<Value: Decodable & Sendable>(_ type: Value.Type, for key: String) -> Value? {
    service.draft(type, for: key, in: store)
  }

  func keep<Value: Encodable>(_ draft: Value, for key: String) {
    service.keep(draft, for: key, in: store)
  }

  func discard(_ key: String) { service.discard(key, from: store) }

  func flush() { service.flush() }

  func pinned() -> any DraftService { self }
}
