import TasksFeature
import TrellisFront

/// The screens the task list opens.
@MainActor
public protocol TaskListViewControllerProvider {
  /// The task form, with `projectID` chosen; `onSaved` is called with the project of the task
  /// it created.
  func makeTaskComposeViewController(
    projectID: Int?, onSaved: @escaping @MainActor (Int) -> Void
  ) -> ViewController
  /// The task `taskID` in full.
  func makeTaskDetailViewController(taskID: Int) -> ViewController
}

/// The ``TaskListViewControllerProvider`` the composition root builds from factories.
@MainActor
public struct TaskListViewControllerProviderImpl: TaskListViewControllerProvider {
  private let compose: (Int?, @escaping @MainActor (Int) -> Void) -> ViewController
  private let detail: (Int) -> ViewController

  /// Creates the provider.
  public init(
    compose:
      @escaping (_ projectID: Int?, _ onSaved: @escaping @MainActor (Int) -> Void) ->
      ViewController,
    detail: @escaping (_ taskID: Int) -> ViewController
  ) {
    self.compose = compose
    self.detail = detail
  }

  /// See ``TaskListViewControllerProvider/makeTaskComposeViewController(projectID:onSaved:)``.
  public func makeTaskComposeViewController(
    projectID: Int?, onSaved: @escaping @MainActor (Int) -> Void
  ) -> ViewController {
    compose(projectID, onSaved)
  }

  /// See ``TaskListViewControllerProvider/makeTaskDetailViewController(taskID:)``.
  public func makeTaskDetailViewController(taskID: Int) -> ViewController { detail(taskID) }
}
