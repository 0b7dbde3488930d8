import ShellFeature
import Testing
import TrellisCoreTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("MainViewReactor", .timeLimit(.minutes(1)))
struct MainViewReactorTests {
  private func mainTester(_ auth: FakeAuthService, _ users: FakeUserService) async throws
    -> ReactorTester<MainViewReactor>
  {
    let tester = ReactorTester(
      MainViewReactor(
        serviceProvider: TestServices(authService: auth, userService: users)))
    try await tester.expect(MainViewReactor.State())  // the user relay's current value: nil
    return tester
  }

  @Test func loadsAndFollowsTheUser() async throws {
    let auth = FakeAuthService()
    let users = FakeUserService()
    let tester = try await mainTester(auth, users)
    tester.send(.load)
    try await tester.expect { $0.userName = "Alice Kim" }  // from the relay
    try await tester.expect { $0.userName = "Alice Kim" }  // from the load's result
    _ = try await users.updateProfile(displayName: "Alice K.", title: nil, bio: nil)
    try await tester.expect { $0.userName = "Alice K." }
    try await tester.finish()
  }

  @Test func aRevokedSessionReturnsToLoginWithTheReason() async throws {
    let auth = FakeAuthService()
    let tester = try await mainTester(auth, FakeUserService())
    await auth.endSession(reason: "Your session was ended on the server.")
    try await tester.expectEvents(.showLogin(notice: "Your session was ended on the server."))
    try await tester.finish()
  }

  @Test func signingOutReturnsToLogin() async throws {
    let auth = FakeAuthService()
    let tester = try await mainTester(auth, FakeUserService())
    tester.send(.signOut)
    try await tester.expect { $0.isSigningOut = true }
    try await tester.expectEvents(.showLogin(notice: nil))
    try await tester.finish()
    #expect(auth.calls == ["logout"])
  }

  @Test func aFailedLoadShowsAnAlert() async throws {
    let users = FakeUserService()
    users.fail(with: ServiceError(.server, "The server failed."))
    let tester = try await mainTester(FakeAuthService(), users)
    tester.send(.load)
    try await tester.expectEvents(
      .alert(title: "Could not load your profile", message: "The server failed."))
    try await tester.finish()
  }

  /// Offline is a state: home greets the user the session knows, with no alert (the banner
  /// says the app is offline).
  @Test func offlineTheLoadFailsQuietly() async throws {
    let users = FakeUserService()
    users.fail(with: ServiceError(.offline, "The server cannot be reached."))
    let tester = try await mainTester(FakeAuthService(), users)
    tester.send(.load)
    await tester.reactor.waitUntilIdle()
    try await tester.finish()
  }
}
