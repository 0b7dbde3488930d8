import ProfileFeature
import TrellisFront
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
    ]
    elements += field(
      "name", problemKey: "displayName", text: state.displayName,
      limit: ProfileViewReactor.displayNameLimit
    ) { reactor.send(.setDisplayName($0)) }
    elements += field(
      "title", problemKey: "title", text: state.title, limit: ProfileViewReactor.titleLimit
    ) { reactor.send(.setTitle($0)) }
    elements += field("bio", problemKey: "bio", text: state.bio, limit: ProfileViewReactor.bioLimit)
    {
      reactor.send(.setBio($0))
    }
    elements += [
      .spacer,
      .button(
        Button("Save", isEnabled: state.hasChanges && !state.isSaving) { reactor.send(.save) }),
    ]
    if state.isSaving { elements.append(.spinner("Saving…")) }
    return elements
  }

  /// A field labelled and limited by `limit`, and under it what a refused save said about it
  /// (`problemKey` is the server's name for the field).
  private func field(
    _ id: String, problemKey: String, text: String, limit: FieldLimit,
    onChange: @escaping (String) -> Void
  ) -> [Element] {
    var elements: [Element] = [
      .field(
        TextField(
          id: id, label: limit.name, text: text, maximumLength: limit.maximumLength,
          onChange: onChange))
    ]
    if let problem = state.fieldProblems[problemKey] {
      elements.append(.text("  ⚠ \(limit.name): \(problem)", style: .warning))
    }
    return elements
  }
}
