import ShellFeature
import ShellFeatureFront
import Testing
import TrellisFront
import TrellisFrontTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("LoginViewController")
struct LoginViewControllerTests {
  @Test func loginRendersTheFieldsAndHidesThePassword() {
    let reactor = LoginViewReactor(
      serviceProvider: TestServices(authService: FakeAuthService()))
    let stub = reactor.enableStub()
    let window = windowShowing(
      LoginViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    stub.state.username = "alice"
    stub.state.password = "secret"
    let text = window.text
    #expect(text.contains("Username: alice"))
    #expect(text.contains("Password: ••••••"))
    #expect(!text.contains("secret"))
    #expect(!text.contains("Signing in"))
    stub.state.isSigningIn = true
    #expect(window.text.contains("Signing in…"))
  }

  @Test func typingAndTappingSendActions() throws {
    let reactor = LoginViewReactor(
      serviceProvider: TestServices(authService: FakeAuthService()))
    let stub = reactor.enableStub()
    let window = windowShowing(
      LoginViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    try window.perform(.type(field: "username", text: "alice"))
    try window.perform(.type(field: "Password", text: "alice1234"))
    #expect(throws: ScriptError.disabled("the button \"Sign in\" is disabled")) {
      // The stub's state still has empty fields.
      try window.perform(.tap("Sign in"))
    }
    stub.state.username = "alice"
    stub.state.password = "alice1234"
    try window.perform(.tap("sign in"))
    #expect(stub.actions == [.setUsername("alice"), .setPassword("alice1234"), .signIn])
  }

  @Test func keysEditTheFocusedField() {
    let reactor = LoginViewReactor(
      serviceProvider: TestServices(authService: FakeAuthService()))
    let stub = reactor.enableStub()
    let window = windowShowing(
      LoginViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    _ = window.render()  // focus lands on the first field
    window.handle(.character("a"))
    stub.state.username = "a"
    window.handle(.backspace)
    window.handle(.tab)
    window.handle(.character("p"))
    #expect(stub.actions == [.setUsername("a"), .setUsername(""), .setPassword("p")])
  }

  @Test func anAlertIsShownOncePerEmission() throws {
    let reactor = LoginViewReactor(
      serviceProvider: TestServices(authService: FakeAuthService()))
    let stub = reactor.enableStub()
    let window = windowShowing(
      LoginViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    stub.emit(.alert(title: "Sign-in failed", message: "Wrong username or password."))
    #expect(window.text.contains("Wrong username or password."))
    #expect(throws: ScriptError.self) { try window.perform(.type(field: "username", text: "x")) }
    try window.perform(.tap("OK"))
    #expect(!window.text.contains("Wrong username or password."))
    #expect(window.currentAlert == nil)
    stub.emit(.alert(title: "Sign-in failed", message: "Wrong username or password."))
    // The same alert again: shown again.
    #expect(window.text.contains("Wrong username or password."))
  }

  @Test func signingInReplacesTheRoot() {
    let reactor = LoginViewReactor(
      serviceProvider: TestServices(authService: FakeAuthService()))
    let stub = reactor.enableStub()
    let window = windowShowing(
      LoginViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    stub.emit(.signedIn)
    #expect(window.rootViewController?.title == "Main screen")
  }

  @Test func snapshots() throws {
    let screen = LoginViewController(
      reactor: LoginViewReactor(serviceProvider: TestServices()),
      viewControllerProvider: FakeProviders())
    try assertSnapshot(of: screen, state: LoginViewReactor.State(), named: "empty")
    var state = LoginViewReactor.State()
    state.username = "alice"
    state.password = "secret"
    state.isSigningIn = true
    state.notice = "Your session has ended. Sign in again."
    try assertSnapshot(of: screen, state: state, named: "signing-in")
  }
}
