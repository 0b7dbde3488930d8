import TrellisRepository

/// A user of the app.
public struct User: Sendable, Equatable, Codable {
  /// The user's id.
  public var id: Int
  /// The sign-in name.
  public var username: String
  /// The name shown in the app.
  public var displayName: String
  /// The e-mail address.
  public var email: String
  /// The job title.
  public var title: String
  /// A short biography.
  public var bio: String

  /// Creates a user.
  public init(
    id: Int, username: String, displayName: String, email: String = "", title: String = "",
    bio: String = ""
  ) {
    self.id = id
    self.username = username
    self.displayName = displayName
    self.email = email
    self.title = title
    self.bio = bio
  }
}

extension User {
  init(_ model: UserModel) {
    self.init(
      id: model.id, username: model.username, displayName: model.displayName, email: model.email,
      title: model.title, bio: model.bio)
  }
}
