import Core
import Front
import Reactor
import Service
import TestSupport
import Testing

@MainActor
@Suite("Main, banner, task and profile views")
struct MainAndTaskViewTests {
  private func mainWindow() -> (Window, ReactorStub<MainViewReactor>, NavigationController) {
    let reactor = MainViewReactor(
      serviceProvider: TestServices(
        authService: FakeAuthService(), userService: FakeUserService()))
    let stub = reactor.enableStub()
    let stack = NavigationController(
      root: MainViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    return (windowShowing(stack), stub, stack)
  }

  @Test func mainGreetsTheUserAndOpensSections() throws {
    let (window, stub, stack) = mainWindow()
    #expect(stub.actions == [.load])
    stub.state.userName = "Alice Kim"
    #expect(window.text.contains("Welcome, Alice Kim"))
    try window.perform(.tap("Tasks"))
    #expect(stack.topViewController.title == "Tasks screen")
    try window.perform(.menu("Profile"))  // the slide menu goes back to the root first
    #expect(stack.viewControllers.map(\.title) == ["Profile screen", "Home"].reversed())
    try window.perform(.menu("Sign out"))
    #expect(stub.actions == [.load, .signOut])
  }

  @Test func theSlideMenuListsTheSections() throws {
    let (window, stub, _) = mainWindow()
    stub.state.userName = "Alice Kim"
    try window.perform(.menu(nil))
    let text = window.text
    #expect(text.contains("≡ Menu"))
    #expect(text.contains("Alice Kim"))
    #expect(text.contains("▸ Tasks"))
    window.handle(.escape)
    #expect(!window.text.contains("≡ Menu"))
  }

  @Test func anEndedSessionReplacesEverythingWithLogin() {
    let (window, stub, _) = mainWindow()
    stub.emit(.showLogin(notice: "Your session was ended on the server."))
    #expect(
      window.rootViewController?.title == "Login screen: Your session was ended on the server.")
    #expect(window.slideMenu == nil)
  }

  @Test func theBannerShowsTheConnectionInTheTitleBar() {
    let reactor = ConnectionBannerViewReactor(
      serviceProvider: TestServices(
        connectionService: FakeConnectionService()))
    let stub = reactor.enableStub()
    let window = windowShowing(PlaceholderViewController(title: "Home"))
    window.statusViewController = ConnectionBannerViewController(reactor: reactor)
    #expect(window.text.split(separator: "\n")[0].hasSuffix("○ Offline"))
    stub.state.status = .online
    #expect(window.text.split(separator: "\n")[0].hasSuffix("● Online"))
    stub.state.status = .connecting
    #expect(window.text.contains("◌ Connecting…"))
  }

  @Test func theTaskListRendersAndSelects() throws {
    let reactor = TaskListViewReactor(
      serviceProvider: TestServices(
        taskService: FakeTaskService(), connectionService: FakeConnectionService()))
    let stub = reactor.enableStub()
    let stack = NavigationController(
      root: TaskListViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    let window = windowShowing(stack)
    stub.state.projects = [
      Choice(id: 1, title: "Mobile App", detail: "MOB"),
      Choice(id: 2, title: "Backend", detail: "API"),
    ]
    stub.state.projectID = 2
    stub.state.tasks = [Choice(id: 3, title: "Rate-limit the login endpoint", detail: "#3")]
    let text = window.text
    #expect(text.contains("● 2. Backend  API"))
    #expect(text.contains("1. Rate-limit the login endpoint  #3"))
    try window.perform(.select(list: "project", item: "Mobile App"))
    try window.perform(.select(list: "project", item: "2"))
    #expect(throws: ScriptError.self) { try window.perform(.select(list: "project", item: "3")) }
    try window.perform(.tap("Refresh"))
    try window.perform(.tap("New task"))
    #expect(stub.actions == [.load, .selectProject(1), .selectProject(2), .refresh])
    #expect(stack.topViewController.title == "Compose screen")
  }

  @Test func theComposeFormFollowsItsState() throws {
    let reactor = TaskComposeViewReactor(
      serviceProvider: TestServices(
        taskService: FakeTaskService(), fileService: FakeFileService()))
    let stub = reactor.enableStub()
    let compose = TaskComposeViewController(reactor: reactor)
    let stack = NavigationController(root: PlaceholderViewController(title: "Tasks screen"))
    let window = windowShowing(stack)
    stack.push(compose)
    stub.state.projects = [Choice(id: 1, title: "Mobile App", detail: "MOB")]
    stub.state.projectID = 1
    stub.state.isLoadingContext = true
    #expect(window.text.contains("Loading milestones, tags, members and permissions…"))
    #expect(throws: ScriptError.disabled("the button \"Save\" is disabled")) {
      try window.perform(.tap("Save"))
    }
    stub.state.isLoadingContext = false
    stub.state.hasContext = true
    stub.state.mayCreate = true
    stub.state.milestones = [Choice(id: 11, title: "v1.0 Beta")]
    stub.state.tags = [Choice(id: 101, title: "bug")]
    stub.state.tagIDs = [101]
    stub.state.title = "Ship it"
    stub.state.attachments = [Choice(id: 5, title: "shot.png", detail: "12 bytes")]
    let text = window.text
    #expect(text.contains("[x] bug"))
    #expect(text.contains("Attachments: shot.png"))
    try window.perform(.toggle(list: "tags", item: "bug"))
    try window.perform(.select(list: "milestone", item: "v1.0 Beta"))
    try window.perform(.type(field: "file", text: "/tmp/a.png"))
    try window.perform(.tap("Save"))
    #expect(
      stub.actions == [
        .load, .toggleTag(101), .selectMilestone(11), .setAttachmentPath("/tmp/a.png"), .save,
      ])
    stub.emit(.toast("Task created: Ship it"))
    stub.emit(.saved)
    #expect(window.text.contains("✓ Task created: Ship it"))
    #expect(stack.topViewController.title == "Tasks screen")  // closed
  }

  @Test func aViewerSeesWhyTheyCannotSave() {
    let reactor = TaskComposeViewReactor(
      serviceProvider: TestServices(
        taskService: FakeTaskService(), fileService: FakeFileService()))
    let stub = reactor.enableStub()
    let window = windowShowing(TaskComposeViewController(reactor: reactor))
    stub.state.projectID = 3
    stub.state.hasContext = true
    stub.state.mayCreate = false
    #expect(window.text.contains("You can view this project but not create tasks in it."))
  }

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
}
