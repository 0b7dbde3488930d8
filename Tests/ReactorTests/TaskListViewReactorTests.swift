import Testing
import TrellisCoreTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("TaskListViewReactor", .timeLimit(.minutes(1)))
struct TaskListViewReactorTests {
  private let projects = [
    Choice(id: 1, title: "Mobile App", detail: "MOB"),
    Choice(id: 2, title: "Backend", detail: "API"),
  ]

  @Test func loadsTheProjectsAndTheFirstProjectsTasks() async throws {
    let tasks = FakeTaskService()
    tasks.setTasks([TaskItem(id: 7, projectID: 1, title: "Fix the crash")])
    let tester = ReactorTester(
      TaskListViewReactor(
        serviceProvider: TestServices(
          taskService: tasks, connectionService: FakeConnectionService())))
    tester.send(.load)
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.projects = projects }
    // The effect chains the first project's selection, as an action the tester sees.
    try await tester.expectActions(.selectProject(1))
    try await tester.expect { $0.projectID = 1 }
    try await tester.expect { $0.isLoading = true }
    // Loading until the tasks arrive: no moment of "No tasks yet." in between.
    try await tester.expect { $0.tasks = [Choice(id: 7, title: "Fix the crash", detail: "#7")] }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()
  }

  @Test func aTaskCreatedFromThisListShowsItsProjectLoadedAfresh() async throws {
    let tasks = FakeTaskService()
    tasks.setTasks([TaskItem(id: 8, projectID: 2, title: "New endpoint")])
    let tester = ReactorTester(
      TaskListViewReactor(serviceProvider: TestServices(taskService: tasks)))
    tester.send(.showCreatedTask(projectID: 2))
    try await tester.expect { $0.projectID = 2 }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.tasks = [Choice(id: 8, title: "New endpoint", detail: "#8")] }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()
    #expect(tasks.taskLoads == ["2 force"])
  }

  @Test func aTaskCreatedElsewhereInTheShownProjectRefreshesTheList() async throws {
    let tasks = FakeTaskService()
    let connection = FakeConnectionService()
    let tester = ReactorTester(
      TaskListViewReactor(
        serviceProvider: TestServices(
          taskService: tasks, connectionService: connection)))
    tester.send(.selectProject(1))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    while connection.events.subscriberCount == 0 { await Task.yield() }
    let created = TaskItem(id: 9, projectID: 1, title: "From Carol")
    tasks.setTasks([created])
    connection.events.send(.taskCreated(TaskItem(id: 10, projectID: 2, title: "Other project")))
    connection.events.send(.taskCreated(created))
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.tasks = [Choice(id: 9, title: "From Carol", detail: "#9")] }
    try await tester.expect { $0.isLoading = false }
    #expect(tasks.taskLoads == ["1 cached", "1 force"])  // the other project's event was ignored
    // Deleted elsewhere: the list is reloaded, and the task is gone from it.
    tasks.setTasks([])
    connection.events.send(.taskDeleted(created))
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.tasks = [] }
    try await tester.expect { $0.isLoading = false }
    #expect(tasks.taskLoads == ["1 cached", "1 force", "1 force"])
  }

  @Test(.startsEffectsWithinSend) func choosingAnotherProjectCancelsTheSlowerLoad() async throws {
    let tasks = FakeTaskService()
    tasks.holdTaskLists()
    let tester = ReactorTester(
      TaskListViewReactor(
        serviceProvider: TestServices(
          taskService: tasks, connectionService: FakeConnectionService())))
    tester.send(.selectProject(1))
    tester.send(.selectProject(2))
    await tasks.taskLists.waitForArrival(2)
    #expect(!tasks.taskLists.isWaiting(1))  // the first load was cancelled
    tasks.taskLists.answer(2, with: [TaskItem(id: 3, projectID: 2, title: "Rate limit")])
    try await tester.expect { $0.projectID = 1 }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.projectID = 2 }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.tasks = [Choice(id: 3, title: "Rate limit", detail: "#3")] }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()
  }

  @Test func offlineTheListStaysMarkedAsNotCurrentAndReloadsWhenLiveAgain() async throws {
    let tasks = FakeTaskService()
    let connection = FakeConnectionService()
    tasks.setTasks([TaskItem(id: 7, projectID: 1, title: "Fix the crash")])
    let tester = ReactorTester(
      TaskListViewReactor(
        serviceProvider: TestServices(taskService: tasks, connectionService: connection)))
    let loaded = [Choice(id: 7, title: "Fix the crash", detail: "#7")]
    tester.send(.selectProject(1))
    try await tester.expect { $0.projectID = 1 }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.tasks = loaded }
    try await tester.expect { $0.isLoading = false }

    tasks.failTaskLoads(with: ServiceError(.offline, "The server cannot be reached."))
    tester.send(.refresh)
    try await tester.expect { $0.isLoading = true }
    // No alert, and the tasks stay: marked as not current.
    try await tester.expect {
      $0.staleNotice =
        "Offline: showing the tasks as last loaded. They reload when the connection is back."
    }
    try await tester.expect { $0.isLoading = false }
    #expect(tester.reactor.currentState.tasks == loaded)

    // Live again: the list reloads by itself.
    tasks.failTaskLoads(with: nil)
    tasks.setTasks([
      TaskItem(id: 7, projectID: 1, title: "Fix the crash"),
      TaskItem(id: 8, projectID: 1, title: "Created meanwhile"),
    ])
    while connection.state.subscriberCount == 0 { await Task.yield() }
    connection.state.send(.reconnecting)
    connection.state.send(.online)
    try await tester.expect { $0.isLoading = true }
    try await tester.expect {
      $0.tasks = loaded + [Choice(id: 8, title: "Created meanwhile", detail: "#8")]
      $0.staleNotice = nil
    }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()
    #expect(tasks.taskLoads == ["1 cached", "1 force", "1 force"])
  }
}
