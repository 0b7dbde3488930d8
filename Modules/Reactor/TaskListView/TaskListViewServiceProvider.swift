import Service

/// The services the task list uses.
public protocol TaskListViewServiceProvider: Sendable {
  /// Projects and tasks.
  var taskService: any TaskService { get }
  /// Server events (a task created elsewhere refreshes the list).
  var connectionService: any ConnectionService { get }
}

/// The ``TaskListViewServiceProvider`` the composition root builds.
public struct TaskListViewServiceProviderImpl: TaskListViewServiceProvider {
  /// See ``TaskListViewServiceProvider/taskService``.
  public let taskService: any TaskService
  /// See ``TaskListViewServiceProvider/connectionService``.
  public let connectionService: any ConnectionService

  /// Creates the provider.
  public init(taskService: any TaskService, connectionService: any ConnectionService) {
    self.taskService = taskService
    self.connectionService = connectionService
  }
}
