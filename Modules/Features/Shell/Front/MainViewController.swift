import ShellFeature
import TrellisFront
import TrellisReactor

/// The signed-in area's home: the user's name, the sections, sign-out; and the slide menu
/// (FLo's `SlideMenuNavigator`) for the same sections from any screen above it.
@MainActor
public final class MainViewController: ReactorViewController<MainViewReactor> {
  private let provider: any MainViewControllerProvider
  private let slideMenu: SlideMenuNavigator

  /// Creates the screen.
  public init(reactor: MainViewReactor, viewControllerProvider: any MainViewControllerProvider) {
    provider = viewControllerProvider
    slideMenu = SlideMenuNavigator(items: [])
    super.init(reactor: reactor, title: "Home")
  }

  /// Keeps the slide menu's header on the user's name (drawing itself needs no code here).
  public override func bind(reactor: MainViewReactor) {
    reactor.observe(\.userName, by: self) { view, name in view.slideMenu.header = name ?? "" }
  }

  /// Leaves for sign-in when the reactor says so; shows alerts.
  public override func handle(event: MainViewReactor.Event) {
    switch event {
    case .showLogin(let notice):
      window?.statusViewController = nil
      window?.setRoot(provider.makeLoginViewController(notice: notice))
    case .alert(let title, let message):
      presentAlert(title: title, message: message)
    }
  }

  /// Installs the menu and the connection banner, and loads the user.
  public override func viewDidAttach() {
    slideMenu.items =
      provider.menuEntries.map { entry in
        MenuItem(entry.title) { [weak self] in self?.open(entry) }
      } + [MenuItem("Sign out") { [weak self] in self?.signOut() }]
    window?.slideMenu = slideMenu
    window?.statusViewController = provider.makeConnectionBannerViewController()
    reactor.send(.load)
  }

  /// Opens a section in place of the screens above this one, asking first if one of them
  /// holds unsaved input.
  private func open(_ entry: MainMenuEntry) {
    guard let stack = navigationController else { return }
    leaveScreensAbove {
      stack.popToRoot()
      stack.push(entry.makeViewController())
    }
  }

  /// Signs out, asking first if a screen above holds unsaved input.
  private func signOut() {
    leaveScreensAbove { [reactor] in reactor.send(.signOut) }
  }

  private func leaveScreensAbove(then leave: @escaping () -> Void) {
    guard let stack = navigationController, let window else { return leave() }
    window.leaveAfterAsking(Array(stack.viewControllers.dropFirst()), then: leave)
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
