// A screen of the starter's, from its feature product, in a SwiftUI-shaped screen of the app's:
// what docs/apple.md's `ProfileView` does, without SwiftUI. (A tree without the demo's Profile
// feature has no ProfileFeature product: then there is nothing here to build.)
#if canImport(ProfileFeature)
  import ProfileFeature
  import TrellisService

  /// What `ProfileView`'s body reads and writes of its reactor.
  @MainActor
  public struct ProfileScreen {
    /// The screen's reactor.
    public let reactor: ProfileViewReactor

    /// The composition root makes the reactor with the services it needs.
    public init(services: any ProfileViewServiceProvider) {
      reactor = ProfileViewReactor(serviceProvider: services)
    }

    /// `Text(reactor.state.displayName)`.
    public var title: String { reactor.state.displayName }

    /// `TextField("Bio", text: bio)`.
    public var bio: Binding<String> {
      let bio = reactor.binding(\.bio, send: ProfileViewReactor.Action.setBio)
      return Binding(get: { bio.value }, set: { bio.value = $0 })
    }

    /// `Button("Save") { reactor.send(.save) }.disabled(isSaving)`.
    public var isSaving: Bool { reactor.state.isSaving }
  }
#endif
