import ShellFeature
import Testing
import TrellisCoreTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("SplashViewReactor", .timeLimit(.minutes(1)))
struct SplashViewReactorTests {
  @Test func aRestoredSessionGoesToMain() async throws {
    let auth = FakeAuthService(restored: .signedIn(.alice))
    let tester = ReactorTester(
      SplashViewReactor(serviceProvider: TestServices(authService: auth)))
    tester.send(.start)
    try await tester.expect { $0.message = "Welcome back, Alice Kim." }
    try await tester.expectEvents(.showMain)
    try await tester.finish()
  }

  @Test func noSessionGoesToLogin() async throws {
    let auth = FakeAuthService(restored: .signedOut)
    let tester = ReactorTester(
      SplashViewReactor(serviceProvider: TestServices(authService: auth)))
    tester.send(.start)
    try await tester.expect { $0.message = "Welcome." }
    try await tester.expectEvents(.showLogin)
    try await tester.finish()
  }
}
