import Service

/// The services the task form uses.
public protocol TaskComposeViewServiceProvider: Sendable {
  /// Projects, their context, and task creation.
  var taskService: any TaskService { get }
  /// Attachment uploads.
  var fileService: any FileService { get }
}

/// The ``TaskComposeViewServiceProvider`` the composition root builds.
public struct TaskComposeViewServiceProviderImpl: TaskComposeViewServiceProvider {
  /// See ``TaskComposeViewServiceProvider/taskService``.
  public let taskService: any TaskService
  /// See ``TaskComposeViewServiceProvider/fileService``.
  public let fileService: any FileService

  /// Creates the provider.
  public init(taskService: any TaskService, fileService: any FileService) {
    self.taskService = taskService
    self.fileService = fileService
  }
}
