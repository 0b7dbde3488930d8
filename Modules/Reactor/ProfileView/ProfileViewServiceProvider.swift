import Service

/// The services the profile screen uses.
public protocol ProfileViewServiceProvider: Sendable {
  /// The signed-in user.
  var userService: any UserService { get }
}

/// The ``ProfileViewServiceProvider`` the composition root builds.
public struct ProfileViewServiceProviderImpl: ProfileViewServiceProvider {
  /// See ``ProfileViewServiceProvider/userService``.
  public let userService: any UserService

  /// Creates the provider.
  public init(userService: any UserService) {
    self.userService = userService
  }
}
