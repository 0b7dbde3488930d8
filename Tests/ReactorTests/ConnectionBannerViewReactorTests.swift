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

  /// A notice posted while no banner was there (the user was signing in) and one posted while
  /// it is: each shown once, as an alert over whatever screen is open, and marked seen.
  @Test func eachNoticeIsShownOnceWhereverTheUserIsAndMarkedSeen() async throws {
    let board = NoticeBoard()
    let early = Notice(title: "A change was not saved", message: "“Ship it” was not created.")
    board.post(early)
    let tester = ReactorTester(
      ConnectionBannerViewReactor(serviceProvider: TestServices(noticeBoard: board)))
    // The connection's current state and the board's notices are two sources the reactor
    // merges: either may arrive first.
    var offline = tester.lastAssertedState
    offline.status = .offline
    try await tester.expect(
      states: [offline], interleavedWith: [.alert(title: early.title, message: early.message)])
    #expect(board.unseen.value.isEmpty)
    let late = Notice(title: "Someone else changed a task", message: "Their title was kept.")
    board.post(late)
    try await tester.expectEvents(.alert(title: late.title, message: late.message))
    #expect(board.unseen.value.isEmpty)
    try await tester.finish()
  }
}
