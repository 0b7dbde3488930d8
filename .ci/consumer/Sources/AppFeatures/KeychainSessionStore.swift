import Foundation
import TrellisService

/// The Keychain, as the session store uses it: one generic-password item, read, written and
/// deleted. On Apple platforms it is three calls to the Security framework (docs/apple.md
/// shows them); tests use an in-memory one.
public nonisolated protocol KeychainItem: Sendable {
  /// The item's data; `nil` when there is none (`errSecItemNotFound`).
  func read() throws -> Data?
  /// Adds or replaces the item's data.
  func write(_ data: Data) throws
  /// Deletes the item (no error when there is none).
  func delete() throws
}

/// A ``TrellisService/SessionStore`` in the Keychain: the session is a JSON value in one item.
/// One process uses it (an app extension sharing the item would be a second: then implement
/// `coordinatingRefresh` too, as `FileSessionStore` does).
public nonisolated final class KeychainSessionStore: SessionStore {
  private let item: any KeychainItem
  /// `update` reads and writes as one step within this process.
  private let lock = NSLock()

  /// A store in `item`.
  public init(item: any KeychainItem) {
    self.item = item
  }

  /// The saved session; `nil` when there is none.
  public func load() throws(SessionStoreError) -> Session? {
    let data: Data?
    do {
      data = try item.read()
    } catch {
      throw .io("the Keychain could not be read: \(error)")
    }
    guard let data else { return nil }
    do {
      return try JSONDecoder().decode(Session.self, from: data)
    } catch {
      throw .corrupt("the Keychain item is not a session")
    }
  }

  /// Saves `session`.
  public func save(_ session: Session) throws(SessionStoreError) {
    do {
      try item.write(try JSONEncoder().encode(session))
    } catch {
      throw .io("the Keychain could not be written: \(error)")
    }
  }

  /// Removes the saved session.
  public func clear() throws(SessionStoreError) {
    do {
      try item.delete()
    } catch {
      throw .io("the Keychain item could not be deleted: \(error)")
    }
  }

  /// Reads the session and applies `change` to it as one step.
  public func update(_ change: (Session?) -> SessionChange) throws(SessionStoreError) {
    lock.lock()
    defer { lock.unlock() }
    let current: Session?
    do {
      current = try load()
    } catch .corrupt {
      current = nil
    }
    switch change(current) {
    case .keep: break
    case .save(let session): try save(session)
    case .clear: try clear()
    }
  }
}
