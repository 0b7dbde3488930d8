import ShellFeature
import Testing
import TrellisCoreTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("ConnectionBannerViewReactor", .timeLimit(.minutes(1)))
struct ConnectionBannerViewReactorTests {
  @Test func theBannerFollowsTheConnectionServiceWithoutAnyViewAction() async throws {
    let connection = FakeConnectionService()
    let tester = ReactorTester(
      ConnectionBannerViewReactor(
        serviceProvider: TestServices(connectionService: connection)))
    try await tester.expect { $0.status = .offline }  // the current state, as an action
    connection.state.send(.connecting)
    try await tester.expect { $0.status = .connecting }
    connection.state.send(.online)
    try await tester.expect { $0.status = .online }
    try await tester.finish()
  }
}
