import Service

/// The services the main screen uses.
public protocol MainViewServiceProvider: Sendable {
  /// Signs out, and tells the screen when the session ends.
  var authService: any AuthService { get }
  /// The signed-in user.
  var userService: any UserService { get }
}

/// The ``MainViewServiceProvider`` the composition root builds.
public struct MainViewServiceProviderImpl: MainViewServiceProvider {
  /// See ``MainViewServiceProvider/authService``.
  public let authService: any AuthService
  /// See ``MainViewServiceProvider/userService``.
  public let userService: any UserService

  /// Creates the provider.
  public init(authService: any AuthService, userService: any UserService) {
    self.authService = authService
    self.userService = userService
  }
}
