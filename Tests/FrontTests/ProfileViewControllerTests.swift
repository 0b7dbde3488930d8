import ProfileFeature
import ProfileFeatureFront
import Testing
import TrellisCore
import TrellisFront
import TrellisFrontTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("ProfileViewController")
struct ProfileViewControllerTests {
  @Test func theProfileShowsLoadingThenTheFields() throws {
    let reactor = ProfileViewReactor(
      serviceProvider: TestServices(userService: FakeUserService()))
    let stub = reactor.enableStub()
    let window = windowShowing(ProfileViewController(reactor: reactor))
    #expect(window.text.contains("Loading your profile…"))
    stub.state.user = ProfileViewReactor.SavedProfile(
      username: "alice", email: "alice@trellis.example", displayName: "Alice Kim", title: "",
      bio: "")
    stub.state.displayName = "Alice Kim"
    #expect(window.text.contains("Signed in as alice (alice@trellis.example)"))
    #expect(window.text.contains("Display name: Alice Kim"))
    #expect(throws: ScriptError.self) { try window.perform(.tap("Save")) }  // nothing changed
    try window.perform(.type(field: "bio", text: "Hello"))
    stub.state.bio = "Hello"
    try window.perform(.tap("Save"))
    #expect(stub.actions == [.load, .setBio("Hello"), .save])
    stub.emit(.toast("Profile saved"))
    #expect(window.text.contains("✓ Profile saved"))
  }

  /// Unsaved edits to the profile are not lost to Esc without asking; saved ones are.
  @Test func escWithUnsavedEditsAsksFirst() throws {
    let reactor = ProfileViewReactor(
      serviceProvider: TestServices(userService: FakeUserService()))
    let stub = reactor.enableStub()
    let stack = NavigationController(root: PlaceholderViewController(title: "Home"))
    let window = windowShowing(stack)
    stack.push(ProfileViewController(reactor: reactor))
    stub.state.user = ProfileViewReactor.SavedProfile(
      username: "alice", email: "alice@trellis.example", displayName: "Alice Kim", title: "",
      bio: "")
    stub.state.displayName = "Alice Kim"
    stub.state.bio = "Half written"
    window.handle(.escape)
    #expect(window.currentConfirmation == "Your changes to the profile will be lost.")
    window.handle(.character("n"))
    #expect(stack.topViewController.title == "Profile")
    stub.state.bio = ""  // as saved
    window.handle(.escape)
    #expect(window.currentConfirmation == nil)
    #expect(stack.topViewController.title == "Home")
  }

  @Test func snapshots() throws {
    let screen = ProfileViewController(reactor: ProfileViewReactor(serviceProvider: TestServices()))
    var state = ProfileViewReactor.State()
    try assertSnapshot(of: screen, state: state, named: "loading")
    state.user = ProfileViewReactor.SavedProfile(
      username: "alice", email: "alice@example.com", displayName: "Alice Kim", title: "Engineer",
      bio: "Builds things.")
    state.displayName = "Alice Kim"
    state.title = "Staff engineer"
    state.bio = "Builds things."
    try assertSnapshot(of: screen, state: state, named: "edited")
  }
}
