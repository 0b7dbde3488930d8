import Foundation
import TrellisCore

extension LocalStore {
  /// The value kept under `key`, decoded as `type`, with when it was stored; `nil` when none is
  /// kept, or when what is kept no longer decodes (an older model, another version's): it is
  /// removed, and `logger` says so (the key and the type, never the content: keep what the
  /// user typed out of keys).
  public func value<Value: Decodable & Sendable>(
    _ type: Value.Type, forKey key: String,
    logger: Logger = Logger(category: "LocalStore")
  ) -> Stored<Value>? {
    guard let stored = read(key) else { return nil }
    do {
      return Stored(
        try StoreCoding.decoder.decode(type, from: stored.data), storedAt: stored.storedAt)
    } catch {
      logger.notice(
        "Skipped the stored \(key): it does not read as \(String(describing: Value.self)) (an older or another version's); removed"
      )
      remove(key)
      return nil
    }
  }

  /// Keeps `value` under `key`, encoded as JSON, as stored at `storedAt` (`nil`: now).
  public func keep<Value: Encodable>(_ value: Value, forKey key: String, storedAt: Date? = nil) {
    guard let data = try? StoreCoding.encoder.encode(value) else { return }
    write(key, data, storedAt: storedAt)
  }
}

/// How stored values are encoded: JSON with ISO 8601 dates, as the server sends them.
public enum StoreCoding {
  /// The encoder of stored values.
  public static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys]
    return encoder
  }()

  /// The decoder of stored values.
  public static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }()
}
