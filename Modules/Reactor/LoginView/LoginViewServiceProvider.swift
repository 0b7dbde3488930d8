import Service

/// The services the sign-in screen uses.
public protocol LoginViewServiceProvider: Sendable {
  /// Signs in.
  var authService: any AuthService { get }
}

/// The ``LoginViewServiceProvider`` the composition root builds.
public struct LoginViewServiceProviderImpl: LoginViewServiceProvider {
  /// See ``LoginViewServiceProvider/authService``.
  public let authService: any AuthService

  /// Creates the provider.
  public init(authService: any AuthService) {
    self.authService = authService
  }
}
