import ShellFeature
import TrellisFront

/// The screens the sign-in screen opens.
@MainActor
public protocol LoginViewControllerProvider {
  /// The signed-in area.
  func makeMainViewController() -> ViewController
}

/// The ``LoginViewControllerProvider`` the composition root builds from factories.
@MainActor
public struct LoginViewControllerProviderImpl: LoginViewControllerProvider {
  private let main: () -> ViewController

  /// Creates the provider.
  public init(main: @escaping () -> ViewController) {
    self.main = main
  }

  /// See ``LoginViewControllerProvider/makeMainViewController()``.
  public func makeMainViewController() -> ViewController { main() }
}
