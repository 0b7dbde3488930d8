import TrellisService

/// The services the sign-in screen uses.
public protocol LoginViewServiceProvider: Sendable {
  /// Signs in.
  var authService: any AuthService { get }
}
