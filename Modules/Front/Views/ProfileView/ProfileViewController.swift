import TrellisReactor

/// The signed-in user's profile: view and edit the name, title and bio.
@MainActor
public final class ProfileViewController: ReactorViewController<ProfileViewReactor> {
  /// Creates the screen.
  public init(reactor: ProfileViewReactor) {
    super.init(reactor: reactor, title: "Profile")
  }

  /// Edits not yet saved are not thrown away by Esc without asking.
  public override var unsavedChangesWarning: String? {
    reactor.currentState.hasChanges ? "Your changes to the profile will be lost." : nil
  }

  /// Loads the user.
  public override func viewDidAttach() {
    reactor.send(.load)
  }

  /// The profile form.
  public override func body() -> [Element] {
    let reactor = reactor
    guard let user = state.user else { return [.spinner("Loading your profile…")] }
    var elements: [Element] = [
      .text("Signed in as \(user.username) (\(user.email))", style: .dim),
      .spacer,
      .field(
        TextField(
          id: "name", label: "Display name", text: state.displayName,
          onChange: { reactor.send(.setDisplayName($0)) })),
      .field(
        TextField(
          id: "title", label: "Title", text: state.title, onChange: { reactor.send(.setTitle($0)) })
      ),
      .field(
        TextField(id: "bio", label: "Bio", text: state.bio, onChange: { reactor.send(.setBio($0)) })
      ),
      .spacer,
      .button(
        Button("Save", isEnabled: state.hasChanges && !state.isSaving) { reactor.send(.save) }),
    ]
    if state.isSaving { elements.append(.spinner("Saving…")) }
    return elements
  }
}
