import Testing
import TrellisCoreTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("TaskDetailViewReactor", .timeLimit(.minutes(1)))
struct TaskDetailViewReactorTests {
  @Test func loadsTheTaskWithItsProjectsNames() async throws {
    let tasks = FakeTaskService()
    tasks.setTasks([
      TaskItem(
        id: 7, projectID: 2, title: "Rate-limit the login endpoint", milestoneID: 20,
        tagIDs: [200, 999], assigneeIDs: [1],
        attachments: [Attachment(id: 5, name: "trace.txt", size: 42, contentType: "text/plain")])
    ])
    let tester = ReactorTester(
      TaskDetailViewReactor(serviceProvider: TestServices(taskService: tasks), taskID: 7))
    tester.send(.load)
    try await tester.expect { $0.isLoading = true }
    await tasks.contexts.waitForArrival(2)
    tasks.contexts.answer(2, with: .sample(2))
    try await tester.expect {
      $0.detail = TaskDetailViewReactor.TaskDetail(
        title: "Rate-limit the login endpoint", project: "Backend", milestone: "M2",
        tags: ["tag2", "#999"], assignees: ["Alice Kim"],
        attachments: [Choice(id: 5, title: "trace.txt", detail: "42 bytes · text/plain")])
    }
    try await tester.expect { $0.isLoading = false }
    // Opening an attachment says what it is (a terminal cannot show the file).
    tester.send(.openAttachment(5))
    try await tester.expectEvents(
      .alert(title: "trace.txt", message: "42 bytes · text/plain (file 5)."))
    tester.send(.openAttachment(6))  // not on this task: nothing
    try await tester.finish()
  }

  @Test func anUnknownTaskSaysSo() async throws {
    let tester = ReactorTester(
      TaskDetailViewReactor(serviceProvider: TestServices(), taskID: 404))
    try await tester.send(.load) { $0.isLoading = true }
    try await tester.expect { $0.failure = "There is no task 404 in your projects." }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()
  }
}
