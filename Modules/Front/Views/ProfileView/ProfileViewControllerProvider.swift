/// The screens the profile opens: none.
@MainActor
public protocol ProfileViewControllerProvider {}

/// The ``ProfileViewControllerProvider`` the composition root builds.
@MainActor
public struct ProfileViewControllerProviderImpl: ProfileViewControllerProvider {
  /// Creates the provider.
  public init() {}
}
