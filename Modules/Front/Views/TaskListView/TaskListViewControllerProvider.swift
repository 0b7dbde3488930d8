/// The screens the task list opens.
@MainActor
public protocol TaskListViewControllerProvider {
  /// The task form, with `projectID` chosen; `onSaved` is called with the project of the task
  /// it created.
  func makeTaskComposeViewController(
    projectID: Int?, onSaved: @escaping @MainActor (Int) -> Void
  ) -> ViewController
}

/// The ``TaskListViewControllerProvider`` the composition root builds from factories.
@MainActor
public struct TaskListViewControllerProviderImpl: TaskListViewControllerProvider {
  private let compose: (Int?, @escaping @MainActor (Int) -> Void) -> ViewController

  /// Creates the provider.
  public init(
    compose:
      @escaping (_ projectID: Int?, _ onSaved: @escaping @MainActor (Int) -> Void) ->
      ViewController
  ) {
    self.compose = compose
  }

  /// See ``TaskListViewControllerProvider/makeTaskComposeViewController(projectID:onSaved:)``.
  public func makeTaskComposeViewController(
    projectID: Int?, onSaved: @escaping @MainActor (Int) -> Void
  ) -> ViewController {
    compose(projectID, onSaved)
  }
}
