import TrellisService

/// The services the task detail screen uses.
public protocol TaskDetailViewServiceProvider: Sendable {
  /// Tasks, projects and their milestones, tags and members.
  var taskService: any TaskService { get }
  /// Whether the server is live: a task that could not be loaded offline loads when it is.
  var connectionService: any ConnectionService { get }
  /// Keeps a title being typed, for the next time the task opens (after a quit or a crash).
  var draftService: any DraftService { get }
}
