import Foundation
import Synchronization
import TrellisService

/// A ``DraftService`` in memory: every draft kept at once (as encoded data, like the app's),
/// so a second reactor over the same fake reads what the first one kept, as after a relaunch.
public final class FakeDraftService: DraftService {
  private let drafts = Mutex<[String: Data]>([:])

  /// Creates the fake, with no draft.
  public init() {}

  /// The keys of the drafts kept.
  public var keys: [String] { drafts.withLock { $0.keys.sorted() } }

  /// The draft kept under `key`.
  public func draft<Value: Decodable & Sendable>(_ type: Value.Type, for key: String) -> Value? {
    guard let data = drafts.withLock({ $0[key] }) else { return nil }
    return try? JSONDecoder().decode(type, from: data)
  }

  /// Keeps `draft` under `key`.
  public func keep<Value: Encodable>(_ draft: Value, for key: String) {
    guard let data = try? JSONEncoder().encode(draft) else { return }
    drafts.withLock { $0[key] = data }
  }

  /// Drops the draft under `key`.
  public func discard(_ key: String) {
    _ = drafts.withLock { $0.removeValue(forKey: key) }
  }

  /// Nothing to write: every draft is kept at once.
  public func flush() {}

  /// The keys dropped through ``pinned()``'s drafts, in order: the discards a screen makes
  /// after an `await` (a save) must go to the drafts of the user who began it.
  public var pinnedDiscards: [String] { pinnedDiscardLog.withLock { $0 } }
  private let pinnedDiscardLog = Mutex<[String]>([])

  /// The fake's own drafts (it has no users), recording what is discarded through them.
  public func pinned() -> any DraftService { Pinned(fake: self) }

  private struct Pinned: DraftService {
    let fake: FakeDraftService

    func draft<Value: Decodable & Sendable>(_ type: Value.Type, for key: String) -> Value? {
      fake.draft(type, for: key)
    }
    func keep<Value: Encodable>(_ draft: Value, for key: String) { fake.keep(draft, for: key) }
    func discard(_ key: String) {
      fake.pinnedDiscardLog.withLock { $0.append(key) }
      fake.discard(key)
    }
    func flush() {}
    func pinned() -> any DraftService { self }
  }
}
