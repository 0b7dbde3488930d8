import TrellisService

/// The services the main screen uses.
public protocol MainViewServiceProvider: Sendable {
  /// Signs out, and tells the screen when the session ends.
  var authService: any AuthService { get }
  /// The signed-in user.
  var userService: any UserService { get }
}
