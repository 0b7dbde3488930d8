import Foundation
import Synchronization
import TrellisCore
import TrellisNetwork
import TrellisRepository

/// A ``UserRepo`` holding one user in memory.
public final class FakeUserRepo: UserRepo {
  private let user: Mutex<Result<UserModel, RepositoryError>>
  private let clears = Mutex(0)
  private let kept = Mutex<Stored<UserModel>?>(nil)

  /// Creates the fake.
  public init(user: UserModel = .alice) {
    self.user = Mutex(.success(user))
  }

  /// Gives back `user` as kept by an earlier launch.
  public func keep(user: Stored<UserModel>?) { kept.withLock { $0 = user } }

  /// The protocol requirement, answered from what ``keep(user:)`` kept.
  public func storedUser() -> Stored<UserModel>? { kept.withLock { $0 } }

  /// How many times the cache was cleared.
  public var clearCount: Int { clears.withLock { $0 } }

  /// Makes the next reads fail.
  public func fail(with error: RepositoryError) {
    user.withLock { $0 = .failure(error) }
  }

  /// The protocol requirement, answered from the fake's state.
  public func currentUser(forceRefresh: Bool) async throws(RepositoryError) -> UserModel {
    try user.withLock { $0 }.get()
  }

  /// The protocol requirement, answered from the fake's state.
  public func updateProfile(_ change: ProfileChangeModel) async throws(RepositoryError)
    -> UserModel
  {
    try user.withLock { user throws(RepositoryError) in
      var updated = try user.get()
      if let name = change.displayName { updated.displayName = name }
      if let title = change.title { updated.title = title }
      if let bio = change.bio { updated.bio = bio }
      user = .success(updated)
      return updated
    }
  }

  /// The protocol requirement, answered from the fake's state.
  public func clear() { clears.withLock { $0 += 1 } }
}

/// A ``ProjectRepo`` over fixed data whose calls pass through a ``CallGate``.
public final class FakeProjectRepo: ProjectRepo {
  /// Counts and holds calls.
  public let gate: CallGate
  private let failure = Mutex<RepositoryError?>(nil)
  private let clears = Mutex(0)
  private let kept: Mutex<(Stored<[ProjectModel]>?, [Int: Stored<ProjectContextModel>])> =
    Mutex((nil, [:]))

  /// Creates the fake.
  public init(gate: CallGate = CallGate()) {
    self.gate = gate
  }

  /// Gives back `projects` and `contexts` as kept by an earlier launch.
  public func keep(
    projects: Stored<[ProjectModel]>?, contexts: [Int: Stored<ProjectContextModel>] = [:]
  ) {
    kept.withLock { $0 = (projects, contexts) }
  }

  /// The protocol requirement, answered from what ``keep(projects:contexts:)`` kept.
  public func storedProjects() -> Stored<[ProjectModel]>? { kept.withLock { $0.0 } }

  /// The protocol requirement, answered from what ``keep(projects:contexts:)`` kept.
  public func storedContext(projectID: Int) -> Stored<ProjectContextModel>? {
    kept.withLock { $0.1[projectID] }
  }

  /// Makes every call fail.
  public func fail(with error: RepositoryError?) { failure.withLock { $0 = error } }
  /// How many times the cache was cleared.
  public var clearCount: Int { clears.withLock { $0 } }

  private func call<Value>(_ name: String, _ value: Value) async throws(RepositoryError) -> Value {
    await gate.enter(name)
    defer { gate.leave() }
    if let error = failure.withLock({ $0 }) { throw error }
    return value
  }

  /// The protocol requirement, answered from the fake's state.
  public func projects(forceRefresh: Bool) async throws(RepositoryError) -> [ProjectModel] {
    try await call(
      "projects",
      [
        ProjectModel(id: 1, key: "MOB", name: "Mobile App", color: "blue"),
        ProjectModel(id: 2, key: "API", name: "Backend", color: "green"),
      ])
  }

  /// The protocol requirement, answered from the fake's state.
  public func milestones(projectID: Int, forceRefresh: Bool) async throws(RepositoryError)
    -> [MilestoneModel]
  {
    try await call(
      "milestones \(projectID)",
      [MilestoneModel(id: projectID * 10 + 1, name: "M\(projectID)", dueDate: nil)])
  }

  /// The protocol requirement, answered from the fake's state.
  public func tags(projectID: Int, forceRefresh: Bool) async throws(RepositoryError) -> [TagModel] {
    try await call(
      "tags \(projectID)",
      [TagModel(id: projectID * 100 + 1, name: "tag\(projectID)", color: "red")])
  }

  /// The protocol requirement, answered from the fake's state.
  public func members(projectID: Int, forceRefresh: Bool) async throws(RepositoryError)
    -> [MemberModel]
  {
    try await call(
      "members \(projectID)", [MemberModel(userID: 1, displayName: "Alice Kim", role: "admin")])
  }

  /// The protocol requirement, answered from the fake's state.
  public func permissions(projectID: Int, forceRefresh: Bool) async throws(RepositoryError)
    -> PermissionsModel
  {
    try await call(
      "permissions \(projectID)",
      PermissionsModel(role: "admin", canCreateTasks: true, canAssign: true, canUpload: true))
  }

  /// The protocol requirement, answered from the fake's state.
  public func clear() { clears.withLock { $0 += 1 } }
}

/// A ``TaskRepo`` keeping tasks in memory; its pages are ``pageSize`` tasks long.
public final class FakeTaskRepo: TaskRepo {
  private let tasks = Mutex<[TaskModel]>([])
  private let clears = Mutex(0)
  private let changeFailure = Mutex<(error: RepositoryError, afterApplying: Bool)?>(nil)
  private let kept: Mutex<([Int: Stored<TaskPageModel>], [Int: Stored<TaskModel>])> =
    Mutex(([:], [:]))
  /// How many tasks a page has.
  public let pageSize: Int
  /// Holds `task(id:)` and `tasks(...)` calls while closed (open by default): an answer the
  /// test lets arrive later, after a sign-out, say.
  public let readGate = CallGate()

  /// Creates the fake.
  public init(pageSize: Int = 20) {
    self.pageSize = pageSize
  }

  /// Gives back `pages` (first pages by project) and `tasks` (by id) as kept by an earlier
  /// launch.
  public func keep(pages: [Int: Stored<TaskPageModel>], tasks: [Int: Stored<TaskModel>] = [:]) {
    kept.withLock { $0 = (pages, tasks) }
  }

  /// The protocol requirement, answered from what ``keep(pages:tasks:)`` kept.
  public func storedTasks(projectID: Int) -> Stored<TaskPageModel>? {
    kept.withLock { $0.0[projectID] }
  }

  /// The protocol requirement, answered from what ``keep(pages:tasks:)`` kept.
  public func storedTask(id: Int) -> Stored<TaskModel>? { kept.withLock { $0.1[id] } }

  /// How many times the cache was cleared.
  public var clearCount: Int { clears.withLock { $0 } }

  /// Makes `updateTask` and `deleteTask` fail with `error` (or succeed again, with `nil`); with
  /// `afterApplying`, after making the change, as a server whose answer was lost did.
  public func failChanges(with error: RepositoryError?, afterApplying: Bool = false) {
    changeFailure.withLock { $0 = error.map { ($0, afterApplying) } }
  }

  /// The protocol requirement, answered from the fake's state: newest (highest id) first.
  public func tasks(
    projectID: Int, matching query: String, after cursor: String?, forceRefresh: Bool
  ) async throws(RepositoryError) -> TaskPageModel {
    await readGate.enter("tasks \(projectID)")
    defer { readGate.leave() }
    let (page, next) = FakePaging.page(
      tasks.withLock { $0.filter { $0.projectID == projectID } }, id: \.id, title: \.title,
      matching: query, after: cursor, size: pageSize)
    return TaskPageModel(tasks: page, nextCursor: next)
  }

  /// The protocol requirement, answered from the fake's state.
  public func createTask(projectID: Int, _ task: NewTaskModel) async throws(RepositoryError)
    -> TaskModel
  {
    tasks.withLock { tasks in
      let created = TaskModel(
        id: tasks.count + 1, projectID: projectID, title: task.title, body: task.body,
        milestoneID: task.milestoneID, tagIDs: task.tagIDs, assigneeIDs: task.assigneeIDs,
        attachments: [], createdBy: 1, createdAt: Date(timeIntervalSince1970: 0))
      tasks.append(created)
      return created
    }
  }

  /// The protocol requirement, answered from the fake's state; a cancelled caller gets
  /// `.cancelled`, as from a real requester.
  public func task(id: Int) async throws(RepositoryError) -> TaskModel {
    await readGate.enter("task \(id)")
    defer { readGate.leave() }
    if Task.isCancelled { throw .cancelled }
    guard let task = tasks.withLock({ $0.first { $0.id == id } }) else {
      throw .notFound("There is no task \(id) in your projects.")
    }
    return task
  }

  /// The protocol requirement, answered from the fake's state.
  public func updateTask(id: Int, _ change: TaskChangeModel) async throws(RepositoryError)
    -> TaskModel
  {
    let failure = changeFailure.withLock { $0 }
    if let failure, !failure.afterApplying { throw failure.error }
    let updated = tasks.withLock { tasks -> TaskModel? in
      guard let index = tasks.firstIndex(where: { $0.id == id }) else { return nil }
      if let title = change.title { tasks[index].title = title }
      if let isDone = change.isDone { tasks[index].isDone = isDone }
      return tasks[index]
    }
    guard let updated else { throw .notFound("There is no task \(id) in your projects.") }
    if let failure { throw failure.error }
    return updated
  }

  /// The protocol requirement, answered from the fake's state.
  public func deleteTask(id: Int, projectID: Int) async throws(RepositoryError) {
    let failure = changeFailure.withLock { $0 }
    if let failure, !failure.afterApplying { throw failure.error }
    let removed = tasks.withLock { tasks in
      let before = tasks.count
      tasks.removeAll { $0.id == id }
      return tasks.count < before
    }
    guard removed else { throw .notFound("There is no task \(id) in your projects.") }
    if let failure { throw failure.error }
  }

  /// The protocol requirement, answered from the fake's state.
  public func invalidateTasks(projectID: Int) {}

  /// The protocol requirement, answered from the fake's state.
  public func clear() { clears.withLock { $0 += 1 } }
}

/// An ``EventRepo`` whose events and connection state the test sends.
public final class FakeEventRepo: EventRepo {
  /// The protocol requirement, answered from the fake's state.
  public let connectionState = Relay(EventStreamState.idle)
  /// Each call of `events()`'s stream, by its number (from 1), while it is consumed.
  private let streams = Mutex<[Int: AsyncStream<ServerEventModel>.Continuation]>([:])
  private let connections = Mutex(0)
  private let reconnects = Mutex(0)
  private let forgets = Mutex(0)

  /// Creates the fake.
  public init() {}

  /// How many times `events()` was called.
  public var connectionCount: Int { connections.withLock { $0 } }
  /// How many consumers are connected now.
  public var subscriberCount: Int { streams.withLock { $0.count } }

  /// Delivers `event` to the connected consumers.
  public func send(_ event: ServerEventModel) {
    for stream in streams.withLock({ Array($0.values) }) { stream.yield(event) }
  }

  /// Delivers `event` on the stream of the `connection`th call of `events()` only (as a server
  /// does on one connection), if it is still consumed; returns whether it is.
  @discardableResult
  public func send(_ event: ServerEventModel, onConnection connection: Int) -> Bool {
    guard let stream = streams.withLock({ $0[connection] }) else { return false }
    stream.yield(event)
    return true
  }

  /// The protocol requirement, answered from the fake's state.
  public func events() -> AsyncStream<ServerEventModel> {
    let (stream, continuation) = AsyncStream<ServerEventModel>.makeStream()
    let number = connections.withLock { count in
      count += 1
      return count
    }
    streams.withLock { $0[number] = continuation }
    continuation.onTermination = { [weak self] _ in
      _ = self?.streams.withLock { $0.removeValue(forKey: number) }
    }
    return stream
  }

  /// How many times ``reconnectNow()`` was called.
  public var reconnectRequests: Int { reconnects.withLock { $0 } }

  /// Counts the call.
  public func reconnectNow() {
    reconnects.withLock { $0 += 1 }
  }

  /// How many times ``forgetLastEventID()`` was called.
  public var forgetRequests: Int { forgets.withLock { $0 } }

  /// Counts the call.
  public func forgetLastEventID() {
    forgets.withLock { $0 += 1 }
  }
}
