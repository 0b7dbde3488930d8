import ShellFeature
import ShellFeatureFront
import Testing
import TrellisCore
import TrellisFront
import TrellisFrontTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("MainViewController")
struct MainViewControllerTests {
  private func mainWindow() -> (Window, ReactorStub<MainViewReactor>, NavigationController) {
    let reactor = MainViewReactor(
      serviceProvider: TestServices(
        authService: FakeAuthService(), userService: FakeUserService()))
    let stub = reactor.enableStub()
    let stack = NavigationController(
      root: MainViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    return (windowShowing(stack), stub, stack)
  }

  @Test func mainGreetsTheUserAndOpensSections() throws {
    let (window, stub, stack) = mainWindow()
    #expect(stub.actions == [.load])
    stub.state.userName = "Alice Kim"
    #expect(window.text.contains("Welcome, Alice Kim"))
    try window.perform(.tap("Tasks"))
    #expect(stack.topViewController.title == "Tasks screen")
    try window.perform(.menu("Profile"))  // the slide menu goes back to the root first
    #expect(stack.viewControllers.map(\.title) == ["Profile screen", "Home"].reversed())
    try window.perform(.menu("Sign out"))
    #expect(stub.actions == [.load, .signOut])
  }

  @Test func theSlideMenuListsTheSections() throws {
    let (window, stub, _) = mainWindow()
    stub.state.userName = "Alice Kim"
    try window.perform(.menu(nil))
    let text = window.text
    #expect(text.contains("≡ Menu"))
    #expect(text.contains("Alice Kim"))
    #expect(text.contains("▸ Tasks"))
    window.handle(.escape)
    #expect(!window.text.contains("≡ Menu"))
  }

  @Test func theSlideMenusCursorWrapsAround() throws {
    let (window, _, _) = mainWindow()
    try window.perform(.menu(nil))
    window.handle(.up)  // from the first entry to the last
    #expect(window.text.contains("▸ Sign out"))
    window.handle(.down)  // and back to the first
    #expect(window.text.contains("▸ Tasks"))
  }

  @Test func anEndedSessionReplacesEverythingWithLogin() {
    let (window, stub, _) = mainWindow()
    stub.emit(.showLogin(notice: "Your session was ended on the server."))
    #expect(
      window.rootViewController?.title == "Login screen: Your session was ended on the server.")
    #expect(window.slideMenu == nil)
  }

  @Test func snapshots() throws {
    let screen = MainViewController(
      reactor: MainViewReactor(serviceProvider: TestServices()),
      viewControllerProvider: FakeProviders())
    var state = MainViewReactor.State()
    state.userName = "Alice Kim"
    try assertSnapshot(of: NavigationController(root: screen), named: "home-loading")
    try assertSnapshot(of: screen, state: state, named: "home")
  }
}
