import ShellFeature
import TrellisFront
import TrellisReactor

/// Sign-in: user name, password, and a button; errors show as alerts.
@MainActor
public final class LoginViewController: ReactorViewController<LoginViewReactor> {
  private let provider: any LoginViewControllerProvider

  /// Creates the screen.
  public init(reactor: LoginViewReactor, viewControllerProvider: any LoginViewControllerProvider) {
    provider = viewControllerProvider
    super.init(reactor: reactor, title: "Sign in")
  }

  /// Shows alerts; goes to Main once signed in.
  public override func handle(event: LoginViewReactor.Event) {
    switch event {
    case .alert(let title, let message): presentAlert(title: title, message: message)
    case .signedIn: window?.setRoot(provider.makeMainViewController())
    }
  }

  /// The form.
  public override func body() -> [Element] {
    let reactor = reactor
    var elements: [Element] = [.heading("Sign in to \(window?.appName ?? "the app")")]
    if let notice = state.notice { elements += [.text(notice, style: .warning), .spacer] }
    elements += [
      .field(
        TextField(
          id: "username", label: "Username", text: state.username,
          onChange: { reactor.send(.setUsername($0)) })),
      .field(
        TextField(
          id: "password", label: "Password", text: state.password, isSecure: true,
          onChange: { reactor.send(.setPassword($0)) }, onSubmit: { reactor.send(.signIn) })),
      .spacer,
      .button(Button("Sign in", isEnabled: state.canSignIn) { reactor.send(.signIn) }),
    ]
    if state.isSigningIn { elements.append(.spinner("Signing in…")) }
    elements += [
      .spacer,
      .text("Demo accounts: alice / alice1234, bob / bob1234, carol / carol1234", style: .dim),
    ]
    return elements
  }
}
