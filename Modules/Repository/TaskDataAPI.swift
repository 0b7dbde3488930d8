import Foundation
import TrellisNetwork

/// A project's tasks, and one task by its id.
public enum TaskDataAPI: HTTPEndpoint {
  /// `GET /projects/:id/tasks`: a page of at most `limit` tasks, newest first, after the
  /// previous page's `nextCursor` (`nil`: the first page), whose titles contain the words of
  /// `query` (empty: every task).
  case tasks(projectID: Int, query: String = "", after: String? = nil, limit: Int)
  /// `POST /projects/:id/tasks`; with an `Idempotency-Key`, made once however often it is
  /// sent.
  case create(projectID: Int, NewTaskModel, idempotencyKey: String? = nil)
  /// `GET /tasks/:id`.
  case task(id: Int)
  /// `PATCH /tasks/:id`: what to change; with an `Idempotency-Key`, made once; with the
  /// task's `expectedVersion` (`If-Match`), refused (`412`) if someone changed it since.
  case update(
    id: Int, TaskChangeModel, idempotencyKey: String? = nil, expectedVersion: Int? = nil)
  /// `DELETE /tasks/:id`; with an `Idempotency-Key`, made once (a second send is not a `404`).
  case delete(id: Int, idempotencyKey: String? = nil)

  /// `/projects/:id/tasks`, or `/tasks/:id`.
  public var path: String {
    switch self {
    case .tasks(let id, _, _, _), .create(let id, _, _): "/projects/\(id)/tasks"
    case .task(let id), .update(let id, _, _, _), .delete(let id, _): "/tasks/\(id)"
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
    case .create(_, let task, _): .json(task)
    case .update(_, let change, _, _): .json(change)
    }
  }

  /// A write's `Idempotency-Key`, and a change's `If-Match`.
  public var headers: HTTPHeaders {
    var headers: HTTPHeaders = [:]
    switch self {
    case .tasks, .task: break
    case .create(_, _, let key), .delete(_, let key):
      headers["Idempotency-Key"] = key
    case .update(_, _, let key, let version):
      headers["Idempotency-Key"] = key
      headers["If-Match"] = version.map { "\"\($0)\"" }
    }
    return headers
  }
}
