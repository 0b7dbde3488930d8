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
  private let state = Mutex(State())

  /// The session and its generation. Every sign-in, sign-out and end of session starts a new
  /// generation; a token refresh applies its answer only if the generation it started in is
  /// still current, so a late answer never revives or overwrites a newer decision.
  private struct State {
    var session: Session?
    var generation = 0
  }

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
  public var currentSession: Session? { state.withLock { $0.session } }

  // MARK: AuthService

  /// See ``AuthService/restoreSession()``. A missing file means signed out. A file that is not
  /// a session is logged as a warning and removed; a file that cannot be read (permissions, an
  /// I/O error) is logged and kept: both start signed out.
  public func restoreSession() async -> SessionState {
    let restored: Session?
    do {
      restored = try store.load()
    } catch {
      switch error {
      case .corrupt:
        logger.warning("Starting signed out: \(error)")
        // Removed only if it is still unreadable as a session: another instance may have
        // written a good one meanwhile.
        try? store.update { $0 == nil ? .clear : .keep }
      case .io:
        logger.warning("Starting signed out; the saved session is kept: \(error)")
      }
      restored = nil
    }
    state.withLock { state in
      state.session = restored
      state.generation += 1
    }
    let restoredState: SessionState = restored.map { .signedIn($0.user) } ?? .signedOut
    sessionState.send(restoredState)
    return restoredState
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
    state.withLock { state in
      state.session = newSession
      state.generation += 1
      persist(.save(newSession), when: { _ in true })
    }
    sessionState.send(.signedIn(newSession.user))
    logger.info("Signed in as \(newSession.user.username)")
    return newSession.user
  }

  /// See ``AuthService/logout()``. The local session always ends, even when the server
  /// cannot be told; the server is told by the refresh token, so a session whose access token
  /// has expired is revoked too.
  public func logout() async {
    let ended = endCurrentSession()
    sessionState.send(.signedOut)
    guard let ended else { return }
    await revoke(ended, context: "Signed out locally; the server was not told")
  }

  /// See ``AuthService/endSession(reason:)``.
  public func endSession(reason: String) async {
    let ended = endCurrentSession()
    if ended != nil || sessionState.value.user != nil {
      sessionState.send(.expired(reason: reason))
    }
  }

  // MARK: AuthTokenSource

  /// The session's access token.
  public var currentAccessToken: AccessToken? {
    state.withLock { $0.session?.token }
  }

  /// Exchanges the refresh token and saves the new session (the auth plugin never calls it
  /// twice at once).
  ///
  /// - Throws: `AuthenticationFailure.notSignedIn` when there is no session, and
  ///   `AuthenticationFailure.sessionChanged` when the session ended or another began while
  ///   the refresh was out: its answer is then dropped (and the tokens it brought revoked),
  ///   never applied over the newer state.
  public func refreshAccessToken() async throws -> AccessToken {
    guard
      let (current, generation) = state.withLock({ state in
        state.session.map { ($0, state.generation) }
      })
    else {
      throw AuthenticationFailure.notSignedIn
    }
    // Another instance of the app sharing the session file may have refreshed this session
    // already, which retired the refresh token held here: take its tokens instead of calling
    // the server with a dead refresh token (which would end the session for both).
    if let token = adoptNewerSavedSession(than: current, generation: generation) { return token }
    let tokens: TokensModel
    do {
      tokens = try await repo.refresh(refreshToken: current.refreshToken)
    } catch {
      guard state.withLock({ $0.generation }) == generation else {
        throw AuthenticationFailure.sessionChanged
      }
      // Refused: perhaps because another instance refreshed while this call was out.
      if let token = adoptNewerSavedSession(than: current, generation: generation) {
        return token
      }
      throw ServiceError(error)
    }
    let refreshed = makeSession(tokens)
    let applied = state.withLock { state -> Bool in
      guard state.generation == generation, state.session != nil else { return false }
      state.session = refreshed
      // Saved unless another instance has since saved a session of its own there.
      persist(.save(refreshed)) { saved in
        saved == nil || saved?.refreshToken == current.refreshToken
      }
      return true
    }
    guard applied else {
      logger.info("A token refresh answered after the session changed; its answer is dropped")
      await revoke(refreshed, context: "The dropped refresh's tokens could not be revoked")
      throw AuthenticationFailure.sessionChanged
    }
    logger.info("Refreshed the access token")
    if sessionState.value.user != refreshed.user { sessionState.send(.signedIn(refreshed.user)) }
    return refreshed.token
  }

  /// Takes the saved session when another instance has refreshed `current` (same user, a
  /// newer refresh token) and the generation has not moved; returns its token.
  private func adoptNewerSavedSession(than current: Session, generation: Int) -> AccessToken? {
    guard let saved = try? store.load(), saved.user.id == current.user.id,
      saved.refreshToken != current.refreshToken
    else { return nil }
    let adopted = state.withLock { state -> Bool in
      guard state.generation == generation, state.session?.refreshToken == current.refreshToken
      else { return false }
      state.session = saved
      return true
    }
    guard adopted else { return nil }
    logger.info("Took the session another instance of the app refreshed")
    return saved.token
  }

  /// Ends the session `token` belongs to after its refresh failed: the user must sign in
  /// again. A session that has ended or been replaced since is left alone.
  public func invalidateSession(of token: AccessToken, because failure: AuthenticationFailure)
    async
  {
    let ended = state.withLock { state -> Session? in
      guard let session = state.session, session.accessToken == token.value else { return nil }
      state.session = nil
      state.generation += 1
      persist(.clear) { $0?.refreshToken == session.refreshToken }
      return session
    }
    guard ended != nil else { return }
    logger.warning("The session ended: \(failure)")
    sessionState.send(.expired(reason: "Your session has ended. Sign in again."))
  }

  // MARK: Helpers

  private func makeSession(_ tokens: TokensModel) -> Session {
    let issued = now()
    return Session(
      accessToken: tokens.accessToken,
      expiresAt: issued.addingTimeInterval(TimeInterval(max(0, tokens.expiresIn))),
      refreshToken: tokens.refreshToken, user: User(tokens.user), issuedAt: issued)
  }

  /// Ends the current session, if any, starting a new generation; returns the session that
  /// ended. The saved session is removed if it belongs to the same user: another user's
  /// session, saved by another instance of the app, is left alone.
  ///
  /// The saved file is written and removed under the same lock as the session, so the file
  /// always follows the last decision: a refresh that lands after a sign-out cannot write its
  /// session back.
  private func endCurrentSession() -> Session? {
    state.withLock { state in
      let ended = state.session
      state.session = nil
      state.generation += 1
      if let ended { persist(.clear) { $0?.user.id == ended.user.id } }
      return ended
    }
  }

  /// Tells the server to end `session`; a failure is only logged.
  private func revoke(_ session: Session, context: String) async {
    do {
      try await repo.logout(refreshToken: session.refreshToken)
    } catch {
      logger.notice("\(context): \(error)")
    }
  }

  /// Applies `change` to the saved session if `condition` holds for what is saved now, as one
  /// step other instances cannot interleave with; a failure is logged (the session then lasts
  /// until the app quits, or stays saved).
  private func persist(_ change: SessionChange, when condition: (Session?) -> Bool) {
    do {
      try store.update { saved in condition(saved) ? change : .keep }
    } catch {
      logger.warning("The saved session could not be updated: \(error)")
    }
  }
}
