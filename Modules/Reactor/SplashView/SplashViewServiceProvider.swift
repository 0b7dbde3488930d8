import Service

/// The services the splash screen uses.
public protocol SplashViewServiceProvider: Sendable {
  /// Restores the saved session.
  var authService: any AuthService { get }
}

/// The ``SplashViewServiceProvider`` the composition root builds.
public struct SplashViewServiceProviderImpl: SplashViewServiceProvider {
  /// See ``SplashViewServiceProvider/authService``.
  public let authService: any AuthService

  /// Creates the provider.
  public init(authService: any AuthService) {
    self.authService = authService
  }
}
