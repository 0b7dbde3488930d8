import Foundation
import TrellisCore
import TrellisNetwork

/// A project's tasks.
///
/// Caching: the first page of each project's unsearched list is kept for 30 seconds (later
/// pages and searches are always fetched). Creating, changing or deleting a task invalidates
/// its project's page (and discards a fetch of it in flight, even when the change fails: the
/// server may have made it); so does ``invalidateTasks(projectID:)``, called when the server
/// announces a task created elsewhere. ``clear()`` forgets everything.
///
/// Kept between launches (with a ``LocalStore``): the first page of each project's unsearched
/// list and each task read, as last answered, for a screen to show at once (offline too)
/// while it asks the server (``storedTasks(projectID:)``, ``storedTask(id:)``).
public protocol TaskRepo: Sendable {
  /// A page of a project's tasks, newest first: the first page when `cursor` is `nil`, else
  /// the one after the page whose `nextCursor` it is; only tasks whose titles contain the words
  /// of `query` (empty: all).
  func tasks(projectID: Int, matching query: String, after cursor: String?, forceRefresh: Bool)
    async throws(RepositoryError) -> TaskPageModel
  /// Creates a task and returns it.
  func createTask(projectID: Int, _ task: NewTaskModel) async throws(RepositoryError) -> TaskModel
  /// The task `id` (`notFound` unless it is in one of the user's projects).
  func task(id: Int) async throws(RepositoryError) -> TaskModel
  /// Changes the task `id` and returns it as the server now has it.
  func updateTask(id: Int, _ change: TaskChangeModel) async throws(RepositoryError) -> TaskModel
  /// Deletes the task `id` of the project `projectID`.
  func deleteTask(id: Int, projectID: Int) async throws(RepositoryError)
  /// Forgets a project's cached task list.
  func invalidateTasks(projectID: Int)
  /// Forgets everything cached.
  func clear()
  /// The first page of the project's unsearched list as last answered, with when; `nil` when
  /// none is stored. No request.
  func storedTasks(projectID: Int) -> Stored<TaskPageModel>?
  /// The task `id` as last read, with when; `nil` when none is stored. No request.
  func storedTask(id: Int) -> Stored<TaskModel>?
  /// Sends `write` (kept in an outbox until answered) with `idempotencyKey`, the same at each
  /// send, so a server that honours it makes the write once; a change carries the version it
  /// was made to (refused as `.server(status: 412, ...)` if someone changed the task since).
  /// Returns the task as the server now has it; `nil` for a delete.
  func send(_ write: TaskWrite, idempotencyKey: String) async throws(RepositoryError)
    -> TaskModel?
}

extension TaskRepo {
  /// None: a repository that keeps nothing between launches.
  public func storedTasks(projectID: Int) -> Stored<TaskPageModel>? { nil }
  /// None: a repository that keeps nothing between launches.
  public func storedTask(id: Int) -> Stored<TaskModel>? { nil }

  /// `write` through ``createTask(projectID:_:)``, ``updateTask(id:_:)`` or
  /// ``deleteTask(id:projectID:)``, without its key or version: a repository (a fake) whose
  /// server is memory.
  public func send(_ write: TaskWrite, idempotencyKey: String) async throws(RepositoryError)
    -> TaskModel?
  {
    switch write {
    case .create(let projectID, let task, _):
      return try await createTask(projectID: projectID, task)
    case .update(let id, _, let change, _, _):
      return try await updateTask(id: id, change)
    case .delete(let id, let projectID):
      try await deleteTask(id: id, projectID: projectID)
      return nil
    }
  }
}

/// The ``TaskRepo`` that calls ``TaskDataAPI``.
public final class TaskRepoImpl: TaskRepo {
  private let requester: HTTPRequester<TaskDataAPI>
  private let taskLists: RepoCache<Int, TaskPageModel>
  private let store: (any LocalStore)?
  /// How many tasks a page has.
  public let pageSize: Int

  /// Creates the repository; pages have `pageSize` tasks (1 to 100, as the server takes).
  /// `store` keeps the first pages and the tasks read between launches (none: kept in memory
  /// only).
  public init(
    requester: HTTPRequester<TaskDataAPI>, lifetime: Duration = .seconds(30), pageSize: Int = 20,
    store: (any LocalStore)? = nil
  ) {
    self.requester = requester
    taskLists = RepoCache(lifetime: lifetime)
    self.pageSize = min(max(pageSize, 1), 100)
    self.store = store
  }

  /// See ``TaskRepo/storedTasks(projectID:)``.
  public func storedTasks(projectID: Int) -> Stored<TaskPageModel>? {
    store?.value(TaskPageModel.self, forKey: Self.listKey(projectID))
  }

  /// See ``TaskRepo/storedTask(id:)``.
  public func storedTask(id: Int) -> Stored<TaskModel>? {
    store?.value(TaskModel.self, forKey: Self.taskKey(id))
  }

  static func listKey(_ projectID: Int) -> String { "tasks.\(projectID)" }
  static func taskKey(_ id: Int) -> String { "task.\(id)" }

  /// See ``TaskRepo/tasks(projectID:matching:after:forceRefresh:)``.
  public func tasks(
    projectID: Int, matching query: String = "", after cursor: String? = nil,
    forceRefresh: Bool = false
  ) async throws(RepositoryError) -> TaskPageModel {
    let query = query.trimmingCharacters(in: .whitespacesAndNewlines)
    let endpoint = TaskDataAPI.tasks(
      projectID: projectID, query: query, after: cursor, limit: pageSize)
    guard query.isEmpty, cursor == nil else {
      return try await requester.fetch(endpoint, as: TaskPageModel.self)
    }
    return try await taskLists.value(for: projectID, forceRefresh: forceRefresh) {
      () throws(RepositoryError) in
      let store = store?.pinned()  // the user's who asked, whoever is signed in at the answer
      let page = try await requester.fetch(endpoint, as: TaskPageModel.self)
      store?.keep(page, forKey: Self.listKey(projectID))
      return page
    }
  }

  /// See ``TaskRepo/createTask(projectID:_:)``.
  public func createTask(projectID: Int, _ task: NewTaskModel) async throws(RepositoryError)
    -> TaskModel
  {
    try await create(projectID: projectID, task, key: nil)
  }

  /// See ``TaskRepo/send(_:idempotencyKey:)``.
  public func send(_ write: TaskWrite, idempotencyKey: String) async throws(RepositoryError)
    -> TaskModel?
  {
    switch write {
    case .create(let projectID, let task, _):
      return try await create(projectID: projectID, task, key: idempotencyKey)
    case .update(let id, _, let change, _, let version):
      return try await update(id: id, change, key: idempotencyKey, version: version)
    case .delete(let id, let projectID):
      try await delete(id: id, projectID: projectID, key: idempotencyKey)
      return nil
    }
  }

  private func create(projectID: Int, _ task: NewTaskModel, key: String?)
    async throws(RepositoryError) -> TaskModel
  {
    defer { taskLists.invalidate(projectID) }
    return try await write(.create(projectID: projectID, task, idempotencyKey: key)) {
      (response) throws(HTTPError) in
      try response.decode(TaskModel.self, using: RepositoryCoding.decoder)
    }
  }

  /// The statuses that ask for the same write again later (still being made, too many, too
  /// early, timed out on the server's side): kept as `.server(status:_:)`, so an outbox can
  /// tell them from a refusal (`409` would otherwise read as a validation error).
  public static let tryAgainLaterStatuses = RepositoryError.tryAgainLaterStatuses

  /// Sends the write `endpoint` and reads its answer with `read`, with repository errors.
  private func write<Value>(
    _ endpoint: TaskDataAPI, read: (HTTPResponse) throws(HTTPError) -> Value
  ) async throws(RepositoryError) -> Value {
    do {
      return try read(try await requester.request(endpoint))
    } catch {
      if case .unacceptableStatus(let response) = error,
        Self.tryAgainLaterStatuses.contains(response.status)
      {
        throw .server(status: response.status, RepositoryError(error).description)
      }
      throw RepositoryError(error)
    }
  }

  /// See ``TaskRepo/task(id:)``. Not cached in memory: a task's screen shows it as it is; kept
  /// in the store for the next time it cannot be read.
  public func task(id: Int) async throws(RepositoryError) -> TaskModel {
    let store = store?.pinned()
    do {
      let task = try await requester.fetch(.task(id: id), as: TaskModel.self)
      store?.keep(task, forKey: Self.taskKey(id))
      return task
    } catch .notFound(let message) {
      // Gone (or no longer the user's): nothing of it is shown from the device again.
      if let store, let kept = store.value(TaskModel.self, forKey: Self.taskKey(id)) {
        Self.changeKeptRow(id, in: kept.value.projectID, to: nil, store: store)
      }
      store?.remove(Self.taskKey(id))
      throw .notFound(message)
    }
  }

  /// Changes the row of the task `id` in `projectID`'s kept first page to `task` (`nil`:
  /// removes it), keeping the page's age: the other rows are as old as they were.
  private static func changeKeptRow(
    _ id: Int, in projectID: Int, to task: TaskModel?, store: any LocalStore
  ) {
    guard let kept = store.value(TaskPageModel.self, forKey: listKey(projectID)),
      let index = kept.value.tasks.firstIndex(where: { $0.id == id })
    else { return }
    var page = kept.value
    if let task { page.tasks[index] = task } else { page.tasks.remove(at: index) }
    store.keep(page, forKey: listKey(projectID), storedAt: kept.storedAt)
  }

  /// See ``TaskRepo/updateTask(id:_:)``.
  public func updateTask(id: Int, _ change: TaskChangeModel) async throws(RepositoryError)
    -> TaskModel
  {
    try await update(id: id, change, key: nil, version: nil)
  }

  private func update(id: Int, _ change: TaskChangeModel, key: String?, version: Int?)
    async throws(RepositoryError) -> TaskModel
  {
    let store = store?.pinned()
    do {
      let task = try await write(
        .update(id: id, change, idempotencyKey: key, expectedVersion: version)
      ) { (response) throws(HTTPError) in
        try response.decode(TaskModel.self, using: RepositoryCoding.decoder)
      }
      taskLists.invalidate(task.projectID)
      if let store {
        if store.read(Self.taskKey(id)) != nil { store.keep(task, forKey: Self.taskKey(id)) }
        Self.changeKeptRow(id, in: task.projectID, to: task, store: store)
      }
      return task
    } catch {
      // Which project's list to forget is not known without the answer: forget them all.
      taskLists.invalidateAll()
      throw error
    }
  }

  /// See ``TaskRepo/deleteTask(id:projectID:)``. A `notFound` answer is a success: the task
  /// is gone (a retried DELETE whose first attempt was carried out, its answer lost, gets one).
  public func deleteTask(id: Int, projectID: Int) async throws(RepositoryError) {
    try await delete(id: id, projectID: projectID, key: nil)
  }

  private func delete(id: Int, projectID: Int, key: String?) async throws(RepositoryError) {
    defer { taskLists.invalidate(projectID) }
    let store = store?.pinned()
    do {
      try await write(.delete(id: id, idempotencyKey: key)) { _ in }
    } catch .notFound {
      // Gone.
    }
    store?.remove(Self.taskKey(id))
    if let store { Self.changeKeptRow(id, in: projectID, to: nil, store: store) }
  }

  /// See ``TaskRepo/invalidateTasks(projectID:)``.
  public func invalidateTasks(projectID: Int) {
    taskLists.invalidate(projectID)
  }

  /// See ``TaskRepo/clear()``.
  public func clear() {
    taskLists.invalidateAll()
  }
}
