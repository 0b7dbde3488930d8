import TrellisCore
import TrellisNetwork

/// The signed-in user's data.
///
/// Caching: the user is kept for five minutes; ``updateProfile(_:)`` replaces it with the
/// server's answer; ``clear()`` forgets it (sign-out).
public protocol UserRepo: Sendable {
  /// The signed-in user, from the cache unless `forceRefresh` or stale.
  func currentUser(forceRefresh: Bool) async throws(RepositoryError) -> UserModel
  /// Changes the profile and returns the updated user.
  func updateProfile(_ change: ProfileChangeModel) async throws(RepositoryError) -> UserModel
  /// Forgets the cached user.
  func clear()
  /// The signed-in user as last answered, with when; `nil` when none is stored. No request.
  func storedUser() -> Stored<UserModel>?
}

extension UserRepo {
  /// None: a repository that keeps nothing between launches.
  public func storedUser() -> Stored<UserModel>? { nil }
}

/// The ``UserRepo`` that calls ``UserDataAPI`` (FLo's `userDataRepoImpl`).
public final class UserRepoImpl: UserRepo {
  private let requester: HTTPRequester<UserDataAPI>
  private let cache: RepoCache<String, UserModel>
  private let store: (any LocalStore)?

  /// Creates the repository; `store` keeps the user between launches.
  public init(
    requester: HTTPRequester<UserDataAPI>, lifetime: Duration = .seconds(300),
    store: (any LocalStore)? = nil
  ) {
    self.requester = requester
    cache = RepoCache(lifetime: lifetime)
    self.store = store
  }

  /// See ``UserRepo/currentUser(forceRefresh:)``.
  public func currentUser(forceRefresh: Bool = false) async throws(RepositoryError) -> UserModel {
    try await cache.value(for: "me", forceRefresh: forceRefresh) { () throws(RepositoryError) in
      let store = store?.pinned()  // the user's who asked, whoever is signed in at the answer
      let user = try await requester.fetch(.me, as: UserModel.self)
      store?.keep(user, forKey: "user")
      return user
    }
  }

  /// See ``UserRepo/storedUser()``.
  public func storedUser() -> Stored<UserModel>? {
    store?.value(UserModel.self, forKey: "user")
  }

  /// See ``UserRepo/updateProfile(_:)``.
  public func updateProfile(_ change: ProfileChangeModel) async throws(RepositoryError)
    -> UserModel
  {
    let store = store?.pinned()
    let era = cache.era  // an answer after a sign-out (the cache cleared) is not kept
    let user = try await requester.fetch(.updateProfile(change), as: UserModel.self)
    cache.store(user, for: "me", ifClearedNotSince: era)
    store?.keep(user, forKey: "user")
    return user
  }

  /// See ``UserRepo/clear()``.
  public func clear() {
    cache.invalidateAll()
  }
}
