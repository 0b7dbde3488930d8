import TrellisService

/// The services the task list uses.
public protocol TaskListViewServiceProvider: Sendable {
  /// Projects, pages of tasks, and the changes this app makes to tasks.
  var taskService: any TaskService { get }
  /// Server events (a task created elsewhere refreshes the list).
  var connectionService: any ConnectionService { get }
}
