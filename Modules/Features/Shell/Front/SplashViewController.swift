import ShellFeature
import TrellisFront
import TrellisReactor

/// The first screen: the logo while the session is restored, then Main or Login.
@MainActor
public final class SplashViewController: ReactorViewController<SplashViewReactor> {
  private let provider: any SplashViewControllerProvider

  /// Creates the screen.
  public init(reactor: SplashViewReactor, viewControllerProvider: any SplashViewControllerProvider)
  {
    provider = viewControllerProvider
    super.init(reactor: reactor, title: "Welcome")
  }

  /// Goes where the reactor says.
  public override func handle(event: SplashViewReactor.Event) {
    switch event {
    case .showMain: window?.setRoot(provider.makeMainViewController())
    case .showLogin: window?.setRoot(provider.makeLoginViewController())
    }
  }

  /// Starts restoring once the screen is in the window.
  public override func viewDidAttach() {
    reactor.send(.start)
  }

  /// The logo and the message.
  public override func body() -> [Element] {
    [
      .spacer,
      .heading(window?.appName ?? ""),
      .text(state.message, style: .dim),
      .spinner("Loading"),
    ]
  }
}
