import Service

/// The services the connection banner uses.
public protocol ConnectionBannerViewServiceProvider: Sendable {
  /// Publishes the connection state.
  var connectionService: any ConnectionService { get }
}

/// The ``ConnectionBannerViewServiceProvider`` the composition root builds.
public struct ConnectionBannerViewServiceProviderImpl: ConnectionBannerViewServiceProvider {
  /// See ``ConnectionBannerViewServiceProvider/connectionService``.
  public let connectionService: any ConnectionService

  /// Creates the provider.
  public init(connectionService: any ConnectionService) {
    self.connectionService = connectionService
  }
}
