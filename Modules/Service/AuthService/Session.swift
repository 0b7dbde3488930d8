import Foundation
import TrellisCore
import TrellisNetwork

/// A signed-in session as it is saved: tokens, expiry, and the user.
///
/// Its `description` shows the user and the expiry, never a token.
public struct Session: Sendable, Equatable, Codable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The bearer token.
  public var accessToken: String
  /// When the bearer token expires.
  public var expiresAt: Date
  /// The token that buys a new bearer token.
  public var refreshToken: String
  /// The signed-in user.
  public var user: User
  /// When the bearer token was issued; `nil` in sessions saved before it was recorded. Of two
  /// sessions of the same user, the one issued later is the newer: the auth service never
  /// takes an older session from the store over the one it holds.
  public var issuedAt: Date?

  /// Creates a session.
  public init(
    accessToken: String, expiresAt: Date, refreshToken: String, user: User, issuedAt: Date? = nil
  ) {
    self.accessToken = accessToken
    self.expiresAt = expiresAt
    self.refreshToken = refreshToken
    self.user = user
    self.issuedAt = issuedAt
  }

  /// Whether this session was issued after `other` (a session without an issue time is the
  /// oldest).
  public func isNewer(than other: Session) -> Bool {
    guard let issuedAt else { return false }
    guard let otherIssuedAt = other.issuedAt else { return true }
    return issuedAt > otherIssuedAt
  }

  /// The access token as the auth plugin takes it.
  public var token: AccessToken {
    AccessToken(value: accessToken, expiresAt: expiresAt, issuedAt: issuedAt)
  }

  /// `Session(user: alice, expires ...)`: the tokens are left out.
  public var description: String {
    "Session(user: \(user.username), expires \(expiresAt), tokens <redacted>)"
  }

  /// The same as ``description``.
  public var debugDescription: String { description }
}

/// Keeps the session between launches.
public protocol SessionStore: Sendable {
  /// The saved session; `nil` when none is saved.
  ///
  /// - Throws: ``SessionStoreError/corrupt(_:)`` when what is saved is not a session (it may
  ///   be discarded), ``SessionStoreError/io(_:)`` when it cannot be read (keep it).
  func load() throws(SessionStoreError) -> Session?
  /// Saves `session`, replacing any saved one.
  func save(_ session: Session) throws(SessionStoreError)
  /// Removes the saved session.
  func clear() throws(SessionStoreError)
  /// Reads the saved session (`nil` when there is none or it is corrupt) and applies what
  /// `change` decides, as one step: another instance of the app sharing the store cannot
  /// write in between. The auth service uses it to save or remove a session only if the
  /// store still holds what it expects.
  ///
  /// - Throws: ``SessionStoreError/io(_:)`` when the store cannot be read, locked or written,
  ///   or holds what this version must leave as it is (a newer version's session file): the
  ///   change is not made, and the auth service logs it (the session then lasts until the app
  ///   quits).
  func update(_ change: (Session?) -> SessionChange) throws(SessionStoreError)

  /// Runs `refresh` while no other instance of the app sharing this store runs its own, so
  /// that two instances never present the same refresh token to a server that rotates them
  /// (the second would be refused, and its session end). The auth service reads the saved
  /// session first thing inside, and takes it if another instance refreshed meanwhile.
  ///
  /// The default runs `refresh` at once: right for a store only one process uses.
  ///
  /// - Throws: What `refresh` throws, or ``SessionStoreError/io(_:)`` when the store cannot
  ///   be locked in time (the refresh is then tried again later; the session is kept).
  func coordinatingRefresh<Value: Sendable>(
    _ refresh: @Sendable () async throws -> Value
  ) async throws -> Value
}

extension SessionStore {
  /// Runs `refresh` at once: a store only one process uses needs no coordination.
  public func coordinatingRefresh<Value: Sendable>(
    _ refresh: @Sendable () async throws -> Value
  ) async throws -> Value {
    try await refresh()
  }
}

/// What ``SessionStore/update(_:)`` does with the saved session.
public enum SessionChange: Sendable, Equatable {
  /// Leave it as it is.
  case keep
  /// Replace it with this session.
  case save(Session)
  /// Remove it.
  case clear
}

/// Why a session store failed.
public enum SessionStoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is saved is not a session.
  case corrupt(String)
  /// The store could not be read or written (permissions, I/O, a lock held too long).
  case io(String)

  /// A one-line explanation.
  public var description: String {
    switch self {
    case .corrupt(let reason): "the saved session is unreadable: \(reason)"
    case .io(let reason): "the session file could not be read or written: \(reason)"
    }
  }
}

/// Keeps the session in memory only: for tests and for apps that should forget on quit.
public final class InMemorySessionStore: SessionStore {
  private let session = Lock<Session?>(nil)

  /// Creates an empty store.
  public init(session: Session? = nil) {
    self.session.withLock { $0 = session }
  }

  /// The kept session.
  public func load() throws(SessionStoreError) -> Session? { session.withLock { $0 } }
  /// Keeps `session`.
  public func save(_ session: Session) throws(SessionStoreError) {
    self.session.withLock { $0 = session }
  }
  /// Forgets the session.
  public func clear() throws(SessionStoreError) { session.withLock { $0 = nil } }
  /// Applies `change` under the store's lock.
  public func update(_ change: (Session?) -> SessionChange) throws(SessionStoreError) {
    session.withLock { session in
      switch change(session) {
      case .keep: break
      case .save(let new): session = new
      case .clear: session = nil
      }
    }
  }
}
