import Foundation
import TasksFeature
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisReactor
import TrellisService
import TrellisTestSupport

@MainActor
@Suite("TaskComposeViewReactor: the seed 000 cases", .timeLimit(.minutes(1)))
struct TaskComposeViewReactorTests {
  private func makeTester(_ tasks: FakeTaskService, _ files: FakeFileService = FakeFileService())
    -> ReactorTester<TaskComposeViewReactor>
  {
    ReactorTester(
      TaskComposeViewReactor(
        serviceProvider: TestServices(taskService: tasks, fileService: files))
    )
  }

  @Test(.startsEffectsWithinSend) func theSecondProjectWinsAndTheFirstNeverLands() async throws {
    let tasks = FakeTaskService()
    let tester = makeTester(tasks)
    tester.send(.selectProject(1))
    tester.send(.selectProject(2))
    try await tester.expect { $0.projectID = 1 }
    try await tester.expect { $0.isLoadingContext = true }
    try await tester.expect { $0.projectID = 2 }
    try await tester.expect { $0.isLoadingContext = true }  // set again by project 2's fetch
    await tasks.contexts.waitForArrival(2)
    #expect(!tasks.contexts.isWaiting(1))  // project 1's fetch was cancelled
    #expect(!tasks.contexts.answer(1, with: .sample(1)))  // nobody left to take its answer
    tasks.contexts.answer(2, with: .sample(2))
    try await tester.expect {
      $0.milestones = [Choice(id: 20, title: "M2")]
      $0.tags = [Choice(id: 200, title: "tag2")]
      $0.members = [Choice(id: 1, title: "Alice Kim", detail: "admin")]
      $0.mayCreate = true
      $0.hasContext = true
    }
    try await tester.expect { $0.isLoadingContext = false }
    try await tester.finish()
    #expect(tester.reactor.currentState.milestones.map(\.title) == ["M2"])
  }

  /// What is typed is kept as a draft: a form opened after a quit (a new reactor) shows it as
  /// it was, its project's context loaded; a save drops it.
  @Test func theFormIsKeptAsADraftAndRestoredThenDroppedOnceSaved() async throws {
    let tasks = FakeTaskService()
    let drafts = FakeDraftService()
    let services = TestServices(taskService: tasks, draftService: drafts)
    let first = ReactorTester(TaskComposeViewReactor(serviceProvider: services))
    first.isExhaustive = false
    first.send(.selectProject(2))
    await tasks.contexts.waitForArrival(2)
    tasks.contexts.answer(2, with: .sample(2))
    await first.reactor.waitUntilIdle()
    first.send(.setTitle("Half a thought"))
    first.send(.toggleTag(200))
    first.send(.setAttachmentPath("~/shot.png"))
    first.skipOutputs()
    let kept = try #require(
      drafts.draft(TaskComposeViewReactor.Draft.self, for: TaskComposeViewReactor.draftKey))
    #expect(kept.title == "Half a thought" && kept.projectID == 2 && kept.tagIDs == [200])
    #expect(kept.attachmentPath == "~/shot.png")

    // The app quit; the form opens again.
    let second = ReactorTester(TaskComposeViewReactor(serviceProvider: services))
    second.isExhaustive = false
    second.send(.load)
    #expect(second.reactor.currentState.title == "Half a thought")
    #expect(second.reactor.currentState.projectID == 2)
    #expect(second.reactor.currentState.tagIDs == [200])
    #expect(second.reactor.currentState.attachmentPath == "~/shot.png")
    await tasks.contexts.waitForArrival(2, count: 2)  // the second form's request
    tasks.contexts.answer(2, with: .sample(2))
    await second.reactor.waitUntilIdle()
    #expect(second.reactor.currentState.tagIDs == [200])  // the context kept the choices
    second.send(.save)
    await second.reactor.waitUntilIdle()
    second.skipOutputs()
    #expect(tasks.createdDrafts.map(\.title) == ["Half a thought"])
    #expect(
      drafts.draft(TaskComposeViewReactor.Draft.self, for: TaskComposeViewReactor.draftKey) == nil)
    // Dropped from the drafts of the user who saved, whatever the session did during the save.
    #expect(drafts.pinnedDiscards == [TaskComposeViewReactor.draftKey])
  }

  /// A new task made offline that the server refused when the network returned: the form
  /// opens with what the user typed (once; a form with its own draft keeps that one), kept as
  /// its draft from then on.
  @Test func aRefusedNewTaskOpensInTheFormAsTyped() async throws {
    let tasks = FakeTaskService()
    let drafts = FakeDraftService()
    let services = TestServices(taskService: tasks, draftService: drafts)
    tasks.returnedDrafts.withLock {
      $0 = [
        TaskDraft(projectID: 2, title: "Refused", tagIDs: [200], attachmentIDs: [31]),
        TaskDraft(projectID: 1, title: "Also refused"),
      ]
    }
    let form = ReactorTester(TaskComposeViewReactor(serviceProvider: services))
    form.isExhaustive = false
    form.send(.load)
    #expect(form.reactor.currentState.title == "Refused")
    #expect(form.reactor.currentState.projectID == 2)
    #expect(form.reactor.currentState.tagIDs == [200])
    #expect(form.reactor.currentState.attachments.map(\.id) == [31])
    let kept = drafts.draft(TaskComposeViewReactor.Draft.self, for: TaskComposeViewReactor.draftKey)
    #expect(kept?.title == "Refused")
    await tasks.contexts.waitForArrival(2)
    tasks.contexts.answer(2, with: .sample(2))
    await form.reactor.waitUntilIdle()
    form.skipOutputs()

    // Opened again with that draft still kept: the draft, and the next refused one waits.
    let again = ReactorTester(TaskComposeViewReactor(serviceProvider: services))
    again.isExhaustive = false
    again.send(.load)
    #expect(again.reactor.currentState.title == "Refused")
    #expect(tasks.returnedDrafts.withLock { $0.map(\.title) } == ["Also refused"])
    await tasks.contexts.waitForArrival(2, count: 2)
    tasks.contexts.answer(2, with: .sample(2))
    await again.reactor.waitUntilIdle()
    again.skipOutputs()
  }

  /// Offline, the form opens on the projects and the project's milestones, tags and members
  /// kept from an earlier launch, with no alert: the user fills it in (and it is kept as a
  /// draft); with no kept context, the failure is said.
  @Test func offlineTheFormWorksFromWhatAnEarlierLaunchKept() async throws {
    let tasks = FakeTaskService()
    let offline = ServiceError(.offline, "The server cannot be reached.")
    let then = Date(timeIntervalSince1970: 1_700_000_000)
    tasks.setStored(
      projects: Stored([Project(id: 2, key: "API", name: "Backend")], storedAt: then),
      contexts: [2: Stored(.sample(2), storedAt: then)])
    tasks.failProjects(with: offline)
    let tester = ReactorTester(
      TaskComposeViewReactor(serviceProvider: TestServices(taskService: tasks), projectID: 2))
    tester.isExhaustive = false
    var events: [TaskComposeViewReactor.Event] = []
    let watching = tester.reactor.observeEvents { events.append($0) }
    defer { _ = watching }
    tester.send(.load)
    await tasks.contexts.waitForArrival(2)
    // Kept choices, before the server answers.
    #expect(tester.reactor.currentState.projects.map(\.title) == ["Backend"])
    #expect(tester.reactor.currentState.milestones.map(\.title) == ["M2"])
    #expect(tester.reactor.currentState.tags.map(\.title) == ["tag2"])
    #expect(tester.reactor.currentState.hasContext)
    tasks.contexts.fail(2, with: offline)
    await tester.reactor.waitUntilIdle()
    #expect(tester.reactor.currentState.milestones.map(\.title) == ["M2"])  // still there
    tester.send(.toggleTag(200))
    #expect(tester.reactor.currentState.tagIDs == [200])
    #expect(events.isEmpty)  // no alert: the kept data is enough
    // A project with nothing kept says it could not be loaded.
    tester.send(.selectProject(1))
    await tasks.contexts.waitForArrival(1)
    tasks.contexts.fail(1, with: offline)
    await tester.reactor.waitUntilIdle()
    #expect(events.count == 1)
    if case .alert(let title, _)? = events.first { #expect(title == "Could not load the project") }
    tester.skipOutputs()
  }

  /// Left without saving (discarded after the window asked): the draft goes; a clean form
  /// keeps none.
  @Test func aDiscardedFormLeavesNoDraft() async throws {
    let drafts = FakeDraftService()
    let tester = ReactorTester(
      TaskComposeViewReactor(serviceProvider: TestServices(draftService: drafts)))
    tester.isExhaustive = false
    tester.send(.setTitle("Something"))
    #expect(
      drafts.draft(TaskComposeViewReactor.Draft.self, for: TaskComposeViewReactor.draftKey) != nil)
    tester.send(.setTitle(""))  // cleared by hand: nothing to keep
    #expect(
      drafts.draft(TaskComposeViewReactor.Draft.self, for: TaskComposeViewReactor.draftKey) == nil)
    tester.send(.setTitle("Again"))
    tester.send(.discardDraft)
    #expect(
      drafts.draft(TaskComposeViewReactor.Draft.self, for: TaskComposeViewReactor.draftKey) == nil)
    tester.skipOutputs()
  }

  /// The user renamed themself in the profile while the form was open: its member list shows
  /// the new name (the project was loaded before the edit).
  @Test func aChangedDisplayNameReachesTheMemberList() async throws {
    let tasks = FakeTaskService()
    let users = FakeUserService()
    let tester = ReactorTester(
      TaskComposeViewReactor(
        serviceProvider: TestServices(userService: users, taskService: tasks)))
    tester.send(.selectProject(2))
    await tasks.contexts.waitForArrival(2)
    tasks.contexts.answer(2, with: .sample(2))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    #expect(tester.reactor.currentState.members.map(\.title) == ["Alice Kim"])
    try #require(await eventually { users.currentUser.subscriberCount > 0 })
    var renamed = User.alice
    renamed.displayName = "Alice K."
    users.currentUser.send(renamed)
    #expect(await eventually { tester.reactor.currentState.members.map(\.title) == ["Alice K."] })
    tester.skipOutputs()
  }

  @Test(.startsEffectsWithinSend) func changingTheProjectClearsWhatBelongedToTheOldOne()
    async throws
  {
    let tasks = FakeTaskService()
    let tester = makeTester(tasks)
    tester.send(.selectProject(1))
    await tasks.contexts.waitForArrival(1)
    tasks.contexts.answer(1, with: .sample(1))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.send(.toggleTag(100))
    tester.send(.selectMilestone(10))
    #expect(tester.reactor.currentState.tagIDs == [100])
    tester.send(.selectProject(2))
    #expect(tester.reactor.currentState.tagIDs.isEmpty)
    #expect(tester.reactor.currentState.milestoneID == nil)
    #expect(!tester.reactor.currentState.hasContext)
    try await tester.finish()
  }

  @Test func anUploadShowsTheIndicatorAppendsTheFileAndHidesTheIndicator() async throws {
    let files = FakeFileService()
    let tester = makeTester(FakeTaskService(), files)
    tester.send(.setAttachmentPath("/tmp/shot.png"))
    tester.send(.attach)
    try await tester.expect { $0.attachmentPath = "/tmp/shot.png" }
    try await tester.expect { $0.isUploading = true }
    await files.uploads.waitForArrival("shot.png")
    files.uploads.answer("shot.png", with: Attachment(id: 5, name: "shot.png", size: 120))
    try await tester.expect {
      $0.attachments = [Choice(id: 5, title: "shot.png", detail: "120 bytes")]
      $0.attachmentPath = ""
    }
    try await tester.expect { $0.isUploading = false }
    // Taken off the draft again (the uploaded file stays on the server).
    tester.send(.removeAttachment(5))
    try await tester.expect { $0.attachments = [] }
    try await tester.expectEvents(.toast("Removed shot.png from the task"))
    tester.send(.removeAttachment(5))  // already gone: nothing
    try await tester.finish()
  }

  @Test func aFailedUploadShowsAnAlertAndStillHidesTheIndicator() async throws {
    let files = FakeFileService()
    let tester = makeTester(FakeTaskService(), files)
    tester.send(.setAttachmentPath("/tmp/big.bin"))
    tester.send(.attach)
    try await tester.expect { $0.attachmentPath = "/tmp/big.bin" }
    try await tester.expect { $0.isUploading = true }
    await files.uploads.waitForArrival("big.bin")
    files.uploads.fail(
      "big.bin", with: ServiceError(.server, "The upload failed on the server. Try again."))
    try await tester.expectEvents(
      .alert(title: "Upload failed", message: "The upload failed on the server. Try again."))
    try await tester.expect { $0.isUploading = false }
    try await tester.finish()
    #expect(tester.reactor.currentState.attachments.isEmpty)
  }

  @Test func aFormOpenedFromAProjectsListStartsInThatProject() async throws {
    let tasks = FakeTaskService()
    let tester = ReactorTester(
      TaskComposeViewReactor(serviceProvider: TestServices(taskService: tasks), projectID: 2))
    tester.send(.load)
    try await tester.expect {
      $0.projects = [
        Choice(id: 1, title: "Mobile App", detail: "MOB"),
        Choice(id: 2, title: "Backend", detail: "API"),
      ]
    }
    try await tester.expectActions(.selectProject(2))
    try await tester.expect { $0.projectID = 2 }
    try await tester.expect { $0.isLoadingContext = true }
    await tasks.contexts.waitForArrival(2)
    tester.isExhaustive = false
    tasks.contexts.answer(2, with: .sample(2))
    await tester.reactor.waitUntilIdle()
  }

  /// A link to a project that is not among the user's (`compose?project=99`) says so, as
  /// `tasks/999` does, and leaves the choice to the user.
  @Test func aFormOpenedForAProjectNotAmongTheUsersSaysSo() async throws {
    let tasks = FakeTaskService()
    let tester = ReactorTester(
      TaskComposeViewReactor(serviceProvider: TestServices(taskService: tasks), projectID: 99))
    tester.send(.load)
    try await tester.expect {
      $0.projects = [
        Choice(id: 1, title: "Mobile App", detail: "MOB"),
        Choice(id: 2, title: "Backend", detail: "API"),
      ]
    }
    try await tester.expectEvents(
      .alert(
        title: "No such project",
        message: "Project 99 is not one of your projects: choose one from the list."))
    try await tester.finish()
    #expect(tester.reactor.currentState.projectID == nil)
  }

  @Test func savingCreatesTheTaskShowsAToastAndCloses() async throws {
    let tasks = FakeTaskService()
    let tester = makeTester(tasks)
    tester.send(.selectProject(1))
    await tasks.contexts.waitForArrival(1)
    tasks.contexts.answer(1, with: .sample(1))
    tester.send(.setTitle("Ship it"))
    tester.send(.toggleTag(100))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    tester.isExhaustive = true
    tester.send(.save)
    try await tester.expect { $0.isSaving = true }
    try await tester.expectEvents(.toast("Task created: Ship it"), .saved)
    try await tester.expect { $0.isSaving = false }
    try await tester.finish()
    #expect(tasks.createdDrafts == [TaskDraft(projectID: 1, title: "Ship it", tagIDs: [100])])
  }

  @Test func aViewerCannotSaveAndAFailedSaveShowsAnAlert() async throws {
    let tasks = FakeTaskService()
    let tester = makeTester(tasks)
    tester.send(.selectProject(2))
    await tasks.contexts.waitForArrival(2)
    tasks.contexts.answer(2, with: .sample(2, canCreate: false))
    tester.send(.setTitle("Not allowed"))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    #expect(!tester.reactor.currentState.canSave)
    tester.send(.save)  // ignored
    #expect(tasks.createdDrafts.isEmpty)

    let second = makeTester(tasks)
    second.send(.selectProject(1))
    await tasks.contexts.waitForArrival(1)
    tasks.contexts.answer(1, with: .sample(1))
    second.send(.setTitle("Fails"))
    await second.reactor.waitUntilIdle()
    second.skipOutputs()
    tasks.failCreation(with: ServiceError(.validation, "Title is required."))
    second.send(.save)
    try await second.expect { $0.isSaving = true }
    try await second.expectEvents(
      .alert(title: "Could not save the task", message: "Title is required."))
    try await second.expect { $0.isSaving = false }
    try await second.finish()
    try await tester.finish()
  }

  /// A refused save names the field and why: over the title's limit it is refused before any
  /// request; a server's refusal names each field it lists, which the state keeps (the view
  /// marks it) until that field is edited.
  @Test func aRefusedSaveNamesTheFieldAndWhy() async throws {
    let tasks = FakeTaskService()
    let tester = makeTester(tasks)
    tester.send(.selectProject(1))
    await tasks.contexts.waitForArrival(1)
    tasks.contexts.answer(1, with: .sample(1))
    let limit = TaskComposeViewReactor.titleLimit.maximumLength
    tester.send(.setTitle(String(repeating: "x", count: limit + 1)))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    tester.isExhaustive = true
    tester.send(.save)
    let problem = "Title is \(limit + 1) characters long; the most is \(limit)."
    try await tester.expect { $0.fieldProblems = ["title": problem] }
    try await tester.expectEvents(.alert(title: "Could not save the task", message: problem))
    #expect(tasks.createdDrafts.isEmpty)

    tester.send(.setTitle("Fine"))
    try await tester.expect {
      $0.title = "Fine"
      $0.fieldProblems = [:]
    }
    tasks.failCreation(
      with: ServiceError(
        .validation, "Check the highlighted fields.",
        fields: ["tagIDs": "not tags of this project", "title": "at most 120 characters"]))
    tester.send(.save)
    try await tester.expect { $0.isSaving = true }
    try await tester.expect {
      $0.fieldProblems = ["tagIDs": "not tags of this project", "title": "at most 120 characters"]
    }
    try await tester.expectEvents(
      .alert(
        title: "Could not save the task",
        message:
          "Check the highlighted fields. Tags: not tags of this project. Title: at most 120 characters."
      ))
    try await tester.expect { $0.isSaving = false }
    tester.send(.toggleTag(100))
    try await tester.expect {
      $0.tagIDs = [100]
      $0.fieldProblems = ["title": "at most 120 characters"]
    }
    try await tester.finish()
  }

  @Test func offlineASaveKeepsEveryFieldAndSucceedsWhenTriedAgain() async throws {
    let tasks = FakeTaskService()
    let tester = makeTester(tasks)
    tester.send(.selectProject(1))
    await tasks.contexts.waitForArrival(1)
    tasks.contexts.answer(1, with: .sample(1))
    tester.send(.setTitle("Written in a tunnel"))
    tester.send(.toggleTag(100))
    tester.send(.selectMilestone(10))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    tester.isExhaustive = true
    let draft = tester.reactor.currentState

    tasks.failCreation(with: ServiceError(.offline, "The server cannot be reached."))
    tester.send(.save)
    try await tester.expect { $0.isSaving = true }
    try await tester.expectEvents(
      .alert(
        title: "You are offline",
        message:
          "The task was not saved. Everything you entered is kept: save again when the connection is back."
      ))
    try await tester.expect { $0.isSaving = false }
    #expect(tester.reactor.currentState == draft)

    tasks.failCreation(with: nil)
    tester.send(.save)
    try await tester.expect { $0.isSaving = true }
    try await tester.expectEvents(.toast("Task created: Written in a tunnel"), .saved)
    try await tester.expect { $0.isSaving = false }
    try await tester.finish()
    #expect(
      tasks.createdDrafts == [
        TaskDraft(projectID: 1, title: "Written in a tunnel", milestoneID: 10, tagIDs: [100])
      ])
  }

  /// A form opened offline never got its project's context (the permission): it can still be
  /// filled in and saved once the connection is back, and the save fetches the context first.
  @Test func aFormWhoseProjectFailedToLoadOfflineSavesOnceBack() async throws {
    let tasks = FakeTaskService()
    let tester = makeTester(tasks)
    tester.send(.selectProject(1))
    try await tester.expect { $0.projectID = 1 }
    try await tester.expect { $0.isLoadingContext = true }
    await tasks.contexts.waitForArrival(1)
    tasks.contexts.fail(1, with: ServiceError(.offline, "The server cannot be reached."))
    try await tester.expectEvents(
      .alert(title: "Could not load the project", message: "The server cannot be reached."))
    try await tester.expect { $0.isLoadingContext = false }
    tester.send(.setTitle("Written in a tunnel"))
    try await tester.expect { $0.title = "Written in a tunnel" }
    #expect(tester.reactor.currentState.canSave)

    tester.send(.save)
    try await tester.expect { $0.isSaving = true }
    await tasks.contexts.waitForArrival(1, count: 2)  // the save's own fetch
    #expect(tasks.contexts.answer(1, with: .sample(1)))
    try await tester.expect {
      $0.milestones = [Choice(id: 10, title: "M1")]
      $0.tags = [Choice(id: 100, title: "tag1")]
      $0.members = [Choice(id: 1, title: "Alice Kim", detail: "admin")]
      $0.mayCreate = true
      $0.hasContext = true
    }
    try await tester.expectEvents(.toast("Task created: Written in a tunnel"), .saved)
    try await tester.expect { $0.isSaving = false }
    try await tester.finish()
    #expect(tasks.createdDrafts == [TaskDraft(projectID: 1, title: "Written in a tunnel")])
  }

  @Test func aSaveThatFetchesTheContextStopsWhenTheUserMayNotCreate() async throws {
    let tasks = FakeTaskService()
    let tester = makeTester(tasks)
    tester.send(.selectProject(2))
    await tasks.contexts.waitForArrival(2)
    tasks.contexts.fail(2, with: ServiceError(.offline, "The server cannot be reached."))
    tester.send(.setTitle("Not allowed"))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    tester.isExhaustive = true
    tester.send(.save)
    try await tester.expect { $0.isSaving = true }
    await tasks.contexts.waitForArrival(2, count: 2)  // the save's own fetch
    #expect(tasks.contexts.answer(2, with: .sample(2, canCreate: false)))
    try await tester.expect {
      $0.milestones = [Choice(id: 20, title: "M2")]
      $0.tags = [Choice(id: 200, title: "tag2")]
      $0.members = [Choice(id: 1, title: "Alice Kim", detail: "admin")]
      $0.hasContext = true
    }
    try await tester.expectEvents(
      .alert(
        title: "Could not save the task", message: "You cannot create tasks in this project."))
    try await tester.expect { $0.isSaving = false }
    try await tester.finish()
    #expect(tasks.createdDrafts.isEmpty)
    #expect(!tester.reactor.currentState.canSave)
    #expect(tester.reactor.currentState.title == "Not allowed")
  }

  @Test func offlineAnUploadKeepsThePathAndTheAttachmentsAlreadyMade() async throws {
    let files = FakeFileService()
    let tester = makeTester(FakeTaskService(), files)
    tester.send(.setAttachmentPath("/tmp/one.png"))
    tester.send(.attach)
    await files.uploads.waitForArrival("one.png")
    files.uploads.answer("one.png", with: Attachment(id: 1, name: "one.png", size: 10))
    tester.isExhaustive = false
    await tester.reactor.waitUntilIdle()
    tester.skipOutputs()
    tester.isExhaustive = true
    tester.send(.setAttachmentPath("/tmp/two.png"))
    try await tester.expect { $0.attachmentPath = "/tmp/two.png" }
    tester.send(.attach)
    try await tester.expect { $0.isUploading = true }
    await files.uploads.waitForArrival("two.png")
    files.uploads.fail("two.png", with: ServiceError(.offline, "The server cannot be reached."))
    try await tester.expectEvents(
      .alert(
        title: "You are offline",
        message:
          "The file was not uploaded. Everything you entered is kept: attach it again when the connection is back."
      ))
    try await tester.expect { $0.isUploading = false }
    try await tester.finish()
    #expect(tester.reactor.currentState.attachmentPath == "/tmp/two.png")
    #expect(tester.reactor.currentState.attachments.map(\.title) == ["one.png"])
  }
}
