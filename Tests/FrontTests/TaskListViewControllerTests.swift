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
@Suite("TaskListViewController")
struct TaskListViewControllerTests {
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

  /// "New task" opens the form on the list's project.
  @Test func newTaskStartsInTheListsProject() throws {
    let reactor = TaskListViewReactor(serviceProvider: TestServices())
    let stub = reactor.enableStub()
    let stack = NavigationController(
      root: TaskListViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    let window = windowShowing(stack)
    stub.state.projects = [Choice(id: 1, title: "Mobile App"), Choice(id: 2, title: "Backend")]
    stub.state.projectID = 2
    try window.perform(.tap("New task"))
    let form = try #require(stack.topViewController as? ComposePlaceholder)
    #expect(form.projectID == 2)
  }

  @Test func choosingATaskOpensItInFull() throws {
    let reactor = TaskListViewReactor(serviceProvider: TestServices())
    let stub = reactor.enableStub()
    let stack = NavigationController(
      root: TaskListViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    let window = windowShowing(stack)
    stub.state.projects = [Choice(id: 1, title: "Mobile App")]
    stub.state.projectID = 1
    stub.state.tasks = [Choice(id: 7, title: "Fix the crash", detail: "#7")]
    try window.perform(.select(list: "tasks", item: "Fix the crash"))
    #expect(stack.topViewController.title == "Task 7 screen")
  }

  /// Until the first tasks arrive the list says it is loading, not that there are none.
  @Test func theListSaysLoadingUntilTheTasksArrive() {
    let reactor = TaskListViewReactor(serviceProvider: TestServices())
    let stub = reactor.enableStub()
    let window = windowShowing(
      TaskListViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    stub.state.isLoading = true
    stub.state.projects = [Choice(id: 1, title: "Mobile App")]
    stub.state.projectID = 1
    #expect(window.text.contains("Loading…"))
    #expect(!window.text.contains("No tasks yet."))
  }

  /// Typing in the search field sends each text; moving onto the last row asks for the next
  /// page, as "Load more" does, which shows only while more tasks match.
  @Test func searchingAndPagingSendTheirActions() throws {
    let reactor = TaskListViewReactor(serviceProvider: TestServices())
    let stub = reactor.enableStub()
    let window = windowShowing(
      TaskListViewController(reactor: reactor, viewControllerProvider: FakeProviders()))
    stub.state.projects = [Choice(id: 1, title: "Mobile App")]
    stub.state.projectID = 1
    stub.state.tasks = [Choice(id: 8, title: "Export fails"), Choice(id: 7, title: "Fix it")]
    #expect(!window.text.contains("Load more"))
    stub.state.nextCursor = "7"
    #expect(window.text.contains("Load more"))
    try window.perform(.type(field: "search", text: "exp"))
    // Keys: from the search field (where typing put the focus) down into the list, then down
    // onto its last row.
    window.handle(.down)
    #expect(stub.actions == [.load, .search("exp")])
    window.handle(.down)
    #expect(stub.actions == [.load, .search("exp"), .loadMore])
    try window.perform(.tap("Load more"))
    #expect(stub.actions == [.load, .search("exp"), .loadMore, .loadMore])
    stub.state.isLoadingMore = true
    #expect(window.text.contains("Loading more tasks…") && !window.text.contains("Load more "))
    stub.state.query = "zebra"
    stub.state.tasks = []
    stub.state.nextCursor = nil
    #expect(window.text.contains("No task matches \"zebra\"."))
  }

  @Test func snapshots() throws {
    let screen = TaskListViewController(
      reactor: TaskListViewReactor(serviceProvider: TestServices()),
      viewControllerProvider: FakeProviders())
    var state = TaskListViewReactor.State()
    state.isLoading = true
    try assertSnapshot(of: screen, state: state, named: "loading")
    state.projects = [
      Choice(id: 1, title: "Mobile App", detail: "MOB"),
      Choice(id: 2, title: "Backend", detail: "API"),
    ]
    state.projectID = 2
    state.isLoading = false
    try assertSnapshot(of: screen, state: state, named: "empty-project")
    state.tasks = [
      Choice(id: 3, title: "Rate-limit the login endpoint", detail: "#3 · 1 attachment"),
      Choice(id: 2, title: "Document the API", detail: "#2"),
    ]
    try assertSnapshot(of: screen, state: state, named: "tasks")
    state.staleNotice =
      "Offline: showing the tasks as last loaded. They reload when the connection is back."
    try assertSnapshot(of: screen, state: state, named: "offline")
    state.staleNotice = nil
    state.query = "rate"
    state.tasks = [
      Choice(id: 3, title: "Rate-limit the login endpoint", detail: "#3 · done · 1 attachment")
    ]
    state.nextCursor = "3"
    try assertSnapshot(of: screen, state: state, named: "search-more")
    state.isLoadingMore = true
    try assertSnapshot(of: screen, state: state, named: "loading-more")
    state.isLoadingMore = false
    state.nextCursor = nil
    state.query = "zebra"
    state.tasks = []
    try assertSnapshot(of: screen, state: state, named: "no-match")
  }
}
