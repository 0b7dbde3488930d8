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
