/// A user as the API returns it (FLo's user data).
public struct UserModel: Codable, Sendable, Equatable {
  /// The user's id.
  public var id: Int
  /// The sign-in name.
  public var username: String
  /// The name shown to others.
  public var displayName: String
  /// The e-mail address.
  public var email: String
  /// The job title.
  public var title: String
  /// A short biography.
  public var bio: String

  /// Creates a user.
  public init(
    id: Int, username: String, displayName: String, email: String, title: String, bio: String
  ) {
    self.id = id
    self.username = username
    self.displayName = displayName
    self.email = email
    self.title = title
    self.bio = bio
  }
}

/// `PATCH /me`'s body: only the fields to change.
public struct ProfileChangeModel: Codable, Sendable, Equatable {
  /// A new display name.
  public var displayName: String?
  /// A new title.
  public var title: String?
  /// A new biography.
  public var bio: String?

  /// Creates a change.
  public init(displayName: String? = nil, title: String? = nil, bio: String? = nil) {
    self.displayName = displayName
    self.title = title
    self.bio = bio
  }
}
