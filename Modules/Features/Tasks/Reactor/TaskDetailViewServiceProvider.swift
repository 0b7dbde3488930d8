import TrellisService

/// The services the task detail screen uses.
public protocol TaskDetailViewServiceProvider: Sendable {
  /// Tasks, projects and their milestones, tags and members.
  var taskService: any TaskService { get }
}
