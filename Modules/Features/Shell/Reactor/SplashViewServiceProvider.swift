import TrellisService

/// The services the splash screen uses.
public protocol SplashViewServiceProvider: Sendable {
  /// Restores the saved session.
  var authService: any AuthService { get }
}
