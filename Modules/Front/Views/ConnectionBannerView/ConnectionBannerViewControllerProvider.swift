/// The screens the connection banner opens: none. Kept so that every screen has the same four
/// files, and a team adding a link from the banner knows where it goes.
@MainActor
public protocol ConnectionBannerViewControllerProvider {}

/// The ``ConnectionBannerViewControllerProvider`` the composition root builds.
@MainActor
public struct ConnectionBannerViewControllerProviderImpl: ConnectionBannerViewControllerProvider {
  /// Creates the provider.
  public init() {}
}
