import ShellFeature
import TrellisFront

/// The screens the splash screen opens.
@MainActor
public protocol SplashViewControllerProvider {
  /// The signed-in area.
  func makeMainViewController() -> ViewController
  /// Sign-in.
  func makeLoginViewController() -> ViewController
}

/// The ``SplashViewControllerProvider`` the composition root builds from factories.
@MainActor
public struct SplashViewControllerProviderImpl: SplashViewControllerProvider {
  private let main: () -> ViewController
  private let login: () -> ViewController

  /// Creates the provider.
  public init(main: @escaping () -> ViewController, login: @escaping () -> ViewController) {
    self.main = main
    self.login = login
  }

  /// See ``SplashViewControllerProvider/makeMainViewController()``.
  public func makeMainViewController() -> ViewController { main() }
  /// See ``SplashViewControllerProvider/makeLoginViewController()``.
  public func makeLoginViewController() -> ViewController { login() }
}
