import Testing
import TrellisCore
import TrellisFront
import TrellisFrontTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

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
  }
}
