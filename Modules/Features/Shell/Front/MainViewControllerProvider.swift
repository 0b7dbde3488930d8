import ShellFeature
import TrellisFront

/// The screens the main screen opens.
@MainActor
public protocol MainViewControllerProvider {
  /// The sections of the menu, in order.
  var menuEntries: [MainMenuEntry] { get }
  /// Sign-in, with a notice when the session ended by itself.
  func makeLoginViewController(notice: String?) -> ViewController
  /// The connection banner shown in the title bar.
  func makeConnectionBannerViewController() -> ViewController
}

/// The ``MainViewControllerProvider`` the composition root builds (FLo's
/// `MainViewControllerProviderImpl`).
@MainActor
public struct MainViewControllerProviderImpl: MainViewControllerProvider {
  /// See ``MainViewControllerProvider/menuEntries``.
  public let menuEntries: [MainMenuEntry]
  private let login: (String?) -> ViewController
  private let banner: () -> ViewController

  /// Creates the provider.
  public init(
    menuEntries: [MainMenuEntry], login: @escaping (String?) -> ViewController,
    banner: @escaping () -> ViewController
  ) {
    self.menuEntries = menuEntries
    self.login = login
    self.banner = banner
  }

  /// See ``MainViewControllerProvider/makeLoginViewController(notice:)``.
  public func makeLoginViewController(notice: String?) -> ViewController { login(notice) }
  /// See ``MainViewControllerProvider/makeConnectionBannerViewController()``.
  public func makeConnectionBannerViewController() -> ViewController { banner() }
}
