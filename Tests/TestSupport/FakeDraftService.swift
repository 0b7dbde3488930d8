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
}
