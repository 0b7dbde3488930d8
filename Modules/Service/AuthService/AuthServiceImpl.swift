import Core
import Foundation
import Network
import Repository
import Synchronization

/// The ``AuthService`` that signs in with the backend's token API and keeps the session in a
/// ``SessionStore``.
public final class AuthServiceImpl: AuthService {
  /// See ``AuthService/sessionState``.
  public let sessionState = Relay(SessionState.signedOut)
  private let repo: any AuthRepo
  private let store: any SessionStore
  private let logger: Logger
  private let now: @Sendable () -> Date
  private let session = Mutex<Session?>(nil)

  /// Creates the service.
  ///
  /// - Parameter now: The clock tokens expire by; replaceable in tests.
  public init(
    repo: any AuthRepo, store: any SessionStore, logger: Logger = Logger(category: "AuthService"),
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.repo = repo
    self.store = store
    self.logger = logger
    self.now = now
  }

  /// The current session, if any.
  public var currentSession: Session? { session.withLock { $0 } }

  // MARK: AuthService

  /// See ``AuthService/restoreSession()``. A missing file means signed out; an unreadable one
  /// is logged as a warning, removed, and also means signed out.
  public func restoreSession() async -> SessionState {
    let restored: Session?
    do {
      restored = try store.load()
    } catch {
      logger.warning("Starting signed out: \(error)")
      try? store.clear()
      restored = nil
    }
    session.withLock { $0 = restored }
    let state: SessionState = restored.map { .signedIn($0.user) } ?? .signedOut
    sessionState.send(state)
    return state
  }

  /// See ``AuthService/login(username:password:)``.
  public func login(username: String, password: String) async throws(ServiceError) -> User {
    let trimmed = username.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty, !password.isEmpty else {
      throw ServiceError(.validation, "Enter a username and a password.")
    }
    let tokens: TokensModel
    do {
      tokens = try await repo.login(username: trimmed, password: password)
    } catch {
      throw ServiceError(error)
    }
    let newSession = makeSession(tokens)
    adopt(newSession)
    sessionState.send(.signedIn(newSession.user))
    logger.info("Signed in as \(newSession.user.username)")
    return newSession.user
  }

  /// See ``AuthService/logout()``. The local session always ends, even when the server
  /// cannot be told.
  public func logout() async {
    let ended = session.withLock { session in
      defer { session = nil }
      return session
    }
    forgetSavedSession()
    sessionState.send(.signedOut)
    guard let ended else { return }
    do {
      try await repo.logout(accessToken: ended.accessToken)
    } catch {
      logger.notice("Signed out locally; the server was not told: \(error)")
    }
  }

  /// See ``AuthService/endSession(reason:)``.
  public func endSession(reason: String) async {
    let hadSession = session.withLock { session in
      defer { session = nil }
      return session != nil
    }
    forgetSavedSession()
    if hadSession || sessionState.value.user != nil { sessionState.send(.expired(reason: reason)) }
  }

  // MARK: AuthTokenSource

  /// The session's access token.
  public var currentAccessToken: AccessToken? {
    session.withLock { $0?.token }
  }

  /// Exchanges the refresh token and saves the new session (the auth plugin never calls it
  /// twice at once).
  public func refreshAccessToken() async throws -> AccessToken {
    guard let refreshToken = session.withLock({ $0?.refreshToken }) else {
      throw ServiceError(.unauthorized, "There is no session to refresh.")
    }
    let tokens: TokensModel
    do {
      tokens = try await repo.refresh(refreshToken: refreshToken)
    } catch {
      throw ServiceError(error)
    }
    let refreshed = makeSession(tokens)
    adopt(refreshed)
    logger.info("Refreshed the access token")
    if sessionState.value.user != refreshed.user { sessionState.send(.signedIn(refreshed.user)) }
    return refreshed.token
  }

  /// Ends the session after a failed refresh: the user must sign in again.
  public func invalidateSession(because failure: AuthenticationFailure) async {
    logger.warning("The session ended: \(failure)")
    await endSession(reason: "Your session has ended. Sign in again.")
  }

  // MARK: Helpers

  private func makeSession(_ tokens: TokensModel) -> Session {
    Session(
      accessToken: tokens.accessToken,
      expiresAt: now().addingTimeInterval(TimeInterval(tokens.expiresIn)),
      refreshToken: tokens.refreshToken, user: User(tokens.user))
  }

  private func adopt(_ newSession: Session) {
    session.withLock { $0 = newSession }
    do {
      try store.save(newSession)
    } catch {
      logger.warning("The session could not be saved; it lasts until the app quits: \(error)")
    }
  }

  private func forgetSavedSession() {
    do {
      try store.clear()
    } catch {
      logger.warning("The saved session could not be removed: \(error)")
    }
  }
}
