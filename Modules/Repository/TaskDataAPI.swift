import Foundation
import TrellisNetwork

/// A project's tasks, and one task by its id.
public enum TaskDataAPI: HTTPEndpoint {
  /// `GET /projects/:id/tasks`: a page of at most `limit` tasks, newest first, after the
  /// previous page's `nextCursor` (`nil`: the first page), whose titles contain the words of
  /// `query` (empty: every task).
  case tasks(projectID: Int, query: String = "", after: String? = nil, limit: Int)
  /// `POST /projects/:id/tasks`.
  case create(projectID: Int, NewTaskModel)
  /// `GET /tasks/:id`.
  case task(id: Int)
  /// `PATCH /tasks/:id`: what to change.
  case update(id: Int, TaskChangeModel)
  /// `DELETE /tasks/:id`.
  case delete(id: Int)

  /// `/projects/:id/tasks`, or `/tasks/:id`.
  public var path: String {
    switch self {
    case .tasks(let id, _, _, _), .create(let id, _): "/projects/\(id)/tasks"
    case .task(let id), .update(let id, _), .delete(let id): "/tasks/\(id)"
    }
  }

  /// `GET` to read, `POST` to create, `PATCH` to change, `DELETE` to delete.
  public var method: HTTPMethod {
    switch self {
    case .tasks, .task: .get
    case .create: .post
    case .update: .patch
    case .delete: .delete
    }
  }

  /// A task page's limit, cursor and search.
  public var query: [URLQueryItem] {
    guard case .tasks(_, let query, let after, let limit) = self else { return [] }
    var items = [URLQueryItem(name: "limit", value: String(limit))]
    if let after { items.append(URLQueryItem(name: "after", value: after)) }
    if !query.isEmpty { items.append(URLQueryItem(name: "query", value: query)) }
    return items
  }

  /// The new task or the change, as JSON.
  public var body: HTTPRequestBody {
    switch self {
    case .tasks, .task, .delete: .none
    case .create(_, let task): .json(task)
    case .update(_, let change): .json(change)
    }
  }
}
