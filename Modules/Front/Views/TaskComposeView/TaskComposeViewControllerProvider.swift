/// The screens the task form opens: none (it closes itself when saved).
@MainActor
public protocol TaskComposeViewControllerProvider {}

/// The ``TaskComposeViewControllerProvider`` the composition root builds.
@MainActor
public struct TaskComposeViewControllerProviderImpl: TaskComposeViewControllerProvider {
  /// Creates the provider.
  public init() {}
}
