import TasksFeature
import TasksFeatureFront
import Testing
import TrellisCore
import TrellisFrontTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@testable import TrellisFront

@MainActor
@Suite("TaskDetailViewController")
struct TaskDetailViewControllerTests {
  private func makeScreen() -> (TaskDetailViewController, ReactorStub<TaskDetailViewReactor>) {
    let reactor = TaskDetailViewReactor(serviceProvider: TestServices(), taskID: 7)
    let stub = reactor.enableStub()
    return (TaskDetailViewController(reactor: reactor), stub)
  }

  @Test func theTaskShowsWithItsNamesAndLoadsOnAppearing() throws {
    let (screen, stub) = makeScreen()
    let window = windowShowing(screen)
    #expect(stub.actions == [.load])
    #expect(window.text.contains("Loading the task…"))
    #expect(window.text.contains("Trellis · Task #7"))
    stub.state.detail = TaskDetailViewReactor.TaskDetail(
      title: "Fix the crash", project: "Mobile App", tags: ["bug"], assignees: ["Alice Kim"])
    let text = window.text
    #expect(text.contains("Project: Mobile App"))
    #expect(text.contains("Milestone: —"))
    #expect(text.contains("Tags: bug"))
    #expect(text.contains("No attachments."))
    // Choosing an attachment asks the reactor to say what it is.
    stub.state.detail?.attachments = [
      Choice(id: 5, title: "trace.txt", detail: "42 bytes · text/plain")
    ]
    #expect(window.text.contains("trace.txt  42 bytes · text/plain"))
    try window.perform(.select(list: "attachments", item: "trace.txt"))
    #expect(stub.actions == [.load, .openAttachment(5)])
  }

  /// The buttons send their actions; renaming opens a field, deleting asks first.
  @Test func theButtonsChangeTheTaskAndDeletingAsksFirst() throws {
    let (screen, stub) = makeScreen()
    let window = windowShowing(screen)
    stub.state.task = TaskItem(id: 7, projectID: 1, title: "Fix the crash")
    stub.state.detail = TaskDetailViewReactor.TaskDetail(title: "Fix the crash", project: "Mobile")
    #expect(window.text.contains("Status: Open"))
    try window.perform(.tap("Mark done"))
    try window.perform(.tap("Rename"))
    try window.perform(.tap("Delete"))
    #expect(stub.actions == [.load, .toggleDone, .startRename, .delete])
    stub.state.detail?.isDone = true
    #expect(window.text.contains("Status: Done") && window.text.contains("Mark not done"))
    stub.state.titleDraft = "Fix the crash"
    #expect(window.text.contains("New title"))
    #expect(screen.unsavedChangesWarning == nil)
    try window.perform(.type(field: "title", text: "Fix the crash on rotation"))
    stub.state.titleDraft = "Fix the crash on rotation"
    #expect(screen.unsavedChangesWarning == "The new title you typed will be lost.")
    try window.perform(.tap("Save title"))
    #expect(stub.actions.suffix(2) == [.editTitle("Fix the crash on rotation"), .saveTitle])
    stub.state.titleDraft = nil
    stub.state.isConfirmingDelete = true
    #expect(window.text.contains("Delete \"Fix the crash\"? This cannot be undone."))
    try window.perform(.tap("Keep it"))
    try window.perform(.tap("Delete task"))
    #expect(stub.actions.suffix(2) == [.cancelDelete, .confirmDelete])
    stub.state.isSaving = true
    #expect(throws: ScriptError.self) { try window.perform(.tap("Delete task")) }
  }

  /// Once deleted, the screen closes.
  /// The question before deleting has its safe answer focused: Enter on "Delete", then Enter
  /// again, keeps the task.
  @Test func enterTwiceOnDeleteKeepsTheTask() {
    let (screen, stub) = makeScreen()
    let window = windowShowing(screen)
    stub.state.task = TaskItem(id: 7, projectID: 1, title: "Fix the crash")
    stub.state.detail = TaskDetailViewReactor.TaskDetail(title: "Fix the crash", project: "Mobile")
    _ = window.text
    // To "Delete" (after the attachments list, "Mark done" and "Rename"), as a user would.
    while screen.formState.focusedID != "button:Delete" { window.handle(.tab) }
    window.handle(.enter)
    #expect(stub.actions.last == .delete)
    stub.state.isConfirmingDelete = true
    window.handle(.enter)
    #expect(stub.actions.last == .cancelDelete)
    #expect(!stub.actions.contains(.confirmDelete))
  }

  /// Offline, a task never loaded shows what the list knew, why it is not loaded, and Retry.
  @Test func offlineTheScreenShowsWhatTheListKnewAndRetry() throws {
    let (screen, stub) = makeScreen()
    let window = windowShowing(screen)
    stub.state.preview = TaskItem(id: 7, projectID: 1, title: "Fix the crash", isDone: true)
    stub.state.failure = "You are offline: the server cannot be reached."
    stub.state.isOffline = true
    let text = window.text
    #expect(text.contains("Fix the crash"))
    #expect(text.contains("Status: Done"))
    #expect(text.contains("You are offline: the server cannot be reached."))
    #expect(!text.contains("renew your session"))
    try window.perform(.tap("Retry"))
    #expect(stub.actions == [.load, .load])
  }

  @Test func aDeletedTaskClosesItsScreen() throws {
    let reactor = TaskDetailViewReactor(serviceProvider: TestServices(), taskID: 7)
    let stub = reactor.enableStub()
    let stack = NavigationController(root: PlaceholderViewController(title: "List"))
    let window = windowShowing(stack)
    stack.push(TaskDetailViewController(reactor: reactor))
    #expect(stack.topViewController.title == "Task #7")
    stub.emit(.deleted)
    #expect(stack.topViewController.title == "List")
    _ = window
  }

  @Test func snapshots() throws {
    let (screen, _) = makeScreen()
    var state = TaskDetailViewReactor.State(taskID: 7)
    state.failure = "There is no task 7 in your projects."
    try assertSnapshot(of: screen, state: state, named: "not-found")
    state.failure = nil
    state.detail = TaskDetailViewReactor.TaskDetail(
      title: "Rate-limit the login endpoint", project: "Backend", milestone: "v1.0 Beta",
      tags: ["security", "api"], assignees: ["Alice Kim", "Bob Lee"],
      attachments: [Choice(id: 5, title: "trace.txt", detail: "42 bytes")])
    try assertSnapshot(of: screen, state: state, named: "task")
    state.task = TaskItem(id: 7, projectID: 2, title: "Rate-limit the login endpoint")
    state.titleDraft = "Rate-limit login"
    state.titleProblem = "Title: at most 120 characters."
    try assertSnapshot(of: screen, state: state, named: "renaming")
    state.titleDraft = nil
    state.titleProblem = nil
    state.isConfirmingDelete = true
    try assertSnapshot(of: screen, state: state, named: "confirm-delete")
    state.isConfirmingDelete = false
    state.detail?.isDone = true
    state.isSaving = true
    try assertSnapshot(of: screen, state: state, named: "saving-done")
  }
}
