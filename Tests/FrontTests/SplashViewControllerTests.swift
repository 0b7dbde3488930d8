import ShellFeature
import ShellFeatureFront
import Testing
import TrellisFront
import TrellisFrontTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("SplashViewController")
struct SplashViewControllerTests {
  @Test func splashShowsTheMessageAndGoesWhereTheReactorSays() {
    let reactor = SplashViewReactor(
      serviceProvider: TestServices(authService: FakeAuthService()))
    let stub = reactor.enableStub()
    let window = windowShowing(
      SplashViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    #expect(stub.actions == [.start])  // sent when the screen appeared
    stub.state.message = "Welcome back, Alice Kim."
    #expect(window.text.contains("Welcome back, Alice Kim."))
    stub.emit(.showMain)
    #expect(window.rootViewController?.title == "Main screen")
  }

  @Test func snapshots() throws {
    let screen = SplashViewController(
      reactor: SplashViewReactor(serviceProvider: TestServices()),
      viewControllerProvider: FakeProviders())
    try assertSnapshot(of: screen, state: SplashViewReactor.State(), named: "restoring")
  }
}
