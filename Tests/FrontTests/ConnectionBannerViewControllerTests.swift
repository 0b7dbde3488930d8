import ShellFeature
import ShellFeatureFront
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisFront
import TrellisFrontTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("ConnectionBannerViewController")
struct ConnectionBannerViewControllerTests {
  @Test func theBannerShowsTheConnectionInTheTitleBar() {
    let reactor = ConnectionBannerViewReactor(
      serviceProvider: TestServices(
        connectionService: FakeConnectionService()))
    let stub = reactor.enableStub()
    let window = windowShowing(PlaceholderViewController(title: "Home"))
    window.statusViewController = ConnectionBannerViewController(reactor: reactor)
    #expect(window.text.split(separator: "\n")[0].hasSuffix("○ Offline"))
    stub.state.status = .online
    #expect(window.text.split(separator: "\n")[0].hasSuffix("● Live"))
    stub.state.status = .connecting
    #expect(window.text.contains("◌ Connecting…"))
    stub.state.status = .reconnecting
    #expect(window.text.contains("◌ Reconnecting…"))
  }

  /// A notice the user has not seen is an alert over whatever screen is open (the banner is
  /// above all of them), then leaves the board.
  @Test func aNoticeIsAnAlertOverTheOpenScreen() async throws {
    let board = NoticeBoard()
    board.post(Notice(title: "A change was not saved", message: "“Ship it” was not created."))
    let window = windowShowing(PlaceholderViewController(title: "Profile"))
    window.statusViewController = ConnectionBannerViewController(
      reactor: ConnectionBannerViewReactor(serviceProvider: TestServices(noticeBoard: board)))
    try #require(await eventually { window.currentAlert != nil })
    #expect(window.currentAlert?.title == "A change was not saved")
    #expect(window.currentAlert?.message == "“Ship it” was not created.")
    #expect(board.unseen.value.isEmpty)
  }

  @Test func snapshots() throws {
    let window = windowShowing(PlaceholderViewController(title: "Home"))
    let banner = ConnectionBannerViewController(
      reactor: ConnectionBannerViewReactor(serviceProvider: TestServices()))
    window.statusViewController = banner
    var state = ConnectionBannerViewReactor.State()
    for status in [ConnectionBannerViewReactor.Status.online, .connecting, .reconnecting, .offline]
    {
      state.status = status
      banner.reactor.enableStub().state = state
      try assertSnapshot(of: window.rootViewController!, named: "\(status)")
    }
  }
}
