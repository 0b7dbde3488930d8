import Foundation
import Testing
import TrellisCore
import TrellisNetwork
import TrellisRepository

/// The repositories keep what they answer in a ``LocalStore`` and give it back at the next
/// launch (a new repository on the same store) without a request; a bad entry costs nothing
/// but the stored copy; a sign-out leaves nothing to give back.
@Suite("Repositories keep their reads across launches")
struct StoredReadsTests {
  /// Projects, a project's context, a first page, a task read and the user: kept as answered,
  /// read back by the next launch's repositories without a request. A search or a next page
  /// is not the list the screen opens on: not kept.
  @Test func whatWasAnsweredIsGivenBackAtTheNextLaunchWithoutARequest() async throws {
    let harness = try Harness(.inProcess)
    try await harness.signIn()
    let store = MemoryLocalStore()
    let projects = ProjectRepoImpl(requester: harness.requester(), store: store)
    let tasks = TaskRepoImpl(requester: harness.requester(), pageSize: 1, store: store)
    let users = UserRepoImpl(requester: harness.requester(), store: store)
    let projectList = try await projects.projects(forceRefresh: false)
    let milestones = try await projects.milestones(projectID: 1, forceRefresh: false)
    let tags = try await projects.tags(projectID: 1, forceRefresh: false)
    let members = try await projects.members(projectID: 1, forceRefresh: false)
    let permissions = try await projects.permissions(projectID: 1, forceRefresh: false)
    let page = try await tasks.tasks(projectID: 1, forceRefresh: false)
    _ = try await tasks.tasks(projectID: 1, matching: "offline", forceRefresh: false)
    _ = try await tasks.tasks(projectID: 1, after: page.nextCursor, forceRefresh: false)
    let task = try await tasks.task(id: 2)
    let user = try await users.currentUser(forceRefresh: false)
    let requests = harness.requests.count

    // The next launch: new repositories over the same store.
    let nextProjects = ProjectRepoImpl(requester: harness.requester(), store: store)
    let nextTasks = TaskRepoImpl(requester: harness.requester(), store: store)
    let nextUsers = UserRepoImpl(requester: harness.requester(), store: store)
    #expect(nextProjects.storedProjects()?.value == projectList)
    let context = try #require(nextProjects.storedContext(projectID: 1)?.value)
    #expect(
      context
        == ProjectContextModel(
          milestones: milestones, tags: tags, members: members, permissions: permissions))
    #expect(nextProjects.storedContext(projectID: 2) == nil)  // never loaded
    #expect(nextTasks.storedTasks(projectID: 1)?.value == page)  // the first page, unsearched
    #expect(nextTasks.storedTask(id: 2)?.value == task)
    #expect(nextUsers.storedUser()?.value == user)
    #expect(harness.requests.count == requests)
    #expect(
      store.keys.sorted() == [
        "members.1", "milestones.1", "permissions.1", "projects", "tags.1", "task.2", "tasks.1",
        "user",
      ])
  }

  /// A deleted task is no longer given back, in full or as a row of the kept list; a changed
  /// one is given back as changed, the list keeping its age; one the server no longer has goes.
  @Test func aDeletedTaskGoesAndAChangedOneIsKeptAsChanged() async throws {
    let harness = try Harness(.inProcess)
    try await harness.signIn()
    let then = Date(timeIntervalSince1970: 1_700_000_000)
    let store = MemoryLocalStore(now: { then })
    let tasks = TaskRepoImpl(requester: harness.requester(), store: store)
    _ = try await tasks.tasks(projectID: 1, forceRefresh: false)
    _ = try await tasks.task(id: 2)
    let kept = try #require(tasks.storedTasks(projectID: 1))
    #expect(kept.value.tasks.contains { $0.id == 2 })

    _ = try await tasks.updateTask(id: 2, TaskChangeModel(title: "Renamed", isDone: nil))
    #expect(tasks.storedTask(id: 2)?.value.title == "Renamed")
    let renamed = try #require(tasks.storedTasks(projectID: 1))
    #expect(renamed.value.tasks.first { $0.id == 2 }?.title == "Renamed")
    #expect(renamed.storedAt == kept.storedAt)

    try await tasks.deleteTask(id: 2, projectID: 1)
    #expect(tasks.storedTask(id: 2) == nil)
    #expect(tasks.storedTasks(projectID: 1)?.value.tasks.contains { $0.id == 2 } == false)

    // Task 1, kept, then deleted by someone else: reading it says so and forgets it.
    _ = try await tasks.task(id: 1)
    let other = TaskRepoImpl(requester: harness.requester())
    try await other.deleteTask(id: 1, projectID: 1)
    await #expect(throws: RepositoryError.self) { try await tasks.task(id: 1) }
    #expect(tasks.storedTask(id: 1) == nil)
    #expect(tasks.storedTasks(projectID: 1)?.value.tasks.contains { $0.id == 1 } == false)
  }

  /// A stored entry that is corrupt (cut short by a crash, or written by another version) is
  /// skipped with a log line and removed: the repository answers from the server, and keeps
  /// the answer again.
  @Test func aCorruptEntryIsSkippedAndTheServerAnswers() async throws {
    let harness = try Harness(.inProcess)
    try await harness.signIn()
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-reads-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let sink = MemoryLogSink()
    let store = FileLocalStore(folder: folder, logger: Logger(category: "LocalStore", sink: sink))
    let projects = ProjectRepoImpl(requester: harness.requester(), store: store)
    let answered = try await projects.projects(forceRefresh: false)
    let entry = try #require(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).first {
        $0.hasSuffix(".entry")
      })
    let whole = try Data(contentsOf: folder.appendingPathComponent(entry))
    try whole.prefix(whole.count / 2).write(to: folder.appendingPathComponent(entry))

    let next = ProjectRepoImpl(requester: harness.requester(), store: store)
    #expect(next.storedProjects() == nil)
    #expect(sink.messages.contains { $0.contains("Skipped the stored projects") })
    #expect(try await next.projects(forceRefresh: false) == answered)
    #expect(next.storedProjects()?.value == answered)
  }

  /// Signed out, the repositories have nothing to give back, and nothing of the user is left
  /// in the folder.
  @Test func aSignOutLeavesNothingToGiveBack() async throws {
    let harness = try Harness(.inProcess)
    try await harness.signIn()
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-reads-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let store = UserLocalStore(root: root)
    store.setUser(1)
    let tasks = TaskRepoImpl(requester: harness.requester(), store: store)
    let users = UserRepoImpl(requester: harness.requester(), store: store)
    _ = try await tasks.tasks(projectID: 1, forceRefresh: false)
    _ = try await users.currentUser(forceRefresh: false)
    #expect(tasks.storedTasks(projectID: 1) != nil)

    store.setUser(nil)
    #expect(tasks.storedTasks(projectID: 1) == nil)
    #expect(users.storedUser() == nil)
    let left = FileManager.default.enumerator(atPath: root.path)?.allObjects ?? []
    #expect(left.isEmpty)
  }
}
