import TrellisService

/// The services the connection banner uses.
public protocol ConnectionBannerViewServiceProvider: Sendable {
  /// Publishes the connection state.
  var connectionService: any ConnectionService { get }
  /// The notices the user has not seen yet.
  var noticeBoard: NoticeBoard { get }
}
