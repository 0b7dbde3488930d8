import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisRepository
import TrellisTestSupport

@testable import TrellisService

/// A task server in memory, as an outbox meets one: it remembers each write's idempotency key
/// (a write sent again is answered as the first time and not made again), refuses a change made
/// to an older version of a task (`412`), and can be unreachable or lose its answers after
/// making the write.
private final class MemoryTaskServer: TaskRepo {
  /// `upForOneWrite`: up until a write is made, then down.
  enum Network { case up, down, losesAnswers, upForOneWrite }

  struct State {
    var tasks: [Int: TaskModel] = [:]
    var nextID = 100
    var answered: [String: TaskModel?] = [:]
    var network = Network.up
    /// Writes made (a replayed one is not counted).
    var writes: [String] = []
  }

  let state = Mutex(State())
  /// Runs as each write arrives, before it is answered.
  let onWrite = Mutex<(@Sendable () -> Void)?>(nil)

  init(tasks: [TaskModel]) {
    state.withLock { state in
      for task in tasks { state.tasks[task.id] = task }
    }
  }

  static func task(_ id: Int, _ title: String, version: Int = 1) -> TaskModel {
    TaskModel(
      id: id, projectID: 1, title: title, body: "", milestoneID: nil, tagIDs: [], assigneeIDs: [],
      attachments: [], createdBy: 1, createdAt: Date(timeIntervalSince1970: 0), version: version)
  }

  func set(_ network: Network) { state.withLock { $0.network = network } }
  var writes: [String] { state.withLock { $0.writes } }
  func stored(_ id: Int) -> TaskModel? { state.withLock { $0.tasks[id] } }
  var all: [TaskModel] { state.withLock { Array($0.tasks.values) } }

  /// Someone else changes task `id`.
  func changeElsewhere(_ id: Int, _ change: (inout TaskModel) -> Void) {
    state.withLock { state in
      guard var task = state.tasks[id] else { return }
      change(&task)
      task.version = (task.version ?? 1) + 1
      state.tasks[id] = task
    }
  }

  func send(_ write: TaskWrite, idempotencyKey: String) async throws(RepositoryError)
    -> TaskModel?
  {
    onWrite.withLock { $0 }?()
    let result = state.withLock { state -> Result<TaskModel?, RepositoryError> in
      if state.network == .down { return .failure(.offline("The server cannot be reached.")) }
      let answer: Result<TaskModel?, RepositoryError>
      if let replay = state.answered[idempotencyKey] {
        answer = .success(replay)
      } else {
        answer = Self.apply(write, to: &state)
        if case .success(let task) = answer {
          state.answered[idempotencyKey] = task
          state.writes.append("\(write)")
          if state.network == .upForOneWrite { state.network = .down }
        }
      }
      return state.network == .losesAnswers
        ? .failure(.offline("The connection was lost.")) : answer
    }
    return try result.get()
  }

  private static func apply(_ write: TaskWrite, to state: inout State) -> Result<
    TaskModel?, RepositoryError
  > {
    switch write {
    case .create(let projectID, let new, _):
      guard projectID != 3 else {
        return .failure(.forbidden("Viewers cannot create tasks in Design System."))
      }
      var task = Self.task(state.nextID, new.title)
      task.projectID = projectID
      state.nextID += 1
      state.tasks[task.id] = task
      return .success(task)
    case .update(let id, _, let change, _, let version):
      guard var task = state.tasks[id] else {
        return .failure(.notFound("There is no task \(id) in your projects."))
      }
      if let version, version != task.version {
        return .failure(
          .server(status: 412, "Someone else changed this task since you loaded it."))
      }
      if let title = change.title { task.title = title }
      if let isDone = change.isDone { task.isDone = isDone }
      task.version = (task.version ?? 1) + 1
      state.tasks[id] = task
      return .success(task)
    case .delete(let id, _):
      guard state.tasks.removeValue(forKey: id) != nil else {
        return .failure(.notFound("There is no task \(id) in your projects."))
      }
      return .success(nil)
    }
  }

  func tasks(projectID: Int, matching query: String, after cursor: String?, forceRefresh: Bool)
    async throws(RepositoryError) -> TaskPageModel
  {
    let (network, tasks) = state.withLock { ($0.network, $0.tasks.values) }
    if network == .down { throw .offline("The server cannot be reached.") }
    return TaskPageModel(
      tasks: tasks.filter { $0.projectID == projectID }.sorted { $0.id > $1.id })
  }

  func task(id: Int) async throws(RepositoryError) -> TaskModel {
    let (network, task) = state.withLock { ($0.network, $0.tasks[id]) }
    if network == .down { throw .offline("The server cannot be reached.") }
    guard let task else { throw .notFound("There is no task \(id) in your projects.") }
    return task
  }

  func createTask(projectID: Int, _ task: NewTaskModel) async throws(RepositoryError) -> TaskModel {
    try await send(
      .create(projectID: projectID, task, temporaryID: -1), idempotencyKey: "\(UUID())")
      ?? Self.task(0, "")
  }

  func updateTask(id: Int, _ change: TaskChangeModel) async throws(RepositoryError) -> TaskModel {
    try await send(
      .update(id: id, projectID: 1, change, base: change, version: nil),
      idempotencyKey: "\(UUID())") ?? Self.task(0, "")
  }

  func deleteTask(id: Int, projectID: Int) async throws(RepositoryError) {
    _ = try await send(.delete(id: id, projectID: projectID), idempotencyKey: "\(UUID())")
  }

  func invalidateTasks(projectID: Int) {}
  func clear() {}
}

/// A device's store that keeps in ``disk`` what it held after the first change at which
/// `isTheMoment` holds: what an app killed at that moment leaves for its next launch.
private final class StoreKilledAtAMoment: LocalStore {
  /// What the running app reads and writes.
  let live = MemoryLocalStore()
  /// What the next launch reads.
  let disk = MemoryLocalStore()
  private let isTheMoment: @Sendable (MemoryLocalStore) -> Bool
  private let killed = Mutex(false)

  init(killedWhen isTheMoment: @escaping @Sendable (MemoryLocalStore) -> Bool) {
    self.isTheMoment = isTheMoment
  }

  func read(_ key: String) -> StoredValue? { live.read(key) }

  func write(_ key: String, _ data: Data, storedAt: Date?) {
    live.write(key, data, storedAt: storedAt)
    afterChange()
  }

  func remove(_ key: String) {
    live.remove(key)
    afterChange()
  }

  func removeAll() {
    live.removeAll()
    afterChange()
  }

  private func afterChange() {
    killed.withLock { killed in
      guard !killed, isTheMoment(live) else { return }
      killed = true
      for key in live.keys {
        if let value = live.read(key) { disk.write(key, value.data, storedAt: value.storedAt) }
      }
    }
  }
}

@Suite("TaskService with an outbox: nothing done offline is lost", .timeLimit(.minutes(1)))
struct TaskOutboxTests {
  private struct World {
    let server: MemoryTaskServer
    var store: any LocalStore = MemoryLocalStore()
    let session = Relay(SessionState.signedIn(.alice))
    let reachability = Relay(true)
    let notices = NoticeBoard()
    let draftStore = MemoryLocalStore()
    var drafts: DraftServiceImpl { DraftServiceImpl(store: draftStore) }

    /// A service, as a launch of the app makes it over the device's store (`store`, unless
    /// another is given).
    func launch(over store: (any LocalStore)? = nil) -> TaskServiceImpl {
      TaskServiceImpl(
        projectRepo: FakeProjectRepo(), taskRepo: server, sessionState: session,
        outbox: Outbox(store: store ?? self.store, name: "tasks"), reachability: reachability,
        notices: notices, drafts: drafts)
    }
  }

  private func world(
    _ tasks: [TaskModel] = [
      MemoryTaskServer.task(1, "Write the spec"), MemoryTaskServer.task(2, "Fix the build"),
      MemoryTaskServer.task(3, "Old idea"),
    ]
  ) -> World {
    World(server: MemoryTaskServer(tasks: tasks))
  }

  @Test func changesMadeOfflineArePendingSurviveARelaunchAndAreSentOnceInOrder() async throws {
    let world = world()
    // The first launch, gone before the next (one app on the device's store at a time).
    do {
      let service = world.launch()
      let page = try await service.tasks(
        projectID: 1, matching: "", after: nil, forceRefresh: true)
      let (spec, build, idea) = (page.tasks[2], page.tasks[1], page.tasks[0])
      world.server.set(.down)
      world.reachability.send(false)

      // Mark done, rename, create and delete, offline: each shown at once, none refused.
      let done = try await service.updateTask(spec, title: nil, isDone: true)
      #expect(done.isDone)
      let renamed = try await service.updateTask(
        build, title: "Fix the build on Linux", isDone: nil)
      #expect(renamed.title == "Fix the build on Linux")
      let created = try await service.createTask(TaskDraft(projectID: 1, title: "Ship offline"))
      #expect(created.isUnsaved)
      try await service.deleteTask(idea)
      #expect(service.pending.value.count == 4)
      #expect(service.pending.value.taskIDs == [1, 2, 3, created.id])
      #expect(world.server.writes.isEmpty)
    }

    // Quit, and launch again, still offline: the changes are still there, and the list read
    // from the server (back for a moment to read, not to write) shows them on top of its rows.
    let relaunched = world.launch()
    #expect(relaunched.pending.value.count == 4)
    world.server.set(.up)
    let shown = try await relaunched.tasks(
      projectID: 1, matching: "", after: nil, forceRefresh: true)
    #expect(
      shown.tasks.map(\.title) == ["Ship offline", "Fix the build on Linux", "Write the spec"])
    #expect(shown.tasks.last?.isDone == true)

    // The network is back: all four reach the server, in order, once.
    world.reachability.send(true)
    await relaunched.sendPendingChanges()
    #expect(relaunched.pending.value == PendingChanges())
    #expect(world.server.writes.count == 4)
    #expect(world.server.stored(1)?.isDone == true)
    #expect(world.server.stored(2)?.title == "Fix the build on Linux")
    #expect(world.server.stored(3) == nil)
    #expect(world.server.all.filter { $0.title == "Ship offline" }.count == 1)
    // Sending again sends nothing.
    await relaunched.sendPendingChanges()
    #expect(world.server.writes.count == 4)
  }

  /// A change whose answer was lost (the server made it) waits with its key; sent again, the
  /// server answers as the first time and makes it once.
  @Test func aChangeWhoseAnswerWasLostIsMadeOnce() async throws {
    let world = world()
    let service = world.launch()
    let task = try await service.task(id: 2)
    world.server.set(.losesAnswers)
    let created = try await service.createTask(TaskDraft(projectID: 1, title: "Once"))
    #expect(created.isUnsaved)
    _ = try await service.updateTask(task, title: "Renamed once", isDone: nil)
    #expect(service.pending.value.count == 2)
    // The creation was made, its answer lost; the change waits behind it, in order.
    #expect(world.server.writes.count == 1)
    world.server.set(.up)
    await service.sendPendingChanges()
    #expect(service.pending.value.count == 0)
    #expect(world.server.writes.count == 2)  // the creation not made again
    #expect(world.server.all.filter { $0.title == "Once" }.count == 1)
  }

  /// A task created offline and then changed: the server gets the creation, then the change
  /// under the id it gave; the screens see the temporary task replaced by the saved one.
  @Test func aTemporaryIdentityIsReplacedByTheServers() async throws {
    let world = world()
    let service = world.launch()
    var announced: [TaskChange] = []
    let changes = service.changes.events
    world.server.set(.down)
    let created = try await service.createTask(TaskDraft(projectID: 1, title: "Draft"))
    _ = try await service.updateTask(created, title: "Final", isDone: true)
    #expect(try await service.task(id: created.id).title == "Final")
    world.server.set(.up)
    await service.sendPendingChanges()
    let saved = try #require(world.server.all.first { $0.title == "Final" })
    #expect(saved.isDone && saved.id >= 100)
    var iterator = changes.makeAsyncIterator()
    for _ in 0..<4 { if let change = await iterator.next() { announced.append(change) } }
    // Shown at once, changed, replaced by the saved task (the change still waiting applied),
    // then as the server saved the change.
    #expect(announced.first == .created(created))
    if case .replaced(let temporaryID, let task) = announced[2] {
      #expect(temporaryID == created.id && task.id == saved.id && task.title == "Final")
    } else {
      Issue.record("the saved task did not replace the temporary one: \(announced)")
    }
    if case .updated(let task) = announced[3] {
      #expect(task.id == saved.id && task.title == "Final" && task.isDone)
    } else {
      Issue.record("the change was not announced as saved: \(announced)")
    }
    // The temporary id still names it (a screen that shows it), now the saved one.
    #expect(try await service.task(id: created.id).id == saved.id)
  }

  /// The app is killed the moment the creation of a task made offline has left the outbox: the
  /// change made to that task afterwards is on the disk the next launch reads, naming the
  /// server's id (not the temporary one nobody can resolve any more), and reaches the server.
  @Test func aChangeToANewTaskSurvivesAKillAsItsCreationIsSaved() async throws {
    var world = world()
    let device = StoreKilledAtAMoment { live in
      let entries = Outbox<TaskWrite>(store: live, name: "tasks").entries
      return !entries.isEmpty && !entries.contains { TaskServiceImpl.isCreation($0.change) }
    }
    world.store = device
    do {
      let service = world.launch()
      world.server.set(.down)
      let created = try await service.createTask(TaskDraft(projectID: 1, title: "Draft"))
      _ = try await service.updateTask(created, title: "Final", isDone: nil)
      // The creation is answered, then the network goes again (the change waits).
      world.server.set(.upForOneWrite)
      await service.sendPendingChanges()
      #expect(world.server.all.contains { $0.title == "Draft" })
    }
    let relaunched = world.launch(over: device.disk)
    #expect(relaunched.pending.value.count == 1)
    world.server.set(.up)
    await relaunched.sendPendingChanges()
    #expect(
      world.server.all.map(\.title).sorted() == [
        "Final", "Fix the build", "Old idea", "Write the spec",
      ])
    #expect(relaunched.pending.value == PendingChanges())
  }

  /// A task created offline whose creation reached the server (its answer lost) and that was
  /// then deleted: deleted on the server too, not left there.
  @Test func aNewTaskDeletedWhileItsCreationWaitsIsDeletedOnTheServer() async throws {
    let world = world()
    let service = world.launch()
    world.server.set(.losesAnswers)
    let created = try await service.createTask(TaskDraft(projectID: 1, title: "Short-lived"))
    #expect(world.server.all.contains { $0.title == "Short-lived" })  // made, answer lost
    try await service.deleteTask(created)
    world.server.set(.up)
    await service.sendPendingChanges()
    #expect(!world.server.all.contains { $0.title == "Short-lived" })
    #expect(service.pending.value.count == 0)
  }

  @Test func aTaskNeverSavedCannotBeRead() async throws {
    let world = world()
    let service = world.launch()
    await #expect(throws: ServiceError(.notFound, "This task was never saved.")) {
      try await service.task(id: -42)
    }
  }

  /// Someone changed the task meanwhile: what only this user changed is applied (made to the
  /// server's version), what both changed keeps the server's, and the user is told.
  @Test func aConflictKeepsTheServersFieldsAndAppliesTheUsersOthers() async throws {
    let world = world()
    let service = world.launch()
    let task = try await service.task(id: 1)  // version 1
    world.server.set(.down)
    _ = try await service.updateTask(task, title: "Mine", isDone: true)
    world.server.changeElsewhere(1) { $0.title = "Theirs" }  // version 2
    world.server.set(.up)
    await service.sendPendingChanges()
    let stored = try #require(world.server.stored(1))
    #expect(stored.title == "Theirs" && stored.isDone)
    #expect(service.pending.value.count == 0)
    #expect(
      world.notices.unseen.value.map(\.message) == [
        "Someone else changed “Theirs” meanwhile: their title was kept."
      ])
  }

  /// A change the server refuses when it arrives is undone, with why, and a new task's text
  /// is handed back; the other changes still go.
  @Test func aRefusedChangeIsUndoneWithItsReasonAndTheTextIsKept() async throws {
    let world = world()
    let service = world.launch()
    let gone = try await service.task(id: 3)
    let kept = try await service.task(id: 2)
    world.server.set(.down)
    _ = try await service.updateTask(gone, title: "Revived", isDone: nil)
    _ = try await service.createTask(TaskDraft(projectID: 3, title: "Not here", body: "typed"))
    _ = try await service.updateTask(kept, title: nil, isDone: true)
    world.server.changeElsewhere(3) { _ in }
    world.server.state.withLock { _ = $0.tasks.removeValue(forKey: 3) }  // deleted elsewhere
    world.server.set(.up)
    await service.sendPendingChanges()
    #expect(service.pending.value.count == 0)
    #expect(world.server.stored(2)?.isDone == true)
    #expect(
      world.notices.unseen.value.map(\.message) == [
        "Your change to “Old idea” was undone: There is no task 3 in your projects.",
        "“Not here” was not created: Viewers cannot create tasks in Design System."
          + " What you typed is back in New task.",
      ])
    // What the user typed, for the task form (once), kept across a quit (written at once).
    let relaunchedDrafts = DraftServiceImpl(store: world.draftStore)
    #expect(
      relaunchedDrafts.draft([TaskDraft].self, for: TaskServiceImpl.returnedDraftsKey)?.count == 1)
    #expect(
      service.takeReturnedDraft()
        == TaskDraft(projectID: 3, title: "Not here", body: "typed"))
    #expect(service.takeReturnedDraft() == nil)
  }

  /// The server ends the session as it refuses a new task made offline: the data scope sets the
  /// user's drafts aside before this service hears of the session's end, so a draft kept
  /// through the drafts service as it is now would go nowhere while the outbox drops the
  /// creation. The text is kept in the drafts of the user the outbox was sending for, and the
  /// task form opens with it when she signs in again.
  @Test func aRefusedNewTasksTextIsKeptWhenTheSessionEndsAsItIsRefused() async throws {
    let server = MemoryTaskServer(tasks: [])
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-outbox-drafts-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let drafts = UserLocalStore(root: root)
    drafts.setUser(1)
    let session = Relay(SessionState.signedIn(.alice))
    let service = TaskServiceImpl(
      projectRepo: FakeProjectRepo(), taskRepo: server, sessionState: session,
      outbox: Outbox(store: drafts, name: "tasks"), notices: NoticeBoard(),
      drafts: DraftServiceImpl(store: drafts))
    server.set(.down)
    _ = try await service.createTask(TaskDraft(projectID: 3, title: "Not here", body: "typed"))
    #expect(service.pending.value.count == 1)
    server.set(.up)
    server.onWrite.withLock { $0 = { drafts.setAside() } }
    await service.sendPendingChanges()  // refused: "Viewers cannot create tasks"
    session.send(.expired(reason: "Your session has ended. Sign in again."))
    server.onWrite.withLock { $0 = nil }
    drafts.setUser(1)
    session.send(.signedIn(.alice))
    #expect(
      service.takeReturnedDraft() == TaskDraft(projectID: 3, title: "Not here", body: "typed"))
    #expect(server.writes.isEmpty)
  }

  /// One user's waiting changes are never sent in another's session: the outbox lives in the
  /// user's own store, which another user's sign-in does not read; the first user finds them
  /// again when they come back before anyone else signs in (the server ended their session).
  @Test func anotherUsersSessionSendsNothingOfTheFirsts() async throws {
    let server = MemoryTaskServer(tasks: [MemoryTaskServer.task(1, "Write the spec")])
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-outbox-users-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let store = UserLocalStore(root: root)
    store.setUser(1)
    let session = Relay(SessionState.signedIn(.alice))
    let service = TaskServiceImpl(
      projectRepo: FakeProjectRepo(), taskRepo: server, sessionState: session,
      outbox: Outbox(store: store, name: "tasks"))
    let task = try await service.task(id: 1)
    server.set(.down)
    _ = try await service.updateTask(task, title: "Alice's", isDone: nil)
    #expect(service.pending.value.count == 1)
    // The server ends Alice's session: her folder is set aside; Bob signs in.
    store.setAside()
    session.send(.expired(reason: "gone"))
    store.setUser(2)
    session.send(.signedIn(User(.bob)))
    #expect(service.pending.value.count == 0)
    server.set(.up)
    await service.sendPendingChanges()
    #expect(server.writes.isEmpty)
    #expect(server.stored(1)?.title == "Write the spec")
  }
}
