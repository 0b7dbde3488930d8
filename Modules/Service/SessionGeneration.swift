import TrellisCore

/// Which session a piece of work began in, so that what it gets after an `await` is written (to
/// a cache in memory, to a relay, to the screen) only while that session lasts: an answer that
/// arrives after a sign-out, or after another user signed in, goes nowhere.
///
/// The generation moves on whenever the signed-in user changes: a sign-out, a session the server
/// ended, a sign-in, and another user's sign-in with no sign-out between (handled as a sign-out
/// followed by a sign-in). A token refresh, or the same user's profile changing, is the same
/// session; every sign-out or end of session moves it, even with nobody signed in.
///
/// ```swift
/// let mark = generation.mark                 // before the await
/// let tasks = try await repo.tasks(...)
/// generation.ifCurrent(mark) { seen.remember(tasks) }  // written only in the same session
/// ```
///
/// `changed` (given to ``init(sessionState:changed:)``) runs after each move, outside the lock:
/// where a service forgets what it holds for the session that ended. A write under
/// ``ifCurrent(_:_:)`` either happens before the move (and the forgetting then removes it) or
/// not at all.
public final class SessionGeneration: Sendable {
  /// A session, as ``mark`` was when the work began.
  public struct Mark: Hashable, Sendable {
    fileprivate let value: Int
  }

  private let state: Lock<(generation: Int, userID: Int?)>
  private let observation = Lock<ObservationToken?>(nil)

  /// Follows `sessionState`; `changed` is called with the new user (`nil`: nobody) after each
  /// change of session.
  public init(
    sessionState: Relay<SessionState>,
    changed: @escaping @Sendable (_ user: User?) -> Void = { _ in }
  ) {
    let initial = sessionState.value
    let state = Lock((generation: 0, userID: initial.user?.id))
    self.state = state
    @Sendable func follow(_ session: SessionState) {
      let userID = session.user?.id
      let moved = state.withLock { state -> Bool in
        // Every end of a session moves it, even with nobody signed in: whatever was loaded
        // meanwhile goes too.
        guard state.userID != userID || userID == nil else { return false }
        state.userID = userID
        state.generation += 1
        return true
      }
      if moved { changed(session.user) }
    }
    let token = sessionState.observe(follow)
    observation.withLock { $0 = token }
    // A change between the first read and the observation's start is not missed.
    let now = sessionState.value
    if now != initial { follow(now) }
  }

  /// The current session.
  public var mark: Mark { state.withLock { Mark(value: $0.generation) } }

  /// Whether `mark` is still the current session.
  public func isCurrent(_ mark: Mark) -> Bool {
    state.withLock { $0.generation == mark.value }
  }

  /// Runs `write` with the session's user (`nil`: nobody) if `mark` is still the current
  /// session, with no change of session during it; returns whether it ran. `write` must be
  /// short and must not wait for the session.
  @discardableResult
  public func ifCurrentUser(_ mark: Mark, _ write: (_ userID: Int?) -> Void) -> Bool {
    state.withLock { state -> Bool in
      guard state.generation == mark.value else { return false }
      write(state.userID)
      return true
    }
  }

  /// Runs `write` if `mark` is still the current session, with no change of session during it;
  /// returns whether it ran. `write` must be short and must not wait for the session (it holds
  /// the generation's lock).
  @discardableResult
  public func ifCurrent(_ mark: Mark, _ write: () -> Void) -> Bool {
    state.withLock { state -> Bool in
      guard state.generation == mark.value else { return false }
      write()
      return true
    }
  }
}
