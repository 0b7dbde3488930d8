import Reactor

/// The first screen: the logo while the session is restored, then Main or Login.
@MainActor
public final class SplashViewController: ReactorViewController<SplashViewReactor> {
  private let provider: any SplashViewControllerProvider
  private var state: SplashViewReactor.State

  /// Creates the screen.
  public init(reactor: SplashViewReactor, viewControllerProvider: any SplashViewControllerProvider)
  {
    provider = viewControllerProvider
    state = reactor.currentState
    super.init(reactor: reactor, title: "Welcome")
  }

  /// Renders the message; goes where the reactor says.
  public override func bind(reactor: SplashViewReactor) {
    reactor.observe(by: self) { view, state in
      view.state = state
      view.setNeedsDisplay()
    }
    reactor.observeEvents(by: self) { view, event in
      switch event {
      case .showMain: view.window?.setRoot(view.provider.makeMainViewController())
      case .showLogin: view.window?.setRoot(view.provider.makeLoginViewController())
      }
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
