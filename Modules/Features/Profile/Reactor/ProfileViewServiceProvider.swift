import TrellisService

/// The services the profile screen uses.
public protocol ProfileViewServiceProvider: Sendable {
  /// The signed-in user.
  var userService: any UserService { get }
}
