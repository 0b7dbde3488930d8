import TasksFeature
import TasksFeatureFront
import Testing
import TrellisCore
import TrellisFront
import TrellisFrontTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("TaskComposeViewController")
struct TaskComposeViewControllerTests {
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
    try window.perform(.select(list: "remove", item: "shot.png"))
    try window.perform(.tap("Save"))
    #expect(
      stub.actions == [
        .load, .toggleTag(101), .selectMilestone(11), .setAttachmentPath("/tmp/a.png"),
        .removeAttachment(5), .save,
      ])
    stub.emit(.toast("Task created: Ship it"))
    stub.emit(.saved)
    #expect(window.text.contains("✓ Task created: Ship it"))
    #expect(stack.topViewController.title == "Tasks screen")  // closed
  }

  /// A stubbed compose form pushed over a "Tasks screen" in a window.
  private func composeOnAStack() -> (
    ReactorStub<TaskComposeViewReactor>, NavigationController, Window
  ) {
    let reactor = TaskComposeViewReactor(
      serviceProvider: TestServices(
        taskService: FakeTaskService(), fileService: FakeFileService()))
    let stub = reactor.enableStub()
    let stack = NavigationController(root: PlaceholderViewController(title: "Tasks screen"))
    let window = windowShowing(stack)
    stack.push(TaskComposeViewController(reactor: reactor))
    return (stub, stack, window)
  }

  /// Esc on a form holding input asks before throwing it away; Esc (or Enter on the default
  /// "Keep editing") keeps the form as it was; "Discard" goes back. A clean form goes back at
  /// once.
  @Test func escOnAFormWithInputAsksBeforeDiscardingIt() throws {
    let (stub, stack, window) = composeOnAStack()
    stub.state.projects = [Choice(id: 1, title: "Mobile App", detail: "MOB")]
    stub.state.projectID = 1  // chosen for the user: not input
    stub.state.title = "Half a thought"
    window.handle(.escape)
    #expect(window.currentConfirmation == "The task you are writing will be lost.")
    #expect(window.text.contains("Discard changes?"))
    #expect(window.text.contains("[ Keep editing ] [ Discard ]"))
    window.handle(.character("x"))  // no typing into the form behind the question
    window.handle(.escape)
    #expect(window.currentConfirmation == nil)
    #expect(stack.topViewController.title == "New task")
    window.handle(.escape)
    window.handle(.enter)  // the default button keeps editing
    #expect(stack.topViewController.title == "New task")
    #expect(stub.actions == [.load])
    window.handle(.escape)
    window.handle(.tab)
    window.handle(.enter)
    #expect(stack.topViewController.title == "Tasks screen")

    // A clean form goes back at once.
    let clean = TaskComposeViewReactor(
      serviceProvider: TestServices(
        taskService: FakeTaskService(), fileService: FakeFileService()))
    let cleanStub = clean.enableStub()
    stack.push(TaskComposeViewController(reactor: clean))
    cleanStub.state.projects = [Choice(id: 1, title: "Mobile App", detail: "MOB")]
    cleanStub.state.projectID = 1
    window.handle(.escape)
    #expect(window.currentConfirmation == nil)
    #expect(stack.topViewController.title == "Tasks screen")
  }

  /// A question left open while the form closed itself (a save finished) never discards
  /// another screen: it goes with the form.
  @Test func aQuestionAboutAFormThatClosedDiscardsNothingElse() {
    let reactor = TaskComposeViewReactor(
      serviceProvider: TestServices(
        taskService: FakeTaskService(), fileService: FakeFileService()))
    let stub = reactor.enableStub()
    let root = PlaceholderViewController(title: "Home")
    let stack = NavigationController(root: root)
    let window = windowShowing(stack)
    stack.push(PlaceholderViewController(title: "Tasks screen"))
    stack.push(TaskComposeViewController(reactor: reactor))
    stub.state.title = "Saving this"
    window.handle(.escape)
    #expect(window.currentConfirmation != nil)
    stub.emit(.saved)  // the save finished: the form pops itself
    #expect(stack.topViewController.title == "Tasks screen")
    #expect(window.currentConfirmation == nil)  // gone with the form, before any drawing
    window.handle(.character("d"))
    #expect(stack.topViewController.title == "Tasks screen")
    #expect(window.currentConfirmation == nil)
    #expect(!window.text.contains("Discard changes?"))
  }

  /// Scripts answer the question by name; anything else while it shows is refused, naming
  /// the choices. Leaving through the menu asks too.
  @Test func scriptsAndTheMenuAskBeforeDiscardingInput() throws {
    let (stub, stack, window) = composeOnAStack()
    stub.state.attachments = [Choice(id: 5, title: "shot.png", detail: "12 bytes")]
    try window.perform(.back)
    #expect(window.currentConfirmation != nil)
    #expect(throws: ScriptError.self) { try window.perform(.tap("Save")) }
    try window.perform(.tap("keep editing"))
    #expect(stack.topViewController.title == "New task")
    var left = false
    window.leaveAfterAsking(stack.viewControllers) { left = true }
    #expect(!left)
    try window.perform(.tap("Discard"))
    #expect(left)
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

  @Test func snapshots() throws {
    let screen = TaskComposeViewController(
      reactor: TaskComposeViewReactor(serviceProvider: TestServices()))
    var state = TaskComposeViewReactor.State()
    try assertSnapshot(of: screen, state: state, named: "loading-projects")
    state.projects = [Choice(id: 1, title: "Mobile App", detail: "MOB")]
    state.projectID = 1
    state.hasContext = true
    state.mayCreate = true
    state.milestones = [Choice(id: 11, title: "v1.0 Beta")]
    state.tags = [Choice(id: 100, title: "bug"), Choice(id: 101, title: "feature")]
    state.members = [Choice(id: 1, title: "Alice Kim", detail: "admin")]
    state.title = "Ship it"
    state.tagIDs = [100]
    state.attachments = [Choice(id: 5, title: "shot.png", detail: "120 bytes")]
    try assertSnapshot(
      of: screen, state: state, named: "filled", size: TerminalSize(columns: 80, rows: 40))
  }
}
