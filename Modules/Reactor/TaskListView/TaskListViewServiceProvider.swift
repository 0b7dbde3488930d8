import TrellisService

/// The services the task list uses.
public protocol TaskListViewServiceProvider: Sendable {
  /// Projects and tasks.
  var taskService: any TaskService { get }
  /// Server events (a task created elsewhere refreshes the list).
  var connectionService: any ConnectionService { get }
}
