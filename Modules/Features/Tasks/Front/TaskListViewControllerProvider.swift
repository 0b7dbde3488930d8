import TasksFeature
import TrellisFront

/// The screens the task list opens.
@MainActor
public protocol TaskListViewControllerProvider {
  /// The task form, with `projectID` chosen. (The list learns of the task it creates from
  /// `TaskService.changes`.)
  func makeTaskComposeViewController(projectID: Int?) -> ViewController
  /// The task `taskID` in full.
  func makeTaskDetailViewController(taskID: Int) -> ViewController
}

/// The ``TaskListViewControllerProvider`` the composition root builds from factories.
@MainActor
public struct TaskListViewControllerProviderImpl: TaskListViewControllerProvider {
  private let compose: (Int?) -> ViewController
  private let detail: (Int) -> ViewController

  /// Creates the provider.
  public init(
    compose: @escaping (_ projectID: Int?) -> ViewController,
    detail: @escaping (_ taskID: Int) -> ViewController
  ) {
    self.compose = compose
    self.detail = detail
  }

  /// See ``TaskListViewControllerProvider/makeTaskComposeViewController(projectID:)``.
  public func makeTaskComposeViewController(projectID: Int?) -> ViewController {
    compose(projectID)
  }

  /// See ``TaskListViewControllerProvider/makeTaskDetailViewController(taskID:)``.
  public func makeTaskDetailViewController(taskID: Int) -> ViewController { detail(taskID) }
}
