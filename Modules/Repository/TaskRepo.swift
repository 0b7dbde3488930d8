import TrellisNetwork

/// A project's tasks.
///
/// Caching: each project's task list is kept for 30 seconds. Creating a task invalidates its
/// project's list (and discards a fetch of it in flight); so does ``invalidateTasks(projectID:)``,
/// called when the server announces a task created elsewhere. ``clear()`` forgets everything.
public protocol TaskRepo: Sendable {
  /// A project's tasks, newest first.
  func tasks(projectID: Int, forceRefresh: Bool) async throws(RepositoryError) -> [TaskModel]
  /// Creates a task and returns it.
  func createTask(projectID: Int, _ task: NewTaskModel) async throws(RepositoryError) -> TaskModel
  /// Forgets a project's cached task list.
  func invalidateTasks(projectID: Int)
  /// Forgets everything cached.
  func clear()
}

/// The ``TaskRepo`` that calls ``TaskDataAPI``.
public final class TaskRepoImpl: TaskRepo {
  private let requester: HTTPRequester<TaskDataAPI>
  private let taskLists: RepoCache<Int, [TaskModel]>

  /// Creates the repository.
  public init(requester: HTTPRequester<TaskDataAPI>, lifetime: Duration = .seconds(30)) {
    self.requester = requester
    taskLists = RepoCache(lifetime: lifetime)
  }

  /// See ``TaskRepo/tasks(projectID:forceRefresh:)``.
  public func tasks(projectID: Int, forceRefresh: Bool = false) async throws(RepositoryError)
    -> [TaskModel]
  {
    try await taskLists.value(for: projectID, forceRefresh: forceRefresh) {
      () throws(RepositoryError) in
      try await requester.fetch(.tasks(projectID: projectID), as: [TaskModel].self)
    }
  }

  /// See ``TaskRepo/createTask(projectID:_:)``.
  public func createTask(projectID: Int, _ task: NewTaskModel) async throws(RepositoryError)
    -> TaskModel
  {
    defer { taskLists.invalidate(projectID) }
    return try await requester.fetch(.create(projectID: projectID, task), as: TaskModel.self)
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
