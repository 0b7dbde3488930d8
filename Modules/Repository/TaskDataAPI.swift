import TrellisNetwork

/// A project's tasks.
public enum TaskDataAPI: HTTPEndpoint {
  /// `GET /projects/:id/tasks`, newest first.
  case tasks(projectID: Int)
  /// `POST /projects/:id/tasks`.
  case create(projectID: Int, NewTaskModel)

  /// `/projects/:id/tasks`.
  public var path: String {
    switch self {
    case .tasks(let id), .create(let id, _): "/projects/\(id)/tasks"
    }
  }

  /// `GET` to list, `POST` to create.
  public var method: HTTPMethod {
    switch self {
    case .tasks: .get
    case .create: .post
    }
  }

  /// The new task, as JSON.
  public var body: HTTPRequestBody {
    switch self {
    case .tasks: .none
    case .create(_, let task): .json(task)
    }
  }
}
