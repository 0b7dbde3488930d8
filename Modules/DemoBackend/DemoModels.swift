import Foundation

/// The backend's JSON shapes (internal: tests read them with `@testable import`). The app's Repository layer declares its own transfer models
/// (it never imports this target); the two meet only on the wire, as a real client and server
/// would.
enum Wire {
  /// A user as the API shows it.
  struct User: Codable, Sendable, Equatable {
    var id: Int
    var username: String
    var displayName: String
    var email: String
    var title: String
    var bio: String
  }

  /// A project.
  struct Project: Codable, Sendable, Equatable {
    var id: Int
    var key: String
    var name: String
    var color: String
  }

  /// A milestone of a project.
  struct Milestone: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var dueDate: String?
  }

  /// A tag of a project.
  struct Tag: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var color: String
  }

  /// A member of a project.
  struct Member: Codable, Sendable, Equatable {
    var userID: Int
    var displayName: String
    var role: String
  }

  /// What the signed-in user may do in a project.
  struct Permissions: Codable, Sendable, Equatable {
    var role: String
    var canCreateTasks: Bool
    var canAssign: Bool
    var canUpload: Bool
  }

  /// An uploaded file.
  struct FileInfo: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var size: Int
    var contentType: String
  }

  /// A task.
  struct Task: Codable, Sendable, Equatable {
    var id: Int
    var projectID: Int
    var title: String
    var body: String
    var milestoneID: Int?
    var tagIDs: [Int]
    var assigneeIDs: [Int]
    var attachments: [FileInfo]
    var createdBy: Int
    var createdAt: Date
    /// Whether it is done.
    var isDone = false
    /// Its version: 1 when created, one more at each change (`If-Match` names it).
    var version = 1
  }

  /// A page of a project's tasks (`GET /projects/:id/tasks`), newest first.
  struct TaskPage: Codable, Sendable, Equatable {
    var tasks: [Task]
    /// What to send as `after` for the next page; `nil` on the last page. Opaque to clients.
    var nextCursor: String?
  }

  /// The body of `PATCH /tasks/:id`: what to change.
  struct TaskChange: Codable, Sendable {
    var title: String?
    var isDone: Bool?
  }

  /// The body of `POST /projects/:id/tasks`.
  struct NewTask: Codable, Sendable {
    var title: String
    var body: String?
    var milestoneID: Int?
    var tagIDs: [Int]?
    var assigneeIDs: [Int]?
    var attachmentIDs: [Int]?
  }

  /// The body of `PATCH /me`.
  struct ProfileChange: Codable, Sendable {
    var displayName: String?
    var title: String?
    var bio: String?
  }

  /// The body of `POST /auth/login`.
  struct Credentials: Codable, Sendable {
    var username: String?
    var password: String?
  }

  /// The body of `POST /auth/refresh` and `POST /auth/logout`.
  struct RefreshRequest: Codable, Sendable {
    var refreshToken: String?
  }

  /// What `POST /auth/login` and `POST /auth/refresh` return.
  struct Tokens: Codable, Sendable {
    var accessToken: String
    var refreshToken: String
    var expiresIn: Int
    var user: User
  }

  /// Every error response's body.
  struct Failure: Codable, Sendable, Equatable {
    var code: String
    var message: String
    var fields: [String: String]?
  }
}
