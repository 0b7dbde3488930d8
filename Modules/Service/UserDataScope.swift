import TrellisCore
import TrellisRepository

/// Keeps what the app stores on the device (cached answers, drafts) to the signed-in user: each
/// ``TrellisRepository/UserLocalStore`` serves the user who signed in, or whose session was
/// restored at launch (their data stays), and every other user's data is erased; a sign-out,
/// or a session the server ended, erases all of it. The data is the user's: the next person to
/// sign in on the machine sees nothing of it, in the app or on disk.
public final class UserDataScope: Sendable {
  private let observation: ObservationToken

  /// Follows `sessionState` (its changes: the launch's own "signed out" before the session is
  /// restored erases nothing) for `stores`.
  public init(stores: [UserLocalStore], sessionState: Relay<SessionState>) {
    observation = sessionState.observe { state in
      for store in stores { store.setUser(state.user?.id) }
    }
    if let user = sessionState.value.user {
      for store in stores { store.setUser(user.id) }
    }
  }
}
