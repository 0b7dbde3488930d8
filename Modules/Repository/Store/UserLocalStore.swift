import Foundation
import TrellisCore

/// The signed-in user's ``LocalStore``: a ``FileLocalStore`` in a folder of the user's own
/// under `root`, so that what one user's session kept is never read in another's.
///
/// ``setUser(_:)`` says whose it is: a user's sign-in keeps that user's folder and erases every
/// other (the next user of the machine sees nothing of the previous one); a sign-out, or a
/// session the server ended, erases them all. Until a user is set it keeps and reads nothing.
/// ``setAside()`` is for what the user typed when the server ends their session: nobody is
/// served, but that user's folder stays for them until someone signs in.
public final class UserLocalStore: LocalStore {
  /// The folder holding one folder per user.
  public let root: URL
  private let maximumSize: Int
  private let isDurable: Bool
  private let logger: Logger
  private let now: @Sendable () -> Date
  /// The user served (or set aside: ``setAside()``) and their store.
  private let current = Lock<(userID: Int, store: FileLocalStore, isSetAside: Bool)?>(nil)

  /// A store under `root`, each user's bounded to `maximumSize` bytes; `isDurable` syncs each
  /// write to the disk (``FileLocalStore/isDurable``).
  public init(
    root: URL, maximumSize: Int = FileLocalStore.defaultMaximumSize, isDurable: Bool = true,
    logger: Logger = Logger(category: "LocalStore"),
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.root = root
    self.maximumSize = maximumSize
    self.isDurable = isDurable
    self.logger = logger
    self.now = now
  }

  /// The user whose data it keeps, if any (not while set aside).
  public var userID: Int? {
    current.withLock { current in current.flatMap { $0.isSetAside ? nil : $0.userID } }
  }

  /// Serves `userID`'s data from now on and erases every other user's; `nil` erases all. The
  /// user whose folder was set aside (``setAside()``) finds it as it was.
  public func setUser(_ userID: Int?) {
    let folder = userID.map { root.appendingPathComponent("user-\($0)", isDirectory: true) }
    current.withLock { current in
      if let userID, current?.userID == userID {
        current?.isSetAside = false
        return
      }
      // The previous user's store keeps nothing more (a write in flight ends first), so an
      // answer that arrives for them later cannot bring their folder back.
      current?.store.retire()
      current = userID.flatMap { id in
        folder.map {
          (
            id,
            FileLocalStore(
              folder: $0, maximumSize: maximumSize, isDurable: isDurable, logger: logger,
              now: now),
            false
          )
        }
      }
      erase(except: folder)
    }
  }

  /// Serves nobody, and keeps the current user's folder as it is for their return: the server
  /// ended their session (it expired, or was revoked), and what they typed is theirs to find
  /// when they sign in again. A write pinned before (``pinned()``: a draft being written as
  /// the session ended) still lands in it; nothing is read or kept through this store until
  /// ``setUser(_:)``, which resumes that folder for the same user and erases it for anyone
  /// else (or `nil`).
  public func setAside() {
    current.withLock { current in current?.isSetAside = true }
  }

  /// Removes every user's folder under ``root`` but `kept` (only those: the root may be a folder
  /// other things live in too, such as an app's Caches folder).
  private func erase(except kept: URL?) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else {
      return
    }
    for name in names where name.hasPrefix("user-") && name != kept?.lastPathComponent {
      do {
        try FileManager.default.removeItem(at: root.appendingPathComponent(name))
      } catch {
        logger.warning("Could not erase \(name) in \(root.path): \(error.localizedDescription)")
      }
    }
  }

  /// See ``LocalStore/read(_:)``.
  public func read(_ key: String) -> StoredValue? { store?.read(key) }
  /// See ``LocalStore/write(_:_:storedAt:)``.
  public func write(_ key: String, _ data: Data, storedAt: Date?) {
    store?.write(key, data, storedAt: storedAt)
  }
  /// See ``LocalStore/remove(_:)``.
  public func remove(_ key: String) { store?.remove(key) }
  /// See ``LocalStore/removeAll()``: the current user's entries.
  public func removeAll() { store?.removeAll() }
  /// See ``LocalStore/pinned()``: the signed-in user's store, which keeps nothing once another
  /// user is set; while no user is, a store that keeps nothing.
  public func pinned() -> any LocalStore { store ?? NowhereStore() }

  private var store: FileLocalStore? {
    current.withLock { current in current.flatMap { $0.isSetAside ? nil : $0.store } }
  }
}
