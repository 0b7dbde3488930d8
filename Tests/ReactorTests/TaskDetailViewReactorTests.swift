import Foundation
import TasksFeature
import Testing
import TrellisCore
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
    // What the list showed of it, until it loads.
    try await tester.expect { $0.preview = tasks.storedTask(7) }
    try await tester.expect { $0.isLoading = true }
    await tasks.contexts.waitForArrival(2)
    tasks.contexts.answer(2, with: .sample(2))
    try await tester.expect {
      $0.preview = nil
      $0.task = tasks.storedTask(7)
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

  /// Opened offline, a task never loaded shows what the list knew of it, says the network is
  /// unreachable (not that the session needs renewing), and loads by itself once the connection
  /// is live again.
  @Test func offlineATaskNeverLoadedShowsWhatTheListKnewAndLoadsWhenBack() async throws {
    let tasks = FakeTaskService()
    let connection = FakeConnectionService()
    let known = TaskItem(id: 7, projectID: 2, title: "Rate-limit the login endpoint", isDone: true)
    tasks.setTasks([known])
    tasks.failTaskReads(
      with: ServiceError(
        .offline,
        "The server cannot be reached to renew your session. You are still signed in; try again "
          + "when the connection is back."))
    let tester = ReactorTester(
      TaskDetailViewReactor(
        serviceProvider: TestServices(taskService: tasks, connectionService: connection),
        taskID: 7))
    tester.send(.load)
    try await tester.expect { $0.preview = known }
    try await tester.expect { $0.isLoading = true }
    try await tester.expect {
      $0.failure =
        "You are offline: the server cannot be reached, so the task could not be loaded. It "
        + "loads by itself when the connection is back."
      $0.isOffline = true
    }
    try await tester.expect { $0.isLoading = false }
    // Back: it loads with no action from the user.
    tasks.failTaskReads(with: nil)
    try #require(await eventually { connection.state.subscriberCount > 0 })
    connection.state.send(.online)
    try await tester.expect { $0.isLoading = true }
    await tasks.contexts.waitForArrival(2)
    tasks.contexts.answer(2, with: .sample(2))
    try await tester.expect {
      $0.task = known
      $0.detail = TaskDetailViewReactor.TaskDetail(
        title: "Rate-limit the login endpoint", isDone: true, project: "Backend")
      $0.failure = nil
      $0.isOffline = false
      $0.preview = nil
    }
    try await tester.expect { $0.isLoading = false }
    try await tester.finish()
  }

  // MARK: Changes
  // MARK: Changes

  /// A task kept from an earlier launch shows in full at once, marked with its age, with no
  /// spinner over it; offline it stays, marked, and loads by itself when the connection is
  /// back, the server's replacing it.
  @Test func aKeptTaskShowsAtOnceWithItsAgeAndTheServersReplacesIt() async throws {
    let tasks = FakeTaskService()
    let connection = FakeConnectionService()
    let kept = TaskItem(id: 7, projectID: 2, title: "Rate-limit login", tagIDs: [200])
    let keptAt = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14 22:13 UTC
    tasks.setStored(
      projects: Stored([Project(id: 2, key: "API", name: "Backend")], storedAt: keptAt),
      contexts: [2: Stored(.sample(2), storedAt: keptAt)],
      tasks: [7: Stored(kept, storedAt: keptAt)])
    var live = kept
    live.title = "Rate-limit the login endpoint"
    tasks.setTasks([live])
    let offline = ServiceError(.offline, "The server cannot be reached.")
    tasks.failTaskReads(with: offline)
    let ageText = AgeText(timeZone: TimeZone(identifier: "UTC")!, now: { keptAt })
    let tester = ReactorTester(
      TaskDetailViewReactor(
        serviceProvider: TestServices(taskService: tasks, connectionService: connection),
        taskID: 7, ageText: ageText))
    tester.send(.load)
    try await tester.expect {
      $0.task = kept
      $0.detail = TaskDetailViewReactor.TaskDetail(
        title: "Rate-limit login", project: "Backend", tags: ["tag2"])
      $0.storedAge = "as of 22:13"
    }
    #expect(
      tester.reactor.currentState.storedNotice == "Showing the task as of 22:13 while it loads.")
    try await tester.expect { $0.isLoading = true }
    try await tester.expect {
      $0.failure =
        "You are offline: the server cannot be reached, so the task could not be loaded. It "
        + "loads by itself when the connection is back."
      $0.isOffline = true
    }
    try await tester.expect { $0.isLoading = false }
    #expect(
      tester.reactor.currentState.storedNotice
        == "Offline: showing the task as of 22:13. It reloads when the connection is back.")
    #expect(tester.reactor.currentState.detail?.title == "Rate-limit login")  // still shown

    tasks.failTaskReads(with: nil)
    try #require(await eventually { connection.state.subscriberCount > 0 })
    connection.state.send(.online)
    try await tester.expect { $0.isLoading = true }
    await tasks.contexts.waitForArrival(2)
    tasks.contexts.answer(2, with: .sample(2))
    try await tester.expect {
      $0.task = live
      $0.detail?.title = "Rate-limit the login endpoint"
      $0.failure = nil
      $0.isOffline = false
      $0.storedAge = nil
    }
    try await tester.expect { $0.isLoading = false }
    #expect(tester.reactor.currentState.storedNotice == nil)
    try await tester.finish()
  }

  /// A kept task the server no longer has (deleted elsewhere) is not shown any more: the
  /// screen says it is gone.
  @Test func aKeptTaskTheServerNoLongerHasIsNoLongerShown() async throws {
    let tasks = FakeTaskService()
    let keptAt = Date(timeIntervalSince1970: 1_700_000_000)
    tasks.setStored(
      projects: nil, contexts: [2: Stored(.sample(2), storedAt: keptAt)],
      tasks: [
        7: Stored(TaskItem(id: 7, projectID: 2, title: "Deleted elsewhere"), storedAt: keptAt)
      ])
    tasks.failTaskReads(with: ServiceError(.notFound, "There is no task 7 in your projects."))
    let tester = ReactorTester(
      TaskDetailViewReactor(serviceProvider: TestServices(taskService: tasks), taskID: 7))
    tester.isExhaustive = false
    tester.send(.load)
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    let state = tester.reactor.currentState
    #expect(state.detail == nil && state.task == nil && state.storedAge == nil)
    #expect(state.failure == "There is no task 7 in your projects.")
  }

  /// A title typed before a quit opens with the kept task; cancelled while the task loads, it
  /// stays closed when the server's task arrives.
  @Test func aKeptTitleCancelledWhileTheTaskLoadsStaysClosed() async throws {
    let tasks = FakeTaskService()
    let drafts = FakeDraftService()
    let keptAt = Date(timeIntervalSince1970: 1_700_000_000)
    let kept = TaskItem(id: 7, projectID: 2, title: "Rate-limit login")
    tasks.setTasks([kept])
    tasks.setStored(
      projects: nil, contexts: [2: Stored(.sample(2), storedAt: keptAt)],
      tasks: [7: Stored(kept, storedAt: keptAt)])
    drafts.keep("Rate-limit the login endpoint", for: TaskDetailViewReactor.titleDraftKey(7))
    let tester = ReactorTester(
      TaskDetailViewReactor(
        serviceProvider: TestServices(taskService: tasks, draftService: drafts), taskID: 7))
    tester.isExhaustive = false
    tester.send(.load)
    await tasks.contexts.waitForArrival(2)
    #expect(tester.reactor.currentState.titleDraft == "Rate-limit the login endpoint")
    tester.send(.cancelRename)
    tasks.contexts.answer(2, with: .sample(2))
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    #expect(tester.reactor.currentState.storedAge == nil)  // the server's task is shown
    #expect(tester.reactor.currentState.titleDraft == nil)
    #expect(drafts.keys.isEmpty)
  }

  private static let task = TaskItem(id: 7, projectID: 3, title: "Dark mode palette")

  /// A tester on a loaded task 7 (the service's project context answered).
  private func loadedTester(
    _ tasks: FakeTaskService, drafts: FakeDraftService = FakeDraftService(), arrival: Int = 1
  ) async throws -> ReactorTester<TaskDetailViewReactor> {
    tasks.setTasks([Self.task])
    let tester = ReactorTester(
      TaskDetailViewReactor(
        serviceProvider: TestServices(taskService: tasks, draftService: drafts), taskID: 7))
    tester.send(.load)
    await tasks.contexts.waitForArrival(3, count: arrival)
    tasks.contexts.answer(3, with: .sample(3))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    tester.isExhaustive = true
    return tester
  }

  /// Open on a task made offline: when the outbox sends it, the screen is the server's task
  /// (its id, a title being typed kept under it, no longer pending); a change to it someone
  /// else overtook shows as resolved; another task's removal changes nothing.
  @Test func anOpenTaskFollowsWhatTheOutboxSent() async throws {
    let tasks = FakeTaskService()
    let drafts = FakeDraftService()
    let unsaved = TaskItem(id: -5, projectID: 3, title: "Made offline")
    tasks.setTasks([unsaved])
    tasks.pending.send(PendingChanges(taskIDs: [-5], count: 1))
    let tester = ReactorTester(
      TaskDetailViewReactor(
        serviceProvider: TestServices(taskService: tasks, draftService: drafts), taskID: -5))
    tester.isExhaustive = false
    tester.send(.load)
    await tasks.contexts.waitForArrival(3)
    tasks.contexts.answer(3, with: .sample(3))
    await tester.reactor.waitUntilIdle()
    #expect(tester.reactor.currentState.isPending)
    tester.send(.startRename)
    tester.send(.editTitle("Made offline, renamed"))

    // Sent: the server's task takes its place.
    let saved = TaskItem(id: 9, projectID: 3, title: "Made offline")
    tasks.pending.send(PendingChanges())
    tasks.changes.send(.replaced(temporaryID: -5, saved))
    try #require(await eventually { tester.reactor.currentState.taskID == 9 })
    #expect(tester.reactor.currentState.task == saved)
    #expect(!tester.reactor.currentState.isPending)
    #expect(tester.reactor.currentState.titleDraft == "Made offline, renamed")
    #expect(drafts.draft(String.self, for: TaskDetailViewReactor.titleDraftKey(9)) != nil)
    #expect(drafts.draft(String.self, for: TaskDetailViewReactor.titleDraftKey(-5)) == nil)
    tester.send(.cancelRename)

    // A change made here offline, then sent and resolved against someone else's (their title
    // kept): once no longer pending, the screen shows the task as the service now knows it.
    tasks.pending.send(PendingChanges(taskIDs: [9], count: 1))
    try #require(await eventually { tester.reactor.currentState.isPending })
    var theirs = saved
    theirs.title = "Their title"
    tasks.setTasks([theirs])
    tasks.pending.send(PendingChanges())
    try #require(await eventually { tester.reactor.currentState.detail?.title == "Their title" })
    #expect(tester.reactor.currentState.task == theirs)
    // Another task's removal: nothing here (seen once the next change, a marker on the same
    // stream, has arrived).
    tasks.changes.send(.removed(TaskItem(id: -8, projectID: 3, title: "Another")))
    let marker = TaskItem(id: 90, projectID: 3, title: "Marker")
    tasks.changes.send(.replaced(temporaryID: 9, marker))
    try #require(await eventually { tester.reactor.currentState.taskID == 90 })
    #expect(!tester.reactor.currentState.isDeleted)
    tester.skipOutputs()
  }

  /// Open on a task made offline that the server refused when it finally arrived: the screen
  /// closes (the notice says why); a saved task's removal, which may be a deletion still being
  /// decided, leaves it open.
  @Test func aTaskMadeOfflineAndRefusedClosesItsScreen() async throws {
    let tasks = FakeTaskService()
    let unsaved = TaskItem(id: -5, projectID: 3, title: "Made offline")
    tasks.setTasks([unsaved])
    let tester = ReactorTester(
      TaskDetailViewReactor(serviceProvider: TestServices(taskService: tasks), taskID: -5))
    tester.isExhaustive = false
    var events: [TaskDetailViewReactor.Event] = []
    let watching = tester.reactor.observeEvents { events.append($0) }
    defer { _ = watching }
    tester.send(.load)
    await tasks.contexts.waitForArrival(3)
    tasks.contexts.answer(3, with: .sample(3))
    await tester.reactor.waitUntilIdle()
    tasks.changes.send(.removed(unsaved))
    try #require(await eventually { events == [.deleted] })
    #expect(tester.reactor.currentState.isDeleted)
    tester.skipOutputs()

    let saved = try await loadedTester(tasks, arrival: 2)
    var savedEvents: [TaskDetailViewReactor.Event] = []
    let watchingSaved = saved.reactor.observeEvents { savedEvents.append($0) }
    defer { _ = watchingSaved }
    tasks.changes.send(.removed(Self.task))
    tasks.changes.send(.restored(Self.task))
    // A marker on the same stream: once it arrived, so had the removal.
    let marker = TaskItem(id: 70, projectID: 3, title: "Marker")
    tasks.changes.send(.replaced(temporaryID: Self.task.id, marker))
    try #require(await eventually { saved.reactor.currentState.taskID == 70 })
    #expect(savedEvents.isEmpty && !saved.reactor.currentState.isDeleted)
    saved.skipOutputs()
  }

  /// Marking done shows at once; when the server refuses (a viewer) the task shows as it was,
  /// with the server's reason; when it accepts, as the server saved it.
  @Test func markingDoneShowsAtOnceAndIsUndoneWhenRefused() async throws {
    let tasks = FakeTaskService()
    let tester = try await loadedTester(tasks)
    var done = Self.task
    done.isDone = true
    tasks.holdChanges()
    tester.send(.toggleDone)
    try await tester.expect {
      $0.task = done
      $0.detail?.isDone = true
    }
    try await tester.expect { $0.isSaving = true }
    await tasks.changeAnswers.waitForArrival(7)
    tasks.changeAnswers.answer(
      7, with: ServiceError(.forbidden, "Viewers cannot change tasks in Design System."))
    try await tester.expect {
      $0.task = Self.task
      $0.detail?.isDone = false
    }
    try await tester.expect { $0.isSaving = false }
    try await tester.expectEvents(
      .alert(title: "Not marked done", message: "Viewers cannot change tasks in Design System."))

    tester.send(.toggleDone)
    try await tester.expect {
      $0.task = done
      $0.detail?.isDone = true
    }
    try await tester.expect { $0.isSaving = true }
    await tasks.changeAnswers.waitForArrival(7, count: 2)
    tasks.changeAnswers.answer(7, with: nil)
    try await tester.expect { _ in }  // as saved: the same
    try await tester.expect { $0.isSaving = false }
    try await tester.finish()
    #expect(tasks.storedTask(7)?.isDone == true)
  }

  /// A rename offline is undone and says nothing was lost: the field stays open with the
  /// title typed, to save again; saved, the field closes with a toast.
  @Test func aRenameThatCannotBeSentKeepsWhatWasTyped() async throws {
    let tasks = FakeTaskService()
    let tester = try await loadedTester(tasks)
    try await tester.send(.startRename) { $0.titleDraft = "Dark mode palette" }
    #expect(!tester.reactor.currentState.hasUnsavedTitle)
    try await tester.send(.editTitle("Dark palette")) { $0.titleDraft = "Dark palette" }
    try await tester.expect { _ in }  // the problem cleared (there was none)
    #expect(tester.reactor.currentState.hasUnsavedTitle)
    var renamed = Self.task
    renamed.title = "Dark palette"
    tasks.failChanges(with: ServiceError(.offline, "The server cannot be reached."))
    tester.send(.saveTitle)
    try await tester.expect {
      $0.task = renamed
      $0.detail?.title = "Dark palette"
    }
    try await tester.expect { $0.isSaving = true }
    try await tester.expect {
      $0.task = Self.task
      $0.detail?.title = "Dark mode palette"
    }
    try await tester.expect { $0.isSaving = false }
    let offline = ErrorMessage.offlineAlert("The new title was not saved.", retry: "try again")
    try await tester.expectEvents(.alert(title: offline.title, message: offline.message))
    #expect(tester.reactor.currentState.titleDraft == "Dark palette")  // kept

    tasks.failChanges(with: nil)
    tester.send(.saveTitle)
    try await tester.expect {
      $0.task = renamed
      $0.detail?.title = "Dark palette"
    }
    try await tester.expect { $0.isSaving = true }
    try await tester.expect { _ in }  // as saved
    try await tester.expect { $0.titleDraft = nil }
    try await tester.expectEvents(.toast("Renamed"))
    try await tester.expect { $0.isSaving = false }
    // A blank or too long title is refused before anything is sent.
    tester.send(.startRename)
    try await tester.expect { $0.titleDraft = "Dark palette" }
    try await tester.send(.editTitle("  ")) { $0.titleDraft = "  " }
    try await tester.expect { _ in }
    try await tester.send(.saveTitle) { $0.titleProblem = "Title is required." }
    let long = String(repeating: "x", count: 121)
    try await tester.send(.editTitle(long)) { $0.titleDraft = long }
    try await tester.expect { $0.titleProblem = nil }
    try await tester.send(.saveTitle) {
      $0.titleProblem = "Title is 121 characters long; the most is 120."
    }
    try await tester.finish()
  }

  /// A title being typed is kept as a draft: the task opened again after a quit (a new
  /// reactor) opens its title field as it was left; saved or cancelled, the draft goes.
  @Test func aTitleBeingTypedSurvivesAQuitAndGoesOnceSavedOrCancelled() async throws {
    let tasks = FakeTaskService()
    let drafts = FakeDraftService()
    let key = TaskDetailViewReactor.titleDraftKey(7)
    let first = try await loadedTester(tasks, drafts: drafts)
    first.isExhaustive = false
    first.send(.startRename)
    first.send(.editTitle("Dark palette, then light"))
    #expect(drafts.draft(String.self, for: key) == "Dark palette, then light")
    first.send(.editTitle("Dark mode palette"))  // back to the saved title: nothing to keep
    #expect(drafts.draft(String.self, for: key) == nil)
    first.send(.editTitle("Dark palette"))
    first.skipOutputs()

    // The app quit; the task opens again with the field as it was.
    let second = try await loadedTester(tasks, drafts: drafts, arrival: 2)
    #expect(second.reactor.currentState.titleDraft == "Dark palette")
    #expect(second.reactor.currentState.hasUnsavedTitle)
    second.isExhaustive = false
    second.send(.saveTitle)
    await second.reactor.waitUntilIdle()
    second.skipOutputs()
    #expect(second.reactor.currentState.task?.title == "Dark palette")
    #expect(drafts.keys.isEmpty)
    #expect(drafts.pinnedDiscards == [key])  // the renaming user's drafts, after the save

    // Typed and cancelled: nothing kept.
    second.send(.startRename)
    second.send(.editTitle("Something else"))
    #expect(drafts.keys == [key])
    second.send(.cancelRename)
    #expect(drafts.keys.isEmpty)
    second.skipOutputs()
  }

  /// Deleting asks first; a refused deletion keeps the screen with the reason, an accepted
  /// one closes it with a toast.
  @Test func deletingAsksFirstAndClosesTheScreenOnlyOnceDeleted() async throws {
    let tasks = FakeTaskService()
    let tester = try await loadedTester(tasks)
    tester.send(.confirmDelete)  // nothing asked yet: nothing happens
    try await tester.send(.delete) { $0.isConfirmingDelete = true }
    try await tester.send(.cancelDelete) { $0.isConfirmingDelete = false }
    try await tester.send(.delete) { $0.isConfirmingDelete = true }
    tasks.failChanges(
      with: ServiceError(.forbidden, "Viewers cannot delete tasks in Design System."))
    tester.send(.confirmDelete)
    try await tester.expect { $0.isConfirmingDelete = false }
    try await tester.expect { $0.isSaving = true }
    try await tester.expect { $0.isSaving = false }
    try await tester.expectEvents(
      .alert(title: "Not deleted", message: "Viewers cannot delete tasks in Design System."))
    tasks.failChanges(with: nil)
    try await tester.send(.delete) { $0.isConfirmingDelete = true }
    tester.send(.confirmDelete)
    try await tester.expect { $0.isConfirmingDelete = false }
    try await tester.expect { $0.isSaving = true }
    try await tester.expect {
      $0.isSaving = false
      $0.isDeleted = true
    }
    try await tester.expectEvents(.toast("Deleted \"Dark mode palette\""), .deleted)
    try await tester.finish()
    #expect(tasks.storedTask(7) == nil)
  }
}
