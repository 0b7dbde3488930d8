import TrellisCore
import TrellisRepository

/// The signed-in user (FLo: a reactor monitors user state through a service subject).
public protocol UserService: Sendable {
  /// The signed-in user, or `nil` before it is loaded and after sign-out.
  var currentUser: Relay<User?> { get }
  /// Loads the user (from the repository's cache unless `forceRefresh`) and publishes it.
  func loadCurrentUser(forceRefresh: Bool) async throws(ServiceError) -> User
  /// Changes the profile and publishes the updated user. `nil` leaves a field as it is.
  func updateProfile(displayName: String?, title: String?, bio: String?)
    async throws(ServiceError) -> User
}

/// The ``UserService`` over a ``UserRepo`` (FLo's `UserServiceImpl(userDataRepo:)`).
///
/// A user loaded or changed is published only in the session the call began in
/// (``SessionGeneration``): an answer that arrives after a sign-out, or after another user
/// signed in, is dropped and the call throws ``ServiceError/Kind/cancelled``.
public final class UserServiceImpl: UserService {
  /// See ``UserService/currentUser``.
  public let currentUser = Relay<User?>(nil)
  private let repo: any UserRepo
  private let session: SessionGeneration

  /// Creates the service. It forgets the user, and the repository's cache, whenever the
  /// session ends or another user's begins. Until the user is loaded it publishes the session's
  /// user, or the one the repository kept from an earlier launch when it is the same user (it
  /// is newer: a profile changed since the sign-in).
  public init(repo: any UserRepo, sessionState: Relay<SessionState>) {
    self.repo = repo
    let currentUser = currentUser
    @Sendable func known(_ user: User) -> User {
      guard let kept = repo.storedUser()?.value, kept.id == user.id else { return user }
      return User(kept)
    }
    session = SessionGeneration(sessionState: sessionState) { user in
      repo.clear()
      currentUser.send(user.map(known))
    }
    currentUser.send(sessionState.value.user.map(known))
  }

  /// Publishes `user` if the session is still the one `mark` names (under the relay's lock,
  /// so a change of session, which publishes after it moved, always comes after); returns
  /// whether it was.
  private func publish(_ user: User, in mark: SessionGeneration.Mark) -> Bool {
    var published = false
    currentUser.update { current in
      guard session.isCurrent(mark) else { return }
      current = user
      published = true
    }
    return published
  }

  /// The error of a call whose answer came after its session ended.
  private static let sessionChanged = ServiceError(
    .cancelled, "The session changed while this was loading.")

  /// See ``UserService/loadCurrentUser(forceRefresh:)``.
  public func loadCurrentUser(forceRefresh: Bool = false) async throws(ServiceError) -> User {
    let mark = session.mark
    let user: User
    do {
      user = User(try await repo.currentUser(forceRefresh: forceRefresh))
    } catch {
      throw ServiceError(error)
    }
    guard publish(user, in: mark) else { throw Self.sessionChanged }
    return user
  }

  /// See ``UserService/updateProfile(displayName:title:bio:)``.
  public func updateProfile(displayName: String?, title: String?, bio: String?)
    async throws(ServiceError) -> User
  {
    if let displayName, displayName.trimmingCharacters(in: .whitespaces).isEmpty {
      throw ServiceError(
        .validation, "Display name is required.", fields: ["displayName": "required"])
    }
    let mark = session.mark
    let user: User
    do {
      user = User(
        try await repo.updateProfile(
          ProfileChangeModel(displayName: displayName, title: title, bio: bio)))
    } catch {
      throw ServiceError(error)
    }
    guard publish(user, in: mark) else { throw Self.sessionChanged }
    return user
  }
}
