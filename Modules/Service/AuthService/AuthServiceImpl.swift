import Dispatch
import Foundation
import TrellisCore
import TrellisNetwork
import TrellisRepository

/// The ``AuthService`` that signs in with the backend's token API and keeps the session in a
/// ``SessionStore``.
///
/// Only the server ends a session: a refresh it refuses (`401`, or `400` with OAuth's
/// `invalid_grant`), a revocation, or a sign-out. A refresh that cannot reach the server, times
/// out, or gets any other answer (a `5xx` or `429`; a proxy's or a firewall's `403`, `409` or
/// `413`; a sign-in portal's page) keeps the session, in memory and in the store, and throws
/// ``Network/AuthenticationFailure/refreshUnavailable(_:)``; the next request tries again.
/// A refresh whose answer may have been lost on the way back (the connection dropped, the
/// request timed out) is tried once more at once with the same refresh token, and if that
/// fails too the session is kept with that token, so the next request after the network is
/// back (the event stream's next attempt, say) refreshes with it again: a server that rotates
/// refresh tokens must accept a replaced token until its successor is first used (the demo
/// backend does; see docs/network.md for what common providers allow).
///
/// The saved session is written off the lock that every request takes to read the token, on
/// a queue of its own, in the order the decisions were made. Instances of the app sharing the
/// store take turns to refresh (``SessionStore/coordinatingRefresh(_:)``), and an instance
/// takes a session another instance saved only if it is newer than its own.
public final class AuthServiceImpl: AuthService {
  /// See ``AuthService/sessionState``.
  public let sessionState = Relay(SessionState.signedOut)
  private let repo: any AuthRepo
  private let store: any SessionStore
  private let logger: Logger
  private let now: @Sendable () -> Date
  private let state = Lock(State())
  /// Applies this instance's writes of the saved session one at a time, in the order they
  /// were decided, away from ``state``'s lock.
  private let writes = DispatchQueue(label: "Trellis.AuthService.session-writes")

  /// The session and its generation. Every sign-in, sign-out and end of session starts a new
  /// generation; a token refresh applies its answer only if the generation it started in is
  /// still current, so a late answer never revives or overwrites a newer decision.
  private struct State {
    var session: Session?
    var generation = 0
    /// Whether ``session`` was taken from the store after another instance of the app
    /// refreshed it: that instance may still hold it, so its rejection here never clears the
    /// store (see ``invalidateSession(of:because:)``).
    var isAdopted = false
  }

  /// A change to the saved session, applied only if `condition` holds for what is saved then.
  private struct SessionWrite: Sendable {
    var change: SessionChange
    var condition: @Sendable (Session?) -> Bool
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
    let generation = state.withLock { state in
      state.session = restored
      state.isAdopted = false
      state.generation += 1
      return state.generation
    }
    let restoredState: SessionState = restored.map { .signedIn($0.user) } ?? .signedOut
    publish(restoredState, decidedIn: generation)
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
    let generation = await decide { state in
      state.session = newSession
      state.isAdopted = false
      state.generation += 1
      return (state.generation, SessionWrite(change: .save(newSession)) { _ in true })
    }
    publish(.signedIn(newSession.user), decidedIn: generation)
    // The user's id, not their name: the log is kept on the device.
    logger.info("Signed in (user \(newSession.user.id))")
    return newSession.user
  }

  /// See ``AuthService/logout()``. The local session always ends, even when the server
  /// cannot be told; the server is told by the refresh token, so a session whose access token
  /// has expired is revoked too.
  public func logout() async {
    let (ended, generation) = await endCurrentSession()
    publish(.signedOut, decidedIn: generation)
    guard let ended else { return }
    await revoke(ended, context: "Signed out locally; the server was not told")
  }

  /// See ``AuthService/endSession(reason:)``.
  public func endSession(reason: String) async {
    let (ended, generation) = await endCurrentSession()
    if ended != nil || sessionState.value.user != nil {
      publish(.expired(reason: reason), decidedIn: generation)
    }
  }

  // MARK: AuthTokenSource

  /// The session's access token. Never waits for file I/O.
  public var currentAccessToken: AccessToken? {
    state.withLock { $0.session?.token }
  }

  /// Exchanges the refresh token and saves the new session (the auth plugin never calls it
  /// twice at once; instances sharing the store take turns).
  ///
  /// - Throws: `AuthenticationFailure.notSignedIn` when there is no session;
  ///   `.sessionChanged` when the session ended or another began while the refresh was out
  ///   (its answer is then dropped, and the tokens it brought revoked); `.refreshRejected`
  ///   when the server refused the refresh token; `.refreshUnavailable` when the refresh
  ///   could not be made now (the session is kept).
  public func refreshAccessToken() async throws -> AccessToken {
    guard
      let (current, generation) = state.withLock({ state in
        state.session.map { ($0, state.generation) }
      })
    else {
      throw AuthenticationFailure.notSignedIn
    }
    do {
      return try await store.coordinatingRefresh {
        try await self.refresh(current, generation: generation)
      }
    } catch let error as SessionStoreError {
      throw AuthenticationFailure.refreshUnavailable("\(error)")
    }
  }

  /// One refresh of `held`, inside the store's refresh turn. `original` is the session the
  /// caller held when the refresh began (the auth plugin asks to end that one if the refresh
  /// is refused): a session taken from the store on the way, refused in its turn, is ended
  /// here, since nobody else names it.
  private func refresh(_ held: Session, generation: Int, original: Session? = nil) async throws
    -> AccessToken
  {
    let original = original ?? held
    var current = held
    // Another instance of the app sharing the store may have refreshed this session while
    // this one waited for its turn, which retired the refresh token held here: take its
    // session instead of presenting a dead refresh token (which would end the session). If
    // its access token has expired meanwhile (the other instance quit long ago), it is
    // refreshed at once rather than spent on a request sure to get a `401`.
    if let adopted = adoptNewerSavedSession(than: current, generation: generation) {
      guard adopted.token.hasExpired(at: now()) else { return adopted.token }
      current = adopted
    }
    let tokens: TokensModel
    do {
      tokens = try await exchange(current.refreshToken)
    } catch {
      guard state.withLock({ $0.generation }) == generation else {
        throw AuthenticationFailure.sessionChanged
      }
      // Refused: perhaps because an instance that does not take turns refreshed meanwhile.
      if let adopted = adoptNewerSavedSession(than: current, generation: generation) {
        guard adopted.token.hasExpired(at: now()) else { return adopted.token }
        return try await refresh(adopted, generation: generation, original: original)
      }
      // Only the server's refusal of the refresh token ends the session (`AuthRepo` reports
      // it as `.unauthorized`, decided on the status); a proxy's or a firewall's page does not.
      if case .unauthorized = error {
        // A session taken from the store in this refresh is not the one the caller will ask
        // to end (it names the token it held before): end it here.
        if current.refreshToken != original.refreshToken {
          await invalidateSession(of: current.token, because: .refreshRejected(error.message))
        }
        throw AuthenticationFailure.refreshRejected(error.message)
      }
      logger.notice("The session could not be refreshed now; it is kept: \(error)")
      throw AuthenticationFailure.refreshUnavailable(error.message)
    }
    let refreshed = makeSession(tokens)
    let spent = current.refreshToken
    let applied = await decide { state -> (Bool, SessionWrite?) in
      guard state.generation == generation, state.session != nil else { return (false, nil) }
      state.session = refreshed
      state.isAdopted = false
      // Saved over the session it replaces, or over an older one of the same user; never over
      // a newer one another instance saved since, nor over another user's (a copy of the app
      // that signed this user out and another in).
      return (
        true,
        SessionWrite(change: .save(refreshed)) { saved in
          guard let saved else { return true }
          return saved.refreshToken == spent
            || (saved.user.id == refreshed.user.id && !saved.isNewer(than: refreshed))
        }
      )
    }
    guard applied else {
      logger.info("A token refresh answered after the session changed; its answer is dropped")
      await revoke(refreshed, context: "The dropped refresh's tokens could not be revoked")
      throw AuthenticationFailure.sessionChanged
    }
    logger.info("Refreshed the access token")
    if sessionState.value.user != refreshed.user {
      publish(.signedIn(refreshed.user), decidedIn: generation)
    }
    return refreshed.token
  }

  /// Calls the server with `refreshToken`, and once more at once if the first answer may
  /// have been lost on its way back (the server may have rotated the token already: see the
  /// type's comment for what it must then accept).
  private func exchange(_ refreshToken: String) async throws(RepositoryError) -> TokensModel {
    do {
      return try await repo.refresh(refreshToken: refreshToken)
    } catch .offline(let reason) {
      logger.notice("The token refresh got no answer (\(reason)); trying once more")
      return try await repo.refresh(refreshToken: refreshToken)
    }
  }

  /// Takes the saved session when another instance has refreshed `current` (same user, a
  /// newer session) and the generation has not moved; returns it. An older saved session (a
  /// save of this instance's that failed) is never taken.
  private func adoptNewerSavedSession(than current: Session, generation: Int) -> Session? {
    guard let saved = try? store.load(), saved.user.id == current.user.id,
      saved.refreshToken != current.refreshToken, saved.isNewer(than: current)
    else { return nil }
    let adopted = state.withLock { state -> Bool in
      guard state.generation == generation, state.session?.refreshToken == current.refreshToken
      else { return false }
      state.session = saved
      state.isAdopted = true
      return true
    }
    guard adopted else { return nil }
    logger.info("Took the session another instance of the app refreshed")
    return saved
  }

  /// Ends the session `token` belongs to after the server refused its refresh: the user must
  /// sign in again. A session that has ended or been replaced since is left alone.
  ///
  /// The saved session is removed only if it is this one and this instance did not take it
  /// from another instance mid-run: a session adopted from the store is still held by the
  /// instance that saved it, which may be talking to a server that accepts it (two copies of
  /// the demo each run their own embedded backend), and removing it would sign that copy out
  /// at its next launch. That instance ends it on its own when its server refuses it.
  public func invalidateSession(of token: AccessToken, because failure: AuthenticationFailure)
    async
  {
    let ended = await decide { state -> ((wasAdopted: Bool, generation: Int)?, SessionWrite?) in
      guard let session = state.session, session.accessToken == token.value else {
        return (nil, nil)
      }
      let wasAdopted = state.isAdopted
      state.session = nil
      state.isAdopted = false
      state.generation += 1
      return (
        (wasAdopted, state.generation),
        SessionWrite(change: .clear) { !wasAdopted && $0?.refreshToken == session.refreshToken }
      )
    }
    guard let (wasAdopted, generation) = ended else { return }
    logger.warning("The session ended: \(failure)")
    if wasAdopted {
      logger.notice(
        "The saved session is kept: it came from another instance of the app, which may still use it"
      )
    }
    publish(.expired(reason: "Your session has ended. Sign in again."), decidedIn: generation)
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
  /// ended and the new generation. The saved session is removed if it belongs to the same
  /// user: another user's session, saved by another instance of the app, is left alone.
  private func endCurrentSession() async -> (ended: Session?, generation: Int) {
    await decide { state -> ((Session?, Int), SessionWrite?) in
      let ended = state.session
      state.session = nil
      state.isAdopted = false
      state.generation += 1
      guard let ended else { return ((nil, state.generation), nil) }
      return (
        (ended, state.generation),
        SessionWrite(change: .clear) { $0?.user.id == ended.user.id }
      )
    }
  }

  /// Publishes `newState`, the outcome of the decision that made `generation`, unless a later
  /// decision (a sign-in, a sign-out, an end of session) has been made since. Checked in the
  /// relay's own order: a decision's state is published after the waits for its write, so a
  /// sign-out decided meanwhile may already be published, and an older decision's state
  /// delivered after it would bring the session back (a data scope, an event stream acting
  /// for a user with no token).
  private func publish(_ newState: SessionState, decidedIn generation: Int) {
    sessionState.send(newState) { state.withLock { $0.generation } == generation }
  }

  /// Tells the server to end `session`; a failure is only logged.
  private func revoke(_ session: Session, context: String) async {
    do {
      try await repo.logout(refreshToken: session.refreshToken)
    } catch {
      logger.notice("\(context): \(error)")
    }
  }

  /// Applies `decision` to the state under its lock and queues the write it asks for in the
  /// same step, so that writes reach the store in the order of the decisions; returns once
  /// the write is done. The store's I/O (a lock another instance may hold for seconds, a
  /// sync to disk) runs on ``writes``, never under the lock ``currentAccessToken`` takes.
  private func decide<Result: Sendable>(
    _ decision: @Sendable (inout State) -> (Result, SessionWrite?)
  ) async -> Result {
    await withCheckedContinuation { continuation in
      state.withLock { state in
        let (result, write) = decision(&state)
        writes.async {
          if let write { self.apply(write) }
          continuation.resume(returning: result)
        }
      }
    }
  }

  /// Applies `write` to the saved session if its condition holds for what is saved now, as
  /// one step other instances cannot interleave with; a failure is logged (the session then
  /// lasts until the app quits, or stays saved).
  private func apply(_ write: SessionWrite) {
    do {
      try store.update { saved in write.condition(saved) ? write.change : .keep }
    } catch {
      logger.warning("The saved session could not be updated: \(error)")
    }
  }
}
