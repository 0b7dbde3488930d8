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
public final class UserServiceImpl: UserService {
  /// See ``UserService/currentUser``.
  public let currentUser = Relay<User?>(nil)
  private let repo: any UserRepo
  private let sessionObservation: ObservationToken

  /// Creates the service. It forgets the user, and the repository's cache, whenever the
  /// session ends. Until the user is loaded it publishes the session's user, or the one the
  /// repository kept from an earlier launch when it is the same user (it is newer: a profile
  /// changed since the sign-in).
  public init(repo: any UserRepo, sessionState: Relay<SessionState>) {
    self.repo = repo
    let currentUser = currentUser
    @Sendable func known(_ user: User) -> User {
      guard let kept = repo.storedUser()?.value, kept.id == user.id else { return user }
      return User(kept)
    }
    sessionObservation = sessionState.observe { state in
      switch state {
      case .signedIn(let user):
        if currentUser.value?.id != user.id { currentUser.send(known(user)) }
      case .signedOut, .expired:
        repo.clear()
        currentUser.send(nil)
      }
    }
    currentUser.send(sessionState.value.user.map(known))
  }

  /// See ``UserService/loadCurrentUser(forceRefresh:)``.
  public func loadCurrentUser(forceRefresh: Bool = false) async throws(ServiceError) -> User {
    do {
      let user = User(try await repo.currentUser(forceRefresh: forceRefresh))
      currentUser.send(user)
      return user
    } catch {
      throw ServiceError(error)
    }
  }

  /// See ``UserService/updateProfile(displayName:title:bio:)``.
  public func updateProfile(displayName: String?, title: String?, bio: String?)
    async throws(ServiceError) -> User
  {
    if let displayName, displayName.trimmingCharacters(in: .whitespaces).isEmpty {
      throw ServiceError(
        .validation, "Display name is required.", fields: ["displayName": "required"])
    }
    do {
      let user = User(
        try await repo.updateProfile(
          ProfileChangeModel(displayName: displayName, title: title, bio: bio)))
      currentUser.send(user)
      return user
    } catch {
      throw ServiceError(error)
    }
  }
}
