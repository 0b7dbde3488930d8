/// A project.
public struct ProjectModel: Codable, Sendable, Equatable {
  /// The project's id.
  public var id: Int
  /// A short key, such as `MOB`.
  public var key: String
  /// The project's name.
  public var name: String
  /// A color name for the UI.
  public var color: String

  /// Creates a project.
  public init(id: Int, key: String, name: String, color: String) {
    self.id = id
    self.key = key
    self.name = name
    self.color = color
  }
}

/// A milestone of a project.
public struct MilestoneModel: Codable, Sendable, Equatable {
  /// The milestone's id.
  public var id: Int
  /// Its name.
  public var name: String
  /// Its due date, `yyyy-MM-dd`, if any.
  public var dueDate: String?

  /// Creates a milestone.
  public init(id: Int, name: String, dueDate: String?) {
    self.id = id
    self.name = name
    self.dueDate = dueDate
  }
}

/// A tag of a project.
public struct TagModel: Codable, Sendable, Equatable {
  /// The tag's id.
  public var id: Int
  /// Its name.
  public var name: String
  /// A color name for the UI.
  public var color: String

  /// Creates a tag.
  public init(id: Int, name: String, color: String) {
    self.id = id
    self.name = name
    self.color = color
  }
}

/// A member of a project.
public struct MemberModel: Codable, Sendable, Equatable {
  /// The member's user id.
  public var userID: Int
  /// The member's display name.
  public var displayName: String
  /// The member's role: `admin`, `member` or `viewer`.
  public var role: String

  /// Creates a member.
  public init(userID: Int, displayName: String, role: String) {
    self.userID = userID
    self.displayName = displayName
    self.role = role
  }
}

/// What the signed-in user may do in a project.
public struct PermissionsModel: Codable, Sendable, Equatable {
  /// The user's role.
  public var role: String
  /// Whether the user may create tasks.
  public var canCreateTasks: Bool
  /// Whether the user may assign tasks.
  public var canAssign: Bool
  /// Whether the user may attach files.
  public var canUpload: Bool

  /// Creates permissions.
  public init(role: String, canCreateTasks: Bool, canAssign: Bool, canUpload: Bool) {
    self.role = role
    self.canCreateTasks = canCreateTasks
    self.canAssign = canAssign
    self.canUpload = canUpload
  }
}

/// A project's milestones, tags and members and the user's permissions in it, as last answered
/// (``ProjectRepo/storedContext(projectID:)``).
public struct ProjectContextModel: Sendable, Equatable {
  /// The milestones.
  public var milestones: [MilestoneModel]
  /// The tags.
  public var tags: [TagModel]
  /// The members.
  public var members: [MemberModel]
  /// What the user may do.
  public var permissions: PermissionsModel

  /// A context.
  public init(
    milestones: [MilestoneModel], tags: [TagModel], members: [MemberModel],
    permissions: PermissionsModel
  ) {
    self.milestones = milestones
    self.tags = tags
    self.members = members
    self.permissions = permissions
  }
}
