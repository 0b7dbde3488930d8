import Foundation

/// A project the user works in.
public struct Project: Sendable, Equatable, Identifiable {
  /// The project's id.
  public var id: Int
  /// A short key, such as `MOB`.
  public var key: String
  /// The project's name.
  public var name: String

  /// Creates a project.
  public init(id: Int, key: String, name: String) {
    self.id = id
    self.key = key
    self.name = name
  }
}

/// A milestone of a project.
public struct Milestone: Sendable, Equatable, Identifiable {
  /// The milestone's id.
  public var id: Int
  /// Its name.
  public var name: String

  /// Creates a milestone.
  public init(id: Int, name: String) {
    self.id = id
    self.name = name
  }
}

/// A tag of a project.
public struct Tag: Sendable, Equatable, Identifiable {
  /// The tag's id.
  public var id: Int
  /// Its name.
  public var name: String

  /// Creates a tag.
  public init(id: Int, name: String) {
    self.id = id
    self.name = name
  }
}

/// A member of a project.
public struct Member: Sendable, Equatable, Identifiable {
  /// The member's user id.
  public var id: Int
  /// The member's name.
  public var displayName: String
  /// The member's role.
  public var role: String

  /// Creates a member.
  public init(id: Int, displayName: String, role: String) {
    self.id = id
    self.displayName = displayName
    self.role = role
  }
}

/// What the signed-in user may do in a project.
public struct ProjectPermissions: Sendable, Equatable {
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

/// Everything the task form needs once a project is chosen, fetched at once.
public struct ProjectContext: Sendable, Equatable {
  /// The project's id.
  public var projectID: Int
  /// Its milestones.
  public var milestones: [Milestone]
  /// Its tags.
  public var tags: [Tag]
  /// Its members.
  public var members: [Member]
  /// The user's permissions in it.
  public var permissions: ProjectPermissions

  /// Creates a context.
  public init(
    projectID: Int, milestones: [Milestone], tags: [Tag], members: [Member],
    permissions: ProjectPermissions
  ) {
    self.projectID = projectID
    self.milestones = milestones
    self.tags = tags
    self.members = members
    self.permissions = permissions
  }
}

/// A file attached to a task.
public struct Attachment: Sendable, Equatable, Identifiable {
  /// The uploaded file's id.
  public var id: Int
  /// The file name.
  public var name: String
  /// The size in bytes.
  public var size: Int
  /// Its MIME type, as the server recorded it: `image/png`.
  public var contentType: String

  /// Creates an attachment.
  public init(id: Int, name: String, size: Int, contentType: String = "application/octet-stream") {
    self.id = id
    self.name = name
    self.size = size
    self.contentType = contentType
  }
}

/// A task (named `TaskItem` so it never shadows Swift's `Task`).
public struct TaskItem: Sendable, Equatable, Identifiable {
  /// The task's id.
  public var id: Int
  /// Its project.
  public var projectID: Int
  /// Its title.
  public var title: String
  /// Its milestone, if any.
  public var milestoneID: Int?
  /// Its tags.
  public var tagIDs: [Int]
  /// Its assignees.
  public var assigneeIDs: [Int]
  /// Its attachments.
  public var attachments: [Attachment]
  /// Who created it.
  public var createdBy: Int
  /// Whether it is done.
  public var isDone: Bool
  /// Its version on the server, if the server says (a change made offline is sent with it,
  /// so one that meets someone else's is told apart); `nil` for one not saved yet.
  public var version: Int?

  /// Whether it is one created on this device and not saved yet: its id is temporary (below
  /// zero) until the server gives its own.
  public var isUnsaved: Bool { id < 0 }

  /// Creates a task.
  public init(
    id: Int, projectID: Int, title: String, milestoneID: Int? = nil, tagIDs: [Int] = [],
    assigneeIDs: [Int] = [], attachments: [Attachment] = [], createdBy: Int = 0,
    isDone: Bool = false, version: Int? = nil
  ) {
    self.id = id
    self.projectID = projectID
    self.title = title
    self.milestoneID = milestoneID
    self.tagIDs = tagIDs
    self.assigneeIDs = assigneeIDs
    self.attachments = attachments
    self.createdBy = createdBy
    self.isDone = isDone
    self.version = version
  }
}

/// A page of a project's tasks, newest first.
public struct TaskPage: Sendable, Equatable {
  /// The page's tasks.
  public var tasks: [TaskItem]
  /// What to pass for the next page; `nil` on the last one.
  public var nextCursor: String?

  /// Creates a page.
  public init(tasks: [TaskItem], nextCursor: String? = nil) {
    self.tasks = tasks
    self.nextCursor = nextCursor
  }
}

/// A change this app made to a task, announced by ``TaskService/changes``. An edit or a
/// deletion is announced as soon as the user makes it, before the server answers (an optimistic
/// update), and again when the server answers: confirmed as it saved it, or undone when it
/// refused or could not be reached. A creation is announced once the server has saved it.
public enum TaskChange: Sendable, Equatable {
  /// The task as it now is: as the user changed it, as the server saved it, or (a rollback)
  /// as it was before.
  case updated(TaskItem)
  /// The task is being deleted, or was.
  case removed(TaskItem)
  /// A deletion the server refused or never received: the task is back, as the server has it.
  case restored(TaskItem)
  /// A task this app created, as the server saved it (or, made offline, as it is shown until
  /// then: its id temporary, below zero).
  case created(TaskItem)
  /// A task created offline was saved: the server's task takes the place of the one shown under
  /// `temporaryID`.
  case replaced(temporaryID: Int, TaskItem)
}

/// A task being composed.
public struct TaskDraft: Codable, Sendable, Equatable {
  /// The project to create it in.
  public var projectID: Int
  /// The title.
  public var title: String
  /// The description.
  public var body: String
  /// The milestone, if any.
  public var milestoneID: Int?
  /// The tags.
  public var tagIDs: [Int]
  /// The assignees.
  public var assigneeIDs: [Int]
  /// Files uploaded for it.
  public var attachmentIDs: [Int]

  /// Creates a draft.
  public init(
    projectID: Int, title: String, body: String = "", milestoneID: Int? = nil,
    tagIDs: [Int] = [], assigneeIDs: [Int] = [], attachmentIDs: [Int] = []
  ) {
    self.projectID = projectID
    self.title = title
    self.body = body
    self.milestoneID = milestoneID
    self.tagIDs = tagIDs
    self.assigneeIDs = assigneeIDs
    self.attachmentIDs = attachmentIDs
  }
}

/// The connection to the server's event stream, for a banner.
public enum ConnectionState: Sendable, Equatable {
  /// Not connected: the connection was lost and is retried after a wait, or nothing is tried
  /// (signed out).
  case offline
  /// Connecting for the first time since sign-in.
  case connecting
  /// Connecting again after the connection was lost.
  case reconnecting
  /// Connected: server events arrive live.
  case online
}

/// Something the server announced.
public enum ServerEvent: Sendable, Equatable {
  /// A task was created, possibly by someone else.
  case taskCreated(TaskItem)
  /// A task was changed, possibly by someone else; as it is now.
  case taskUpdated(TaskItem)
  /// A task was deleted, possibly by someone else; as it was.
  case taskDeleted(TaskItem)
  /// The user's session was ended on the server.
  case sessionRevoked
}
