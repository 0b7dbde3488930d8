import Foundation
import TasksFeature
import Testing
import TrellisCore
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

  /// A task created in this app (the task service announces it on `changes`) brings the list
  /// to its project, loaded afresh: no callback from the form that created it.
  @Test func aTaskCreatedInThisAppShowsItsProjectLoadedAfresh() async throws {
    let tasks = FakeTaskService()
    let tester = ReactorTester(
      TaskListViewReactor(serviceProvider: TestServices(taskService: tasks)))
    tester.send(.refresh)  // starts the reactor (no project yet: nothing to refresh)
    try #require(await eventually { tasks.changes.subscriberCount > 0 })
    let created = try await tasks.createTask(
      TaskDraft(projectID: 2, title: "New endpoint", body: ""))
    try await tester.expect { $0.projectID = 2 }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect {
      $0.tasks = [Choice(id: created.id, title: "New endpoint", detail: "#\(created.id)")]
    }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()
    #expect(tasks.taskLoads == ["2 force"])
  }

  /// Changes not sent yet (made offline) mark their rows and are counted; a task created
  /// offline is on top at once, before any server has it; a change undone when the server
  /// finally answered it is an alert wherever the list is.
  @Test func changesNotSentYetAreMarkedAndCounted() async throws {
    let tasks = FakeTaskService()
    tasks.setTasks([
      TaskItem(id: 7, projectID: 1, title: "Fix the crash"),
      TaskItem(id: 8, projectID: 1, title: "Ship it"),
    ])
    tasks.pending.send(PendingChanges(taskIDs: [8], count: 1))
    let tester = ReactorTester(
      TaskListViewReactor(serviceProvider: TestServices(taskService: tasks)))
    tester.send(.load)
    try await tester.expect { $0.pending = PendingChanges(taskIDs: [8], count: 1) }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.projects = projects }
    try await tester.expectActions(.selectProject(1))
    try await tester.expect { $0.projectID = 1 }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect {
      $0.tasks = [
        Choice(id: 8, title: "Ship it", detail: "#8"),
        Choice(id: 7, title: "Fix the crash", detail: "#7"),
      ]
    }
    try await tester.expect { $0.isLoading = false }
    #expect(tester.lastAssertedState.rows.map(\.detail) == ["#8 · not sent yet", "#7"])
    #expect(
      tester.lastAssertedState.pendingNotice
        == "1 change not sent yet: it is sent as soon as the server takes it.")

    let unsaved = TaskItem(id: -5, projectID: 1, title: "Made offline")
    tasks.changes.send(.created(unsaved))
    try await tester.expect {
      $0.tasks.insert(Choice(id: -5, title: "Made offline", detail: "new"), at: 0)
    }
    tasks.pending.send(PendingChanges(taskIDs: [8, -5], count: 2))
    try await tester.expect { $0.pending = PendingChanges(taskIDs: [8, -5], count: 2) }
    #expect(tester.lastAssertedState.rows.first?.detail == "new · not sent yet")
    #expect(
      tester.lastAssertedState.pendingNotice
        == "2 changes not sent yet: they are sent as soon as the server takes them.")

    // Saved: the server's task takes the temporary one's place.
    tasks.changes.send(
      .replaced(temporaryID: -5, TaskItem(id: 9, projectID: 1, title: "Made offline")))
    try await tester.expect { $0.tasks[0] = Choice(id: 9, title: "Made offline", detail: "#9") }

    try await tester.finish()
  }

  /// The live connection dropped while the list was shown (a tunnel): what the server
  /// announced meanwhile may never arrive (a server that cannot replay it). When the connection
  /// is live again the list reloads, though no load of it failed; the first connection after
  /// sign-in, and staying live, reload nothing.
  @Test func everyReturnFromOfflineToLiveReloadsTheList() async throws {
    let tasks = FakeTaskService()
    tasks.setTasks([TaskItem(id: 7, projectID: 1, title: "Before the tunnel")])
    let connection = FakeConnectionService()
    let tester = ReactorTester(
      TaskListViewReactor(
        serviceProvider: TestServices(taskService: tasks, connectionService: connection)))
    tester.send(.selectProject(1))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    try #require(await eventually { connection.state.subscriberCount > 0 })
    connection.state.send(.connecting)
    connection.state.send(.online)
    await tester.reactor.waitUntilIdle()
    #expect(tasks.taskLoads == ["1 cached"])
    // Down, and a task created on the server meanwhile, its event lost.
    connection.state.send(.offline)
    try await tester.expect { $0.mayHaveMissedEvents = true }
    tasks.setTasks([
      TaskItem(id: 8, projectID: 1, title: "Made in the tunnel"),
      TaskItem(id: 7, projectID: 1, title: "Before the tunnel"),
    ])
    connection.state.send(.reconnecting)
    connection.state.send(.online)
    try await tester.expect { $0.mayHaveMissedEvents = false }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect {
      $0.tasks = [
        Choice(id: 8, title: "Made in the tunnel", detail: "#8"),
        Choice(id: 7, title: "Before the tunnel", detail: "#7"),
      ]
    }
    try await tester.expect { $0.isLoading = false }
    #expect(tasks.taskLoads == ["1 cached", "1 force"])
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
    try #require(await eventually { connection.events.subscriberCount > 0 })
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
    await tasks.taskLists.waitForArrival(TaskListRequest(2))
    #expect(!tasks.taskLists.isWaiting(TaskListRequest(1)))  // the first load was cancelled
    tasks.taskLists.answer(
      TaskListRequest(2),
      with: TaskPage(tasks: [TaskItem(id: 3, projectID: 2, title: "Rate limit")]))
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
    try #require(await eventually { connection.state.subscriberCount > 0 })
    connection.state.send(.reconnecting)
    try await tester.expect { $0.mayHaveMissedEvents = true }
    connection.state.send(.online)
    try await tester.expect { $0.mayHaveMissedEvents = false }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect {
      $0.tasks = [Choice(id: 8, title: "Created meanwhile", detail: "#8")] + loaded
      $0.staleNotice = nil
    }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()
    #expect(tasks.taskLoads == ["1 cached", "1 force", "1 force"])
  }

  /// A project never loaded, chosen offline, says it could not be loaded, not "No tasks yet."
  @Test func aProjectNeverLoadedChosenOfflineSaysItCouldNotBeLoaded() async throws {
    let tasks = FakeTaskService()
    tasks.failTaskLoads(with: ServiceError(.offline, "The server cannot be reached."))
    let tester = ReactorTester(
      TaskListViewReactor(serviceProvider: TestServices(taskService: tasks)))
    tester.isExhaustive = false
    tester.send(.selectProject(4))
    await tester.reactor.waitUntilIdle()
    let state = tester.reactor.currentState
    #expect(state.tasks.isEmpty)
    #expect(
      state.offlineNotice
        == "Offline: this project's tasks could not be loaded. They load when the connection is back."
    )
    #expect(state.emptyText == "Not loaded (offline).")
    tester.skipOutputs()
  }

  // MARK: What the device kept from an earlier launch

  /// Ages in UTC, "now" being 2025-11-26 14:00.
  private static let utc = AgeText(
    timeZone: TimeZone(identifier: "UTC")!, now: { Date(timeIntervalSince1970: 1_764_165_600) })

  /// Stale-while-revalidate: the list opens on the project shown last, its kept rows at once
  /// marked with their age (no "Loading…"), then the server's rows replace them.
  @Test func theKeptRowsShowAtOnceWithTheirAgeThenTheServersReplaceThem() async throws {
    let tasks = FakeTaskService()
    tasks.setTasks([TaskItem(id: 9, projectID: 2, title: "From the server")])
    let earlier = Date(timeIntervalSince1970: 1_764_165_600 - 1800)  // 13:30
    tasks.setStored(
      projects: Stored(
        [
          Project(id: 1, key: "MOB", name: "Mobile App"),
          Project(id: 2, key: "API", name: "Backend"),
        ], storedAt: earlier),
      pages: [
        1: Stored(
          TaskPage(tasks: [TaskItem(id: 3, projectID: 1, title: "Older")]), storedAt: earlier - 60),
        2: Stored(
          TaskPage(tasks: [TaskItem(id: 8, projectID: 2, title: "Kept")]), storedAt: earlier),
      ])
    let tester = ReactorTester(
      TaskListViewReactor(
        serviceProvider: TestServices(taskService: tasks), ageText: Self.utc))
    tester.send(.load)
    try await tester.expect { $0.projects = projects }
    try await tester.expect { $0.projectID = 2 }  // the project shown last
    try await tester.expect {
      $0.tasks = [Choice(id: 8, title: "Kept", detail: "#8")]
      $0.storedAge = "as of 13:30"
    }
    #expect(
      tester.reactor.currentState.storedNotice == "Showing the tasks as of 13:30 while they load.")
    // Then the server's answer replaces them.
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    let state = tester.reactor.currentState
    #expect(state.tasks == [Choice(id: 9, title: "From the server", detail: "#9")])
    #expect(state.storedAge == nil && state.storedNotice == nil && !state.isLoading)
    #expect(state.projectID == 2)
  }

  /// Projects kept but no page of theirs (evicted, or the app quit before the first page came):
  /// the list opens on the first project and loads its tasks from the server.
  @Test func keptProjectsWithNoKeptPageStillLoadTheTasks() async throws {
    let tasks = FakeTaskService()
    tasks.setTasks([TaskItem(id: 9, projectID: 1, title: "From the server")])
    tasks.setStored(
      projects: Stored(
        [Project(id: 1, key: "MOB", name: "Mobile App")],
        storedAt: Date(timeIntervalSince1970: 1_764_165_600)))
    let tester = ReactorTester(
      TaskListViewReactor(
        serviceProvider: TestServices(taskService: tasks), ageText: Self.utc))
    tester.isExhaustive = false
    tester.send(.load)
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    #expect(
      tester.reactor.currentState.tasks == [Choice(id: 9, title: "From the server", detail: "#9")])
    #expect(tasks.taskLoads == ["1 cached"])
  }

  /// Offline, the kept rows stay, marked as what they are.
  @Test func offlineTheKeptRowsStayMarkedWithTheirAge() async throws {
    let tasks = FakeTaskService()
    tasks.failTaskLoads(with: ServiceError(.offline, "The server cannot be reached."))
    let earlier = Date(timeIntervalSince1970: 1_764_165_600 - 86_400 * 2)  // two days before
    tasks.setStored(
      projects: Stored([Project(id: 1, key: "MOB", name: "Mobile App")], storedAt: earlier),
      pages: [
        1: Stored(
          TaskPage(tasks: [TaskItem(id: 3, projectID: 1, title: "Kept")]), storedAt: earlier)
      ])
    let tester = ReactorTester(
      TaskListViewReactor(
        serviceProvider: TestServices(taskService: tasks), ageText: Self.utc))
    tester.isExhaustive = false
    tester.send(.load)
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    let state = tester.reactor.currentState
    #expect(state.tasks == [Choice(id: 3, title: "Kept", detail: "#3")])
    #expect(
      state.offlineNotice
        == "Offline: showing the tasks as of 2025-11-24 14:00. They reload when the connection is back."
    )
  }

  // MARK: Search, pages and changes made in the app

  private func makeTester(
    _ tasks: FakeTaskService, clock: TestClock = TestClock()
  ) -> ReactorTester<TaskListViewReactor> {
    ReactorTester(
      TaskListViewReactor(
        serviceProvider: TestServices(
          taskService: tasks, connectionService: FakeConnectionService()),
        clock: clock))
  }

  private static func row(_ id: Int, _ title: String, done: Bool = false) -> Choice {
    Choice(id: id, title: title, detail: done ? "#\(id) · done" : "#\(id)")
  }

  /// A tester whose list shows the first page (tasks 5 and 4, pages of two) of project 1's five
  /// tasks, every state on the way asserted.
  private func showingFirstPageOfFive(
    _ tasks: FakeTaskService, clock: TestClock = TestClock()
  ) async throws -> ReactorTester<TaskListViewReactor> {
    tasks.setTasks((1...5).map { TaskItem(id: $0, projectID: 1, title: "Task \($0)") })
    let tester = makeTester(tasks, clock: clock)
    tester.send(.selectProject(1))
    try await tester.expect { $0.projectID = 1 }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect {
      $0.tasks = [Self.row(5, "Task 5"), Self.row(4, "Task 4")]
      $0.nextCursor = "4"
    }
    try await tester.expect { $0.isLoading = false }
    return tester
  }

  /// Typing runs one search per pause: nothing is asked before the pause is over, a trailing
  /// space asks nothing new, a query without a match says so, and clearing the field shows the
  /// list at once. No real time passes: the test moves the clock.
  @Test func aSearchRunsOncePerPauseInTyping() async throws {
    let tasks = FakeTaskService()
    tasks.setTasks([
      TaskItem(id: 7, projectID: 1, title: "Fix the crash"),
      TaskItem(id: 8, projectID: 1, title: "Export fails"),
    ])
    let clock = TestClock()
    let tester = makeTester(tasks, clock: clock)
    let all = [Self.row(8, "Export fails"), Self.row(7, "Fix the crash")]
    tester.send(.selectProject(1))
    try await tester.expect { $0.projectID = 1 }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.tasks = all }
    try await tester.expect { $0.isLoading = false }

    try await tester.send(.search("ex")) { $0.query = "ex" }
    try await tester.send(.search("exp")) { $0.query = "exp" }
    try #require(await clock.waitForSleepers(1))
    await clock.advance(by: TaskListViewReactor.searchDelay - .milliseconds(1))
    #expect(tasks.taskLoads == ["1 cached"])  // still typing, as far as the list knows
    await clock.advance(by: .milliseconds(1))
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.tasks = [Self.row(8, "Export fails")] }
    try await tester.expect { $0.isLoading = false }
    #expect(tasks.taskLoads == ["1 cached", "1 cached 'exp'"])  // "ex" was never asked

    try await tester.send(.search("exp ")) { $0.query = "exp " }
    #expect(clock.sleeperCount == 0)
    try await tester.send(.search("zebra")) { $0.query = "zebra" }
    try #require(await clock.waitForSleepers(1))
    await clock.advance(by: TaskListViewReactor.searchDelay)
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.tasks = [] }
    try await tester.expect { $0.isLoading = false }
    #expect(tester.reactor.currentState.emptyText == "No task matches \"zebra\".")

    tester.send(.search(""))  // no pause: the list is back at once
    try await tester.expect { $0.query = "" }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.tasks = all }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()
    #expect(tasks.taskLoads == ["1 cached", "1 cached 'exp'", "1 cached 'zebra'", "1 cached"])
  }

  /// A newer search cancels the one in flight, so its answer, even when the server sends it
  /// later, never lands; and an answer for a query the user has typed past is dropped.
  @Test func theLatestSearchWinsWhateverOrderTheServerAnswersIn() async throws {
    let tasks = FakeTaskService()
    tasks.holdTaskLists()
    let clock = TestClock()
    let tester = makeTester(tasks, clock: clock)
    tester.send(.selectProject(1))
    await tasks.taskLists.waitForArrival(TaskListRequest(1))
    tasks.taskLists.answer(TaskListRequest(1), with: TaskPage(tasks: []))
    try await tester.expect { $0.projectID = 1 }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.tasks = [] }
    try await tester.expect { $0.isLoading = false }

    for query in ["fix", "fix the"] {
      try await tester.send(.search(query)) { $0.query = query }
      try #require(await clock.waitForSleepers(1))
      await clock.advance(by: TaskListViewReactor.searchDelay)
      await tasks.taskLists.waitForArrival(TaskListRequest(1, query: query))
      try await tester.expect { $0.isLoading = true }
    }
    // The newer answer first, then the older one, which finds no one waiting for it.
    let newer = TaskItem(id: 7, projectID: 1, title: "Fix the crash")
    #expect(
      tasks.taskLists.answer(TaskListRequest(1, query: "fix the"), with: TaskPage(tasks: [newer])))
    #expect(
      !tasks.taskLists.answer(
        TaskListRequest(1, query: "fix"),
        with: TaskPage(tasks: [TaskItem(id: 9, projectID: 1, title: "Fix the old one")])))
    try await tester.expect { $0.tasks = [Self.row(7, "Fix the crash")] }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()

    let reactor = tester.reactor
    let late = reactor.reduce(
      state: reactor.currentState,
      mutation: .setTasks(
        TaskPage(tasks: [TaskItem(id: 9, projectID: 1, title: "Fix the old one")]), query: "fix"))
    #expect(late == reactor.currentState)
  }

  /// While a search waits for the pause, the old list's next page is not loaded (it would mix
  /// the old list with the new query's tasks).
  @Test func noPageLoadsWhileASearchIsPending() async throws {
    let tasks = FakeTaskService(pageSize: 2)
    let clock = TestClock()
    let tester = try await showingFirstPageOfFive(tasks, clock: clock)
    try await tester.send(.search("task 1")) {
      $0.query = "task 1"
      $0.nextCursor = nil
    }
    tester.send(.loadMore)  // nothing: the search is pending
    try #require(await clock.waitForSleepers(1))
    await clock.advance(by: TaskListViewReactor.searchDelay)
    try await tester.expect { $0.isLoading = true }
    try await tester.expect { $0.tasks = [Self.row(1, "Task 1")] }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()
    #expect(tasks.taskLoads == ["1 cached", "1 cached 'task 1'"])
  }

  /// Reaching the end loads the next page, once however often it is asked while in flight; a
  /// refresh reloads as many tasks as were shown, so the user keeps their place.
  @Test func pagesLoadOnceAtATimeAndARefreshKeepsThePlace() async throws {
    let tasks = FakeTaskService(pageSize: 2)
    let tester = try await showingFirstPageOfFive(tasks)

    tasks.holdTaskLists()
    try await tester.send(.loadMore) { $0.isLoadingMore = true }
    tester.send(.loadMore)  // already loading it: nothing
    await tasks.taskLists.waitForArrival(TaskListRequest(1, after: "4"))
    tasks.taskLists.answer(
      TaskListRequest(1, after: "4"),
      with: TaskPage(
        tasks: [
          TaskItem(id: 3, projectID: 1, title: "Task 3"),
          TaskItem(id: 2, projectID: 1, title: "Task 2"),
        ],
        nextCursor: "2"))
    let four = (2...5).reversed().map { Self.row($0, "Task \($0)") }
    try await tester.expect {
      $0.tasks = four
      $0.nextCursor = "2"
    }
    try await tester.expect { $0.isLoadingMore = false }
    #expect(tasks.taskLoads == ["1 cached", "1 cached after 4"])

    tester.send(.refresh)
    try await tester.expect { $0.isLoading = true }
    await tasks.taskLists.waitForArrival(TaskListRequest(1))
    tasks.taskLists.answer(
      TaskListRequest(1),
      with: TaskPage(
        tasks: [
          TaskItem(id: 6, projectID: 1, title: "Task 6"),
          TaskItem(id: 5, projectID: 1, title: "Task 5"),
        ],
        nextCursor: "5"))
    await tasks.taskLists.waitForArrival(TaskListRequest(1, after: "5"))
    tasks.taskLists.answer(
      TaskListRequest(1, after: "5"),
      with: TaskPage(
        tasks: [
          TaskItem(id: 4, projectID: 1, title: "Task 4"),
          TaskItem(id: 3, projectID: 1, title: "Task 3"),
        ],
        nextCursor: "3"))
    try await tester.expect {
      $0.tasks = (3...6).reversed().map { Self.row($0, "Task \($0)") }
      $0.nextCursor = "3"
    }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()
    #expect(tasks.taskLoads.suffix(2) == ["1 force", "1 force after 5"])
  }

  /// A change made in the app (the detail screen's, through the task service) shows in its row
  /// at once, and so does its undoing; a deleted task goes, and comes back where it was.
  @Test func aChangeMadeInTheAppShowsAtOnceAndSoDoesItsUndoing() async throws {
    let tasks = FakeTaskService()
    let items = (7...9).map { TaskItem(id: $0, projectID: 1, title: "Task \($0)") }
    tasks.setTasks(items)
    let tester = makeTester(tasks)
    tester.send(.selectProject(1))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    tester.isExhaustive = true
    try #require(await eventually { tasks.changes.subscriberCount > 0 })
    let rows = items.reversed().map { Self.row($0.id, $0.title) }
    var done = items[1]
    done.isDone = true
    tasks.changes.send(.updated(done))
    try await tester.expect { $0.tasks[1] = Self.row(8, "Task 8", done: true) }
    tasks.changes.send(.updated(items[1]))
    try await tester.expect { $0.tasks = rows }
    tasks.changes.send(.removed(items[1]))
    try await tester.expect { $0.tasks = [rows[0], rows[2]] }
    tasks.changes.send(.restored(items[1]))
    try await tester.expect { $0.tasks = rows }
    tasks.changes.send(.restored(TaskItem(id: 50, projectID: 2, title: "Another project's")))
    try await tester.expect { _ in }  // not this list's
    try await tester.finish()
  }
}
