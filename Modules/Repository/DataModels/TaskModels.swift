import Foundation

/// An uploaded file.
public struct FileModel: Codable, Sendable, Equatable {
  /// The file's id, to attach it to a task.
  public var id: Int
  /// The file name.
  public var name: String
  /// The size in bytes.
  public var size: Int
  /// The MIME type.
  public var contentType: String

  /// Creates a file.
  public init(id: Int, name: String, size: Int, contentType: String) {
    self.id = id
    self.name = name
    self.size = size
    self.contentType = contentType
  }
}

/// A task.
public struct TaskModel: Codable, Sendable, Equatable {
  /// The task's id.
  public var id: Int
  /// The project it belongs to.
  public var projectID: Int
  /// Its title.
  public var title: String
  /// Its description.
  public var body: String
  /// Its milestone, if any.
  public var milestoneID: Int?
  /// Its tags.
  public var tagIDs: [Int]
  /// The users it is assigned to.
  public var assigneeIDs: [Int]
  /// Its attached files.
  public var attachments: [FileModel]
  /// Who created it.
  public var createdBy: Int
  /// When it was created.
  public var createdAt: Date
  /// Whether it is done (`false` when a server does not say).
  public var isDone: Bool
  /// Its version, one more at each change (`nil` when a server does not say): a change sent
  /// with it (`If-Match`) is refused if someone changed the task since.
  public var version: Int?

  /// Creates a task.
  public init(
    id: Int, projectID: Int, title: String, body: String, milestoneID: Int?, tagIDs: [Int],
    assigneeIDs: [Int], attachments: [FileModel], createdBy: Int, createdAt: Date,
    isDone: Bool = false, version: Int? = nil
  ) {
    self.id = id
    self.projectID = projectID
    self.title = title
    self.body = body
    self.milestoneID = milestoneID
    self.tagIDs = tagIDs
    self.assigneeIDs = assigneeIDs
    self.attachments = attachments
    self.createdBy = createdBy
    self.createdAt = createdAt
    self.isDone = isDone
    self.version = version
  }

  /// Decodes a task; one without `isDone` (from a server before it existed) is not done.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(Int.self, forKey: .id)
    projectID = try container.decode(Int.self, forKey: .projectID)
    title = try container.decode(String.self, forKey: .title)
    body = try container.decode(String.self, forKey: .body)
    milestoneID = try container.decodeIfPresent(Int.self, forKey: .milestoneID)
    tagIDs = try container.decode([Int].self, forKey: .tagIDs)
    assigneeIDs = try container.decode([Int].self, forKey: .assigneeIDs)
    attachments = try container.decode([FileModel].self, forKey: .attachments)
    createdBy = try container.decode(Int.self, forKey: .createdBy)
    createdAt = try container.decode(Date.self, forKey: .createdAt)
    isDone = try container.decodeIfPresent(Bool.self, forKey: .isDone) ?? false
    version = try container.decodeIfPresent(Int.self, forKey: .version)
  }
}

/// A page of a project's tasks, newest first.
public struct TaskPageModel: Codable, Sendable, Equatable {
  /// The page's tasks.
  public var tasks: [TaskModel]
  /// What to pass to get the next page; `nil` on the last page. Opaque: only the server reads
  /// it.
  public var nextCursor: String?

  /// Creates a page.
  public init(tasks: [TaskModel], nextCursor: String? = nil) {
    self.tasks = tasks
    self.nextCursor = nextCursor
  }
}

/// `PATCH /tasks/:id`'s body: only the fields to change.
public struct TaskChangeModel: Codable, Sendable, Equatable {
  /// The new title.
  public var title: String?
  /// Done or not.
  public var isDone: Bool?

  /// A change of the fields given.
  public init(title: String? = nil, isDone: Bool? = nil) {
    self.title = title
    self.isDone = isDone
  }
}

/// `POST /projects/:id/tasks`'s body.
public struct NewTaskModel: Codable, Sendable, Equatable {
  /// The title (required).
  public var title: String
  /// The description.
  public var body: String
  /// The milestone, if any.
  public var milestoneID: Int?
  /// The tags.
  public var tagIDs: [Int]
  /// The assignees.
  public var assigneeIDs: [Int]
  /// Files uploaded beforehand.
  public var attachmentIDs: [Int]

  /// Creates a new task's body.
  public init(
    title: String, body: String = "", milestoneID: Int? = nil, tagIDs: [Int] = [],
    assigneeIDs: [Int] = [], attachmentIDs: [Int] = []
  ) {
    self.title = title
    self.body = body
    self.milestoneID = milestoneID
    self.tagIDs = tagIDs
    self.assigneeIDs = assigneeIDs
    self.attachmentIDs = attachmentIDs
  }
}

/// An event from the server's event stream.
public enum ServerEventModel: Sendable, Equatable {
  /// A task was created (possibly by someone else).
  case taskCreated(TaskModel)
  /// A task was changed (its title), as it is now.
  case taskUpdated(TaskModel)
  /// A task was deleted, as it was.
  case taskDeleted(TaskModel)
  /// The signed-in user's session was ended on the server.
  case sessionRevoked(reason: String)
  /// An event this version of the app does not know; ignored.
  case unknown(name: String)
}

/// A change to tasks the user made, kept in an ``Outbox`` until the server answers it.
public enum TaskWrite: Codable, Sendable, Equatable {
  /// A new task in `projectID`, shown as `temporaryID` (below zero) until the server gives it
  /// its own.
  case create(projectID: Int, NewTaskModel, temporaryID: Int)
  /// A change of task `id`; `base` holds the changed fields' values before it (to tell what
  /// someone else changed meanwhile from what the user did), `version` the version it was made
  /// to (`nil`: whatever the server has).
  case update(id: Int, projectID: Int, TaskChangeModel, base: TaskChangeModel, version: Int?)
  /// Deleting task `id` of `projectID`.
  case delete(id: Int, projectID: Int)

  /// The task it is about: its id, or the temporary one of a task being created.
  public var taskID: Int {
    switch self {
    case .create(_, _, let id), .update(let id, _, _, _, _), .delete(let id, _): id
    }
  }

  /// The project of the task.
  public var projectID: Int {
    switch self {
    case .create(let id, _, _), .update(_, let id, _, _, _), .delete(_, let id): id
    }
  }
}
