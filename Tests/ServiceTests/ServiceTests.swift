import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisNetwork
import TrellisRepository
import TrellisTestSupport

@testable import TrellisService

@Suite("UserService, TaskService, FileService", .capturesLogs, .timeLimit(.minutes(1)))
struct DataServiceTests {
  @Test func theUserIsPublishedLoadedUpdatedAndForgottenOnSignOut() async throws {
    let session = Relay(SessionState.signedOut)
    let repo = FakeUserRepo()
    let service = UserServiceImpl(repo: repo, sessionState: session)
    #expect(service.currentUser.value == nil)
    let user = try await service.loadCurrentUser(forceRefresh: false)
    #expect(service.currentUser.value == user)
    let updated = try await service.updateProfile(displayName: "Alice K.", title: nil, bio: "Hi")
    #expect(updated.displayName == "Alice K." && updated.bio == "Hi")
    #expect(service.currentUser.value == updated)
    await #expect(
      throws: ServiceError(
        .validation, "Display name is required.", fields: ["displayName": "required"])
    ) {
      try await service.updateProfile(displayName: " ", title: nil, bio: nil)
    }
    session.send(.expired(reason: "gone"))
    #expect(service.currentUser.value == nil)
    #expect(repo.clearCount == 1)
  }

  /// A profile loaded (or changed) whose answer arrives after Alice signed out and Bob signed in
  /// is not published for Bob, and the call says the session changed.
  @Test func aUserLoadedAfterTheSessionChangedIsNotPublished() async throws {
    let session = Relay(SessionState.signedIn(.alice))
    let repo = GatedUserRepo()
    let service = UserServiceImpl(repo: repo, sessionState: session)
    repo.gate.close()
    let load = Task { try await service.loadCurrentUser(forceRefresh: true) }
    await repo.gate.waitForArrivals(1)
    session.send(.signedIn(User(.bob)))  // no sign-out between
    #expect(service.currentUser.value?.id == 2)
    #expect(repo.clearCount == 1)
    repo.gate.open()
    await #expect(throws: ServiceError(.cancelled, "The session changed while this was loading.")) {
      try await load.value
    }
    #expect(service.currentUser.value?.id == 2)
  }

  /// Signed in (a restored session), the user shown before any request is the one an earlier
  /// launch kept when it is the same user: it is newer than the session's (a profile changed
  /// since the sign-in); another user's kept one is never shown.
  @Test func theKeptUserIsShownWhenItIsTheSessionsUser() async throws {
    let repo = FakeUserRepo()
    var renamed = UserModel.alice
    renamed.displayName = "Alice K."
    repo.keep(user: Stored(renamed, storedAt: Date(timeIntervalSince1970: 1_700_000_000)))
    let session = Relay(SessionState.signedOut)
    let service = UserServiceImpl(repo: repo, sessionState: session)
    session.send(.signedIn(.alice))
    #expect(service.currentUser.value?.displayName == "Alice K.")

    let other = FakeUserRepo()
    var bob = UserModel.alice
    bob.id = 2
    other.keep(user: Stored(bob, storedAt: Date(timeIntervalSince1970: 1_700_000_000)))
    let fresh = UserServiceImpl(repo: other, sessionState: Relay(.signedIn(.alice)))
    #expect(fresh.currentUser.value == .alice)
  }

  @Test func theProjectContextFetchesAllFourAtOnce() async throws {
    let gate = CallGate(open: false)
    let service = TaskServiceImpl(
      projectRepo: FakeProjectRepo(gate: gate), taskRepo: FakeTaskRepo(),
      sessionState: Relay(.signedOut))
    async let context = service.projectContext(projectID: 2)
    await gate.waitForArrivals(4)  // all four requests are in flight before any answers
    #expect(gate.maximumInFlight == 4)
    gate.open()
    let result = try await context
    #expect(Set(gate.arrivals) == ["milestones 2", "tags 2", "members 2", "permissions 2"])
    #expect(result.milestones == [Milestone(id: 21, name: "M2")])
    #expect(result.tags == [Tag(id: 201, name: "tag2")])
    #expect(result.members.map(\.displayName) == ["Alice Kim"])
    #expect(result.permissions.canCreateTasks)
  }

  /// What the repositories kept from an earlier launch reaches the screens as the service's
  /// types, with its age, without a request: the projects, a project's context, a first page
  /// (the list opens on the project shown last) and a task never seen in this run.
  @Test func whatAnEarlierLaunchKeptIsGivenBackWithItsAge() async throws {
    let gate = CallGate()
    let projects = FakeProjectRepo(gate: gate)
    let taskRepo = FakeTaskRepo()
    let earlier = Date(timeIntervalSince1970: 1_700_000_000)
    let later = earlier.addingTimeInterval(60)
    projects.keep(
      projects: Stored(
        [ProjectModel(id: 2, key: "API", name: "Backend", color: "green")], storedAt: earlier),
      contexts: [
        2: Stored(
          ProjectContextModel(
            milestones: [MilestoneModel(id: 21, name: "M2", dueDate: nil)],
            tags: [TagModel(id: 201, name: "tag2", color: "red")],
            members: [MemberModel(userID: 1, displayName: "Alice Kim", role: "admin")],
            permissions: PermissionsModel(
              role: "viewer", canCreateTasks: false, canAssign: false, canUpload: false)),
          storedAt: earlier)
      ])
    let task = TaskModel(
      id: 9, projectID: 2, title: "Kept", body: "", milestoneID: nil, tagIDs: [],
      assigneeIDs: [], attachments: [], createdBy: 1, createdAt: earlier)
    var row = task
    row.id = 10
    row.title = "Only in the list"
    taskRepo.keep(
      pages: [
        1: Stored(TaskPageModel(tasks: []), storedAt: earlier),
        2: Stored(TaskPageModel(tasks: [task, row], nextCursor: "10"), storedAt: later),
      ],
      tasks: [9: Stored(task, storedAt: earlier)])
    let service = TaskServiceImpl(
      projectRepo: projects, taskRepo: taskRepo, sessionState: Relay(.signedOut))

    #expect(
      service.storedProjects()
        == Stored([Project(id: 2, key: "API", name: "Backend")], storedAt: earlier))
    let context = try #require(service.storedContext(projectID: 2))
    #expect(context.storedAt == earlier)
    #expect(context.value.milestones == [Milestone(id: 21, name: "M2")])
    #expect(context.value.members.map(\.displayName) == ["Alice Kim"])
    #expect(!context.value.permissions.canCreateTasks)
    #expect(service.storedContext(projectID: 1) == nil)
    #expect(
      service.storedTasks(projectID: 2)?.value.tasks.map(\.title) == ["Kept", "Only in the list"])
    #expect(service.storedTasks(projectID: 2)?.value.nextCursor == "10")
    // A task read on its own is kept with its own age; one only seen in a kept list, with the
    // list's.
    #expect(service.storedTask(id: 9)?.storedAt == earlier)
    #expect(service.storedTask(id: 10)?.value.title == "Only in the list")
    #expect(service.storedTask(id: 10)?.storedAt == later)
    #expect(service.storedTask(id: 11) == nil)
    #expect(
      service.lastShownProjectID(among: [
        Project(id: 1, key: "MOB", name: "Mobile App"), Project(id: 2, key: "API", name: "Backend"),
      ]) == 2)
    #expect(service.lastKnownTask(id: 9)?.title == "Kept")
    #expect(service.lastKnownTask(id: 10)?.title == "Only in the list")
    #expect(gate.arrivals.isEmpty)  // no request
  }

  @Test func aFailingPartFailsTheProjectContext() async throws {
    let repo = FakeProjectRepo()
    repo.fail(with: .forbidden("You are not a member of Secret Lab."))
    let service = TaskServiceImpl(
      projectRepo: repo, taskRepo: FakeTaskRepo(), sessionState: Relay(.signedOut))
    await #expect(throws: ServiceError(.forbidden, "You are not a member of Secret Lab.")) {
      try await service.projectContext(projectID: 4)
    }
  }

  /// A task is read by its id, renamed (a blank title refused before any request) and
  /// deleted; a task not among the user's is a `notFound` with the server's reason.
  @Test func aTaskIsReadRenamedAndDeleted() async throws {
    let tasks = FakeTaskRepo()
    let service = TaskServiceImpl(
      projectRepo: FakeProjectRepo(), taskRepo: tasks, sessionState: Relay(.signedOut))
    let created = try await service.createTask(TaskDraft(projectID: 1, title: "Draft"))
    #expect(try await service.task(id: created.id) == created)
    let renamed = try await service.updateTask(created, title: "Final", isDone: nil)
    #expect(renamed.title == "Final")
    await #expect(
      throws: ServiceError(.validation, "Title is required.", fields: ["title": "required"])
    ) {
      try await service.updateTask(created, title: " ", isDone: nil)
    }
    #expect(try await service.task(id: created.id).title == "Final")
    try await service.deleteTask(renamed)
    await #expect(
      throws: ServiceError(.notFound, "There is no task \(created.id) in your projects.")
    ) {
      try await service.task(id: created.id)
    }
  }

  /// A change is announced before the request and again with the server's answer; one the
  /// server refuses or never gets is announced undone (the task as it was, a deleted task
  /// restored) and throws why. A blank title is refused before anything is announced.
  @Test func changesAreAnnouncedAtOnceAndUndoneWhenTheyFail() async throws {
    let tasks = FakeTaskRepo()
    let service = TaskServiceImpl(
      projectRepo: FakeProjectRepo(), taskRepo: tasks, sessionState: Relay(.signedOut))
    let task = try await service.createTask(TaskDraft(projectID: 1, title: "Draft"))
    var changes = service.changes.events.makeAsyncIterator()
    var done = task
    done.isDone = true

    let saved = try await service.updateTask(task, title: nil, isDone: true)
    #expect(saved == done)
    #expect(await changes.next() == .updated(done))  // before the answer
    #expect(await changes.next() == .updated(done))  // as the server saved it

    await #expect(throws: ServiceError.self) {
      try await service.updateTask(done, title: "", isDone: nil)
    }
    tasks.failChanges(with: .forbidden("Viewers cannot change tasks in Design System."))
    await #expect(
      throws: ServiceError(.forbidden, "Viewers cannot change tasks in Design System.")
    ) {
      try await service.updateTask(done, title: "Renamed", isDone: nil)
    }
    var renamed = done
    renamed.title = "Renamed"
    #expect(await changes.next() == .updated(renamed))
    #expect(await changes.next() == .updated(done))  // undone; the blank title sent nothing

    tasks.failChanges(with: .offline("The server cannot be reached."))
    await #expect(throws: ServiceError.self) { try await service.deleteTask(done) }
    #expect(await changes.next() == .removed(done))
    #expect(await changes.next() == .restored(done))
    #expect(try await service.task(id: task.id) == done)

    // No answer, but the server made the change: read again, it is kept, and it is no error.
    tasks.failChanges(with: .offline("The connection to the server was lost."), afterApplying: true)
    let kept = try await service.updateTask(done, title: "Kept", isDone: nil)
    #expect(kept.title == "Kept")
    #expect(await changes.next() == .updated(kept))  // before the request
    #expect(await changes.next() == .updated(kept))  // as read again: no undo
    try await service.deleteTask(kept)
    #expect(await changes.next() == .removed(kept))  // gone after all: no error

    // A change to a task the server no longer has: announced gone, not restored as it was.
    tasks.failChanges(with: .notFound("There is no task \(kept.id) in your projects."))
    var late = kept
    late.title = "Late"
    await #expect(
      throws: ServiceError(.notFound, "There is no task \(kept.id) in your projects.")
    ) {
      try await service.updateTask(kept, title: "Late", isDone: nil)
    }
    #expect(await changes.next() == .updated(late))  // before the request
    #expect(await changes.next() == .removed(kept))
    tasks.failChanges(with: nil)
    await #expect(throws: ServiceError(.notFound, "There is no task \(task.id) in your projects."))
    {
      try await service.task(id: task.id)
    }
  }

  /// The detail screen closed with Esc while saving: the change's own request is cancelled,
  /// but the server may have made it. The service reads the task outside the caller's
  /// cancellation and announces what the server has, not the task as it was.
  @Test func aChangeWhoseCallerWasCancelledAnnouncesWhatTheServerHas() async throws {
    let tasks = FakeTaskRepo()
    let service = TaskServiceImpl(
      projectRepo: FakeProjectRepo(), taskRepo: tasks, sessionState: Relay(.signedOut))
    let task = try await service.createTask(TaskDraft(projectID: 1, title: "Draft"))
    var changes = service.changes.events.makeAsyncIterator()
    tasks.failChanges(with: .cancelled, afterApplying: true)
    let caller = Task { try await service.updateTask(task, title: "Saved anyway", isDone: nil) }
    caller.cancel()
    _ = await caller.result
    var saved = task
    saved.title = "Saved anyway"
    #expect(await changes.next() == .updated(saved))  // before the request
    #expect(await changes.next() == .updated(saved))  // as read again: the server made it
    tasks.failChanges(with: nil)
    #expect(try await service.task(id: task.id) == saved)
  }

  /// What a screen shows of a task it cannot load now: the task as this app last saw it, kept
  /// while the session lasts, gone when it was deleted or the session ended.
  @Test func aTaskSeenInAListIsKnownWithoutARequest() async throws {
    let session = Relay(SessionState.signedIn(.alice))
    let tasks = FakeTaskRepo()
    let service = TaskServiceImpl(
      projectRepo: FakeProjectRepo(), taskRepo: tasks, sessionState: session)
    let task = try await service.createTask(TaskDraft(projectID: 1, title: "Seen"))
    #expect(service.lastKnownTask(id: task.id) == task)  // created here
    let other = try await tasks.createTask(projectID: 1, NewTaskModel(title: "Listed"))
    #expect(service.lastKnownTask(id: other.id) == nil)
    _ = try await service.tasks(projectID: 1, matching: "", after: nil, forceRefresh: false)
    #expect(service.lastKnownTask(id: other.id)?.title == "Listed")
    try await service.deleteTask(task)
    #expect(service.lastKnownTask(id: task.id) == nil)
    session.send(.signedOut)
    #expect(service.lastKnownTask(id: other.id) == nil)
  }

  /// The review's scenario: a change fails with no answer, so the task is read again; the read
  /// answers after Alice signed out and Bob signed in. Nothing of Alice's task is remembered or
  /// announced for Bob: the link to it shows him nothing she saw, whatever the server answers.
  @Test func aReadThatAnswersAfterASignOutIsNotKeptForTheNextUser() async throws {
    let session = Relay(SessionState.signedIn(.alice))
    let tasks = FakeTaskRepo()
    let service = TaskServiceImpl(
      projectRepo: FakeProjectRepo(), taskRepo: tasks, sessionState: session)
    let task = TaskItem(try await tasks.createTask(projectID: 1, NewTaskModel(title: "Alice's")))
    let announced = Mutex<[TaskChange]>([])
    let listening = Task {
      for await change in service.changes.events { announced.withLock { $0.append(change) } }
    }
    defer { listening.cancel() }
    try #require(await eventually { service.changes.subscriberCount == 1 })
    tasks.failChanges(with: .offline("The connection was lost."))
    tasks.readGate.close()
    let change = Task { try await service.updateTask(task, title: "Renamed", isDone: nil) }
    await tasks.readGate.waitForArrivals(1)  // settle's read is out
    session.send(.signedOut)
    session.send(.signedIn(User(.bob)))
    try #require(await eventually { announced.withLock { $0.count } == 1 })  // the optimistic one
    tasks.readGate.open()
    await #expect(throws: ServiceError.self) { try await change.value }
    #expect(service.lastKnownTask(id: task.id) == nil)
    try await Task.sleep(for: .milliseconds(50))
    #expect(announced.withLock { $0.count } == 1)

    // A page that answers after the session changed is not kept either, and says so.
    tasks.readGate.close()
    let page = Task {
      try await service.tasks(projectID: 1, matching: "", after: nil, forceRefresh: true)
    }
    await tasks.readGate.waitForArrivals(2)
    session.send(.signedOut)
    tasks.readGate.open()
    await #expect(throws: ServiceError(.cancelled, "The session changed while this was loading.")) {
      try await page.value
    }
    #expect(service.lastKnownTask(id: task.id) == nil)
  }

  /// Another user signing in with no sign-out between is a sign-out and a sign-in: the
  /// repositories' caches are cleared and the tasks seen are forgotten.
  @Test func anotherUsersSignInClearsWhatTheFirstUserLoaded() async throws {
    let session = Relay(SessionState.signedIn(.alice))
    let projects = FakeProjectRepo()
    let tasks = FakeTaskRepo()
    let service = TaskServiceImpl(projectRepo: projects, taskRepo: tasks, sessionState: session)
    let task = try await service.createTask(TaskDraft(projectID: 1, title: "Alice's"))
    #expect(service.lastKnownTask(id: task.id) != nil)
    session.send(.signedIn(User(.bob)))
    #expect(service.lastKnownTask(id: task.id) == nil)
    #expect(projects.clearCount == 1)
    #expect(tasks.clearCount == 1)
    session.send(.signedIn(User(.bob)))  // the same session (a refresh): nothing more
    #expect(tasks.clearCount == 1)
  }

  /// The user's name changed (the profile): the projects' member lists, which name the user,
  /// are loaded afresh, so a form opened later shows the new name.
  @Test func aChangedDisplayNameClearsTheCachedMembers() {
    let projects = FakeProjectRepo()
    let user = Relay<User?>(.alice)
    let service = TaskServiceImpl(
      projectRepo: projects, taskRepo: FakeTaskRepo(), sessionState: Relay(.signedIn(.alice)),
      currentUser: user)
    user.send(.alice)  // the same name: nothing to forget
    #expect(projects.clearCount == 0)
    var renamed = User.alice
    renamed.displayName = "Alice K."
    user.send(renamed)
    #expect(projects.clearCount == 1)
    _ = service
  }

  @Test func tasksAreCreatedAndListedAndABlankTitleIsRefusedLocally() async throws {
    let tasks = FakeTaskRepo()
    let session = Relay(SessionState.signedIn(User(id: 1, username: "alice", displayName: "Alice")))
    let projects = FakeProjectRepo()
    let service = TaskServiceImpl(projectRepo: projects, taskRepo: tasks, sessionState: session)
    var changes = service.changes.events.makeAsyncIterator()
    let created = try await service.createTask(
      TaskDraft(projectID: 1, title: "Write tests", tagIDs: [101]))
    #expect(created.title == "Write tests" && created.tagIDs == [101])
    // Announced as created, so a list on screen shows it without a word from the form.
    #expect(await changes.next() == .created(created))
    #expect(
      try await service.tasks(projectID: 1, matching: "", after: nil, forceRefresh: false)
        == TaskPage(tasks: [created]))
    await #expect(
      throws: ServiceError(.validation, "Title is required.", fields: ["title": "required"])
    ) {
      try await service.createTask(TaskDraft(projectID: 1, title: "   "))
    }
    // The refused one announced nothing: the next announcement is the next task's.
    let next = try await service.createTask(TaskDraft(projectID: 1, title: "Next"))
    #expect(await changes.next() == .created(next))
    #expect(
      try await service.projects(forceRefresh: false).map(\.name) == ["Mobile App", "Backend"])
    session.send(.signedOut)
    #expect(tasks.clearCount == 1 && projects.clearCount == 1)
  }

  @Test func uploadsReadTheFileAndRefuseWhatCannotBeRead() async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
    let file = directory.url.appendingPathComponent("shot.png")
    try Data(repeating: 1, count: 64).write(to: file)
    let repo = RecordingFileRepo()
    let service = FileServiceImpl(repo: repo, maximumSize: 100)
    let attachment = try await service.upload(fileAt: file, progress: nil)
    #expect(attachment == Attachment(id: 1, name: "shot.png", size: 64, contentType: "image/png"))
    #expect(repo.uploads == ["shot.png image/png 64"])
    await #expect(
      throws: ServiceError(.invalidInput, "Cannot read missing.png: no such file or no permission.")
    ) {
      try await service.upload(
        fileAt: directory.url.appendingPathComponent("missing.png"), progress: nil)
    }
    let big = directory.url.appendingPathComponent("big.bin")
    try Data(repeating: 0, count: 101).write(to: big)
    await #expect(throws: ServiceError.self) {
      try await service.upload(fileAt: big, progress: nil)
    }
    #expect(repo.uploads.count == 1)
  }
}

/// Records uploads and answers with a file model.
final class RecordingFileRepo: FileRepo {
  private let recorded = Recorder()
  var uploads: [String] { recorded.all }

  func upload(
    fileName: String, contentType: String, data: Data, progress: (@Sendable (Double) -> Void)?
  ) async throws(RepositoryError) -> FileModel {
    recorded.append("\(fileName) \(contentType) \(data.count)")
    progress?(1)
    return FileModel(id: 1, name: fileName, size: data.count, contentType: contentType)
  }
}

/// A user repository answering Alice's profile through a gate the test opens.
final class GatedUserRepo: UserRepo {
  let gate = CallGate()
  private let clears = Mutex(0)
  var clearCount: Int { clears.withLock { $0 } }

  func currentUser(forceRefresh: Bool) async throws(RepositoryError) -> UserModel {
    await gate.enter("me")
    gate.leave()
    return .alice
  }

  func updateProfile(_ change: ProfileChangeModel) async throws(RepositoryError) -> UserModel {
    await gate.enter("update")
    gate.leave()
    return .alice
  }

  func clear() { clears.withLock { $0 += 1 } }
}
