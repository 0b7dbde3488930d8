import TrellisCore
import TrellisRepository

/// Keeps what the app stores on the device (cached answers, drafts) to the signed-in user: each
/// ``TrellisRepository/UserLocalStore`` serves the user who signed in, or whose session was
/// restored at launch (their data stays), and every other user's data is erased; a sign-out,
/// or a session the server ended, erases all of it. The data is the user's: the next person to
/// sign in on the machine sees nothing of it, in the app or on disk.
public final class UserDataScope: Sendable {
  private let observation: ObservationToken

  /// Follows `sessionState` for `stores`. It acts on what the session does, not on every state
  /// sent: a sign-in (or a restored session) keeps that user's data and erases every other
  /// user's; a sign-out or a session the server ended erases all of it. A launch that starts
  /// signed out (no session, or a session file that could not be read this time: it is kept,
  /// and so is the data) erases nothing.
  public init(stores: [UserLocalStore], sessionState: Relay<SessionState>) {
    let last = Lock(sessionState.value)
    observation = sessionState.observe { state in
      let previous = last.withLock { last in
        defer { last = state }
        return last
      }
      switch state {
      case .signedIn(let user):
        for store in stores { store.setUser(user.id) }
      case .expired:
        for store in stores { store.setUser(nil) }
      case .signedOut:
        guard previous.user != nil else { return }
        for store in stores { store.setUser(nil) }
      }
    }
    if let user = sessionState.value.user {
      for store in stores { store.setUser(user.id) }
    }
  }
}
