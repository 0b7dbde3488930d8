/// The screens the task list opens.
@MainActor
public protocol TaskListViewControllerProvider {
  /// The task form.
  func makeTaskComposeViewController() -> ViewController
}

/// The ``TaskListViewControllerProvider`` the composition root builds from factories.
@MainActor
public struct TaskListViewControllerProviderImpl: TaskListViewControllerProvider {
  private let compose: () -> ViewController

  /// Creates the provider.
  public init(compose: @escaping () -> ViewController) {
    self.compose = compose
  }

  /// See ``TaskListViewControllerProvider/makeTaskComposeViewController()``.
  public func makeTaskComposeViewController() -> ViewController { compose() }
}
