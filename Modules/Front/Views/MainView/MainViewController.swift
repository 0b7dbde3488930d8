import Reactor

/// The signed-in area's home: the user's name, the sections, sign-out; and the slide menu
/// (FLo's `SlideMenuNavigator`) for the same sections from any screen above it.
@MainActor
public final class MainViewController: ReactorViewController<MainViewReactor> {
  private let provider: any MainViewControllerProvider
  private var state: MainViewReactor.State
  private let slideMenu: SlideMenuNavigator

  /// Creates the screen.
  public init(reactor: MainViewReactor, viewControllerProvider: any MainViewControllerProvider) {
    provider = viewControllerProvider
    state = reactor.currentState
    slideMenu = SlideMenuNavigator(items: [])
    super.init(reactor: reactor, title: "Home")
  }

  /// Renders the user; leaves for sign-in when the reactor says so.
  public override func bind(reactor: MainViewReactor) {
    reactor.observe(by: self) { view, state in
      view.state = state
      view.slideMenu.header = state.userName ?? ""
      view.setNeedsDisplay()
    }
    reactor.observeEvents(by: self) { view, event in
      switch event {
      case .showLogin(let notice):
        view.window?.statusViewController = nil
        view.window?.setRoot(view.provider.makeLoginViewController(notice: notice))
      case .alert(let title, let message):
        view.presentAlert(title: title, message: message)
      }
    }
  }

  /// Installs the menu and the connection banner, and loads the user.
  public override func viewDidAttach() {
    slideMenu.items =
      provider.menuEntries.map { entry in
        MenuItem(entry.title) { [weak self] in self?.open(entry) }
      } + [MenuItem("Sign out") { [weak self] in self?.reactor.send(.signOut) }]
    window?.slideMenu = slideMenu
    window?.statusViewController = provider.makeConnectionBannerViewController()
    reactor.send(.load)
  }

  private func open(_ entry: MainMenuEntry) {
    guard let stack = navigationController else { return }
    stack.popToRoot()
    stack.push(entry.makeViewController())
  }

  /// The greeting, the sections and sign-out.
  public override func body() -> [Element] {
    var elements: [Element] = [
      .heading("Welcome\(state.userName.map { ", \($0)" } ?? "")"),
      .text("Choose a section, or open the menu with Ctrl-O.", style: .dim),
      .spacer,
    ]
    for entry in provider.menuEntries {
      elements.append(.button(Button(entry.title) { [weak self] in self?.open(entry) }))
    }
    elements += [
      .spacer,
      .button(
        Button("Sign out", isEnabled: !state.isSigningOut) { [reactor] in reactor.send(.signOut) }),
    ]
    if state.isSigningOut { elements.append(.spinner("Signing out…")) }
    return elements
  }
}
