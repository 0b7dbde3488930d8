import ShellFeature
import TrellisFront
import TrellisReactor

/// The connection state in the window's title bar: `● Live` (server events arrive),
/// `◌ Connecting…`, `◌ Reconnecting…` (after a loss), `○ Offline` (waiting to retry).
@MainActor
public final class ConnectionBannerViewController: ReactorViewController<
  ConnectionBannerViewReactor
>
{

  /// Creates the banner.
  public init(reactor: ConnectionBannerViewReactor) {
    super.init(reactor: reactor, title: "Connection")
  }

  /// The title bar's status.
  public override var statusText: (text: String, style: TextStyle)? {
    switch state.status {
    case .online: ("● Live", .success)
    case .connecting: ("◌ Connecting…", .warning)
    case .reconnecting: ("◌ Reconnecting…", .warning)
    case .offline: ("○ Offline", .error)
    }
  }

  /// The banner has no body of its own.
  public override func body() -> [Element] {
    [.text(statusText?.text ?? "")]
  }
}
