import TrellisCore
import TrellisRepository

/// Keeps what the app stores on the device (cached answers, drafts) to the signed-in user: each
/// ``TrellisRepository/UserLocalStore`` serves the user who signed in, or whose session was
/// restored at launch (their data stays), and every other user's data is erased. The data is
/// the user's: the next person to sign in on the machine sees nothing of it, in the app or on
/// disk.
///
/// | What happens | caches | drafts |
/// |---|---|---|
/// | the user signs in (or the session is restored) | theirs kept, others' erased | theirs kept, others' erased |
/// | the user signs out (also after the server ended the session) | erased | erased |
/// | the server ends the session (expired, revoked) | erased | kept on disk for that user |
/// | another user signs in (with or without a sign-out) | erased | erased |
/// | a launch starts signed out | nothing erased | nothing erased |
///
/// Drafts are what the user typed: a session the server ended is not the user leaving, and
/// the same user signing in again finds them (another user erases them).
public final class UserDataScope: Sendable {
  private let observation: ObservationToken

  /// Follows `sessionState` for `caches` (answers kept to show at once: erased whenever the
  /// session ends) and `drafts` (input the user typed: kept for the same user across a session
  /// the server ended). It acts on what the session does, not on every state sent: a sign-in
  /// (or a restored session) keeps that user's data and erases every other user's; a sign-out
  /// erases all of it; a session the server ended erases the caches and sets the drafts aside
  /// (``TrellisRepository/UserLocalStore/setAside()``). A launch that starts signed out (no
  /// session, or a session file that could not be read this time: it is kept, and so is the
  /// data) erases nothing.
  ///
  /// `onUserLeft` runs after the stores are erased for a user who left: a sign-out (not at a
  /// launch that starts signed out), or another user's sign-in after theirs (with or without a
  /// session the server ended in between). It is for what else the device keeps of a session,
  /// such as the app's log file (``TrellisCore/FileLogSink/erase()``). Whose that is after a
  /// launch that started signed out is not known (the last user's session may have ended in a
  /// run before), so the first sign-in then runs it too; a restored session (the last user
  /// signed in, who saved it) does not, nor does a user signing in again after the server ended
  /// their own session in this run. This holds when the scope is made before the saved session
  /// is restored, and the launch restores it (``AuthService/restoreSession()``): an app that
  /// never restores takes its first sign-in for a restored session. A save of the session that
  /// failed (a lock another instance held) or two copies of the app signed in as different
  /// users on one log can leave a restored user with another's lines.
  public init(
    caches: [UserLocalStore], drafts: [UserLocalStore] = [], sessionState: Relay<SessionState>,
    onUserLeft: @escaping @Sendable () -> Void = {}
  ) {
    let last = Lock(
      (
        state: sessionState.value,
        user: sessionState.value.user.map { LastUser.user($0.id) } ?? .notYetKnown
      ))
    let stores = caches + drafts
    observation = sessionState.observe { state in
      let (previous, previousUser) = last.withLock { last in
        defer { last = (state, Self.lastUser(after: state, previous: last.state, was: last.user)) }
        return last
      }
      switch state {
      case .signedIn(let user):
        for store in stores { store.setUser(user.id) }
        switch previousUser {
        case .unknown: onUserLeft()
        case .user(let id) where id != user.id: onUserLeft()
        case .notYetKnown, .user, .nobody: break
        }
      case .expired:
        for store in caches { store.setUser(nil) }
        for store in drafts { store.setAside() }
      case .signedOut:
        // The user signing out erases it all, after a session the server ended too (the
        // drafts set aside for their return: they chose to leave). A launch that starts
        // signed out erases nothing.
        if case .signedOut = previous { return }
        for store in stores { store.setUser(nil) }
        onUserLeft()
      }
    }
    if let user = sessionState.value.user {
      for store in stores { store.setUser(user.id) }
    }
  }

  /// Who the device's data (the log) last belonged to.
  private enum LastUser: Equatable, Sendable {
    /// Nothing published yet: the launch.
    case notYetKnown
    /// The launch started signed out: someone from a run before, perhaps.
    case unknown
    /// Nobody: the last user signed out in this run (their data went).
    case nobody
    /// This user (kept past a session the server ended).
    case user(Int)
  }

  private static func lastUser(after state: SessionState, previous: SessionState, was: LastUser)
    -> LastUser
  {
    switch state {
    case .signedIn(let user): return .user(user.id)
    case .expired: return was
    case .signedOut:
      if case .signedOut = previous { return was == .notYetKnown ? .unknown : was }
      return .nobody
    }
  }
}
