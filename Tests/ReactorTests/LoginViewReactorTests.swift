import ShellFeature
import Testing
import TrellisCoreTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("LoginViewReactor", .timeLimit(.minutes(1)))
struct LoginViewReactorTests {
  private func loginTester(_ auth: FakeAuthService, notice: String? = nil) -> ReactorTester<
    LoginViewReactor
  > {
    ReactorTester(
      LoginViewReactor(
        serviceProvider: TestServices(authService: auth), notice: notice))
  }

  @Test func signingInShowsProgressThenLeaves() async throws {
    let auth = FakeAuthService()
    let tester = loginTester(auth)
    tester.send(.setUsername("alice"))
    try await tester.expect { $0.username = "alice" }
    tester.send(.signIn)  // no password yet: nothing happens
    tester.send(.setPassword("alice1234"))
    try await tester.expect { $0.password = "alice1234" }
    tester.send(.signIn)
    try await tester.expect { $0.isSigningIn = true }
    try await tester.expectEvents(.signedIn)
    try await tester.expect { $0.isSigningIn = false }
    try await tester.finish()
    #expect(auth.calls == ["login alice alice1234"])
  }

  @Test func aRefusedSignInShowsAnAlertAndClearsThePassword() async throws {
    let auth = FakeAuthService()
    auth.setLoginResult(.failure(ServiceError(.unauthorized, "Wrong username or password.")))
    let tester = loginTester(auth, notice: "Your session has ended. Sign in again.")
    #expect(tester.reactor.currentState.notice == "Your session has ended. Sign in again.")
    tester.send(.setUsername("alice"))
    tester.send(.setPassword("nope"))
    tester.send(.signIn)
    try await tester.expect { $0.username = "alice" }
    try await tester.expect { $0.password = "nope" }
    try await tester.expect { $0.isSigningIn = true }
    try await tester.expectEvents(
      .alert(title: "Sign-in failed", message: "Wrong username or password."))
    try await tester.expect { $0.password = "" }  // the user name stays
    try await tester.expect { $0.isSigningIn = false }
    try await tester.finish()
  }
}
