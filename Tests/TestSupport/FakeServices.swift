import Foundation
import Synchronization
import TrellisCore
import TrellisNetwork
import TrellisService

/// A ``UserService`` over one user in memory.
public final class FakeUserService: UserService {
  /// The published user.
  public let currentUser = Relay<User?>(nil)
  private let stored: Mutex<Result<User, ServiceError>>
  private let publishes = Mutex(true)

  /// Whether loads and updates publish the user on ``currentUser`` (as the real service does).
  /// Off, a test sees only what the reactor does with the returned user, in a fixed order.
  public var publishesChanges: Bool {
    get { publishes.withLock { $0 } }
    set { publishes.withLock { $0 = newValue } }
  }

  /// Creates the fake.
  public init(user: User = .alice) {
    stored = Mutex(.success(user))
  }

  /// Makes loads and updates fail.
  public func fail(with error: ServiceError) { stored.withLock { $0 = .failure(error) } }

  /// Makes loads and updates succeed again, with `user`.
  public func recover(with user: User = .alice) { stored.withLock { $0 = .success(user) } }

  /// Publishes and returns the user.
  public func loadCurrentUser(forceRefresh: Bool) async throws(ServiceError) -> User {
    let user = try stored.withLock { $0 }.get()
    if publishesChanges { currentUser.send(user) }
    return user
  }

  /// Changes the user in memory and publishes it.
  public func updateProfile(displayName: String?, title: String?, bio: String?)
    async throws(ServiceError) -> User
  {
    var user = try stored.withLock { $0 }.get()
    if let displayName { user.displayName = displayName }
    if let title { user.title = title }
    if let bio { user.bio = bio }
    stored.withLock { $0 = .success(user) }
    if publishesChanges { currentUser.send(user) }
    return user
  }
}

/// One `tasks` call of ``FakeTaskService``: what a test answers through its gate.
public struct TaskListRequest: Hashable, Sendable {
  /// The project.
  public var projectID: Int
  /// The search (trimmed).
  public var query: String
  /// The cursor of the page asked for; `nil` for the first.
  public var cursor: String?

  /// A request for the page after `cursor` of `projectID`'s tasks matching `query`.
  public init(_ projectID: Int, query: String = "", after cursor: String? = nil) {
    self.projectID = projectID
    self.query = query
    self.cursor = cursor
  }
}

/// A ``TaskService`` whose project contexts wait on ``contexts`` (keyed by project id) and whose
/// other answers are in memory. Its changes keep ``TaskService``'s promise: announced before
/// they are made, undone in ``changes`` when they fail.
public final class FakeTaskService: TaskService {
  /// Holds `projectContext` calls until the test answers them.
  public let contexts = KeyedGate<Int, ProjectContext>()
  /// Holds `tasks` calls when ``holdTaskLists()`` was called.
  public let taskLists = KeyedGate<TaskListRequest, TaskPage>()
  /// Holds `updateTask` and `deleteTask` calls (by task id) when ``holdChanges()`` was called:
  /// the test answers with the error they fail with, or `nil` for success.
  public let changeAnswers = KeyedGate<Int, ServiceError?>()
  /// See ``TaskService/changes``.
  public let changes = Broadcast<TaskChange>()
  /// See ``TaskService/pending``: what a test sends.
  public let pending = Relay(PendingChanges())
  /// What ``takeReturnedDraft()`` hands out, oldest first (a test puts them here).
  public let returnedDrafts = Lock<[TaskDraft]>([])
  /// How many tasks a page has.
  public let pageSize: Int
  private struct State {
    var projects: [Project] = [
      Project(id: 1, key: "MOB", name: "Mobile App"), Project(id: 2, key: "API", name: "Backend"),
    ]
    var tasks: [TaskItem] = []
    var created: [TaskDraft] = []
    var createFailure: ServiceError?
    var holdsTaskLists = false
    var holdsChanges = false
    var changeFailure: ServiceError?
    var taskLoads: [String] = []
    var loadFailure: ServiceError?
    var readFailure: ServiceError?
    var storedProjects: Stored<[Project]>?
    var storedPages: [Int: Stored<TaskPage>] = [:]
    var storedContexts: [Int: Stored<ProjectContext>] = [:]
    var storedTasks: [Int: Stored<TaskItem>] = [:]
    var projectsFailure: ServiceError?
  }

  private let state = Mutex(State())

  /// Creates the fake; its pages are `pageSize` tasks long.
  public init(pageSize: Int = 20) {
    self.pageSize = pageSize
  }

  /// The stored task `id`, if there is one.
  public func storedTask(_ id: Int) -> TaskItem? {
    state.withLock { $0.tasks.first { $0.id == id } }
  }

  /// Makes `updateTask` and `deleteTask` wait on ``changeAnswers``.
  public func holdChanges() { state.withLock { $0.holdsChanges = true } }
  /// Makes `updateTask` and `deleteTask` fail (or succeed again, with `nil`).
  public func failChanges(with error: ServiceError?) {
    state.withLock { $0.changeFailure = error }
  }

  /// The drafts passed to `createTask`.
  public var createdDrafts: [TaskDraft] { state.withLock { $0.created } }
  /// Each `tasks` call: `<project> force` or `<project> cached`, then `'<query>'` if searched
  /// and `after <cursor>` for a next page.
  public var taskLoads: [String] { state.withLock { $0.taskLoads } }

  /// Makes `tasks` wait on ``taskLists``.
  public func holdTaskLists() { state.withLock { $0.holdsTaskLists = true } }
  /// Sets the tasks `tasks` returns.
  public func setTasks(_ tasks: [TaskItem]) { state.withLock { $0.tasks = tasks } }
  /// Makes `createTask` fail (or succeed again, with `nil`).
  public func failCreation(with error: ServiceError?) {
    state.withLock { $0.createFailure = error }
  }

  /// Makes `tasks` fail (or succeed again, with `nil`).
  public func failTaskLoads(with error: ServiceError?) {
    state.withLock { $0.loadFailure = error }
  }

  /// Makes `projects` fail (or answer again, with `nil`).
  public func failProjects(with error: ServiceError?) {
    state.withLock { $0.projectsFailure = error }
  }

  /// The two fixed projects (or the failure set).
  public func projects(forceRefresh: Bool) async throws(ServiceError) -> [Project] {
    let (projects, failure) = state.withLock { ($0.projects, $0.projectsFailure) }
    if let failure { throw failure }
    return projects
  }

  /// Waits for the test's answer.
  public func projectContext(projectID: Int) async throws(ServiceError) -> ProjectContext {
    do {
      return try await contexts.wait(projectID)
    } catch let error as ServiceError {
      throw error
    } catch {
      throw ServiceError(.cancelled, "Cancelled.")
    }
  }

  /// A page of the stored tasks of the project (or the test's answer when held).
  public func tasks(
    projectID: Int, matching query: String, after cursor: String?, forceRefresh: Bool
  ) async throws(ServiceError) -> TaskPage {
    let (holds, failure) = state.withLock { state in
      state.taskLoads.append(
        "\(projectID) \(forceRefresh ? "force" : "cached")"
          + (query.isEmpty ? "" : " '\(query)'") + (cursor.map { " after \($0)" } ?? ""))
      return (state.holdsTaskLists, state.loadFailure)
    }
    if let failure { throw failure }
    if holds {
      do {
        return try await taskLists.wait(TaskListRequest(projectID, query: query, after: cursor))
      } catch let error as ServiceError {
        throw error
      } catch {
        throw ServiceError(.cancelled, "Cancelled.")
      }
    }
    let (page, next) = FakePaging.page(
      state.withLock { $0.tasks.filter { $0.projectID == projectID } }, id: \.id, title: \.title,
      matching: query, after: cursor, size: pageSize)
    return TaskPage(tasks: page, nextCursor: next)
  }

  /// The stored task `id`, or `notFound`.
  public func task(id: Int) async throws(ServiceError) -> TaskItem {
    if let failure = state.withLock({ $0.readFailure }) { throw failure }
    guard let task = state.withLock({ $0.tasks.first { $0.id == id } }) else {
      throw ServiceError(.notFound, "There is no task \(id) in your projects.")
    }
    return task
  }

  /// Keeps `projects`, `pages`, `contexts` and `tasks` as a device would have kept them from
  /// an earlier launch.
  public func setStored(
    projects: Stored<[Project]>?, pages: [Int: Stored<TaskPage>] = [:],
    contexts: [Int: Stored<ProjectContext>] = [:], tasks: [Int: Stored<TaskItem>] = [:]
  ) {
    state.withLock { state in
      state.storedProjects = projects
      state.storedPages = pages
      state.storedContexts = contexts
      state.storedTasks = tasks
    }
  }

  /// The protocol requirement, answered from what
  /// ``setStored(projects:pages:contexts:tasks:)`` kept.
  public func storedTask(id: Int) -> Stored<TaskItem>? {
    state.withLock { $0.storedTasks[id] }
  }

  /// The protocol requirement, answered from what ``setStored(projects:pages:contexts:tasks:)``
  /// kept.
  public func storedContext(projectID: Int) -> Stored<ProjectContext>? {
    state.withLock { $0.storedContexts[projectID] }
  }

  /// The protocol requirement, answered from what ``setStored(projects:pages:contexts:tasks:)`` kept.
  public func storedProjects() -> Stored<[Project]>? { state.withLock { $0.storedProjects } }

  /// The protocol requirement, answered from what ``setStored(projects:pages:contexts:tasks:)`` kept.
  public func storedTasks(projectID: Int) -> Stored<TaskPage>? {
    state.withLock { $0.storedPages[projectID] }
  }

  /// Makes `task(id:)` fail with `error` (or answer again, with `nil`).
  public func failTaskReads(with error: ServiceError?) {
    state.withLock { $0.readFailure = error }
  }

  /// See ``TaskService/takeReturnedDraft()``: the first of ``returnedDrafts``.
  public func takeReturnedDraft() -> TaskDraft? {
    returnedDrafts.withLock { $0.isEmpty ? nil : $0.removeFirst() }
  }

  /// The protocol requirement: the stored task, as if seen in a list.
  public func lastKnownTask(id: Int) -> TaskItem? {
    state.withLock { $0.tasks.first { $0.id == id } }
  }

  /// Announces the change, then changes the stored task, or fails (as ``failChanges(with:)``
  /// set or the held answer says) and announces the task as it was.
  public func updateTask(_ task: TaskItem, title: String?, isDone: Bool?)
    async throws(ServiceError) -> TaskItem
  {
    var changed = task
    if let title { changed.title = title }
    if let isDone { changed.isDone = isDone }
    changes.send(.updated(changed))
    do {
      try await answerChange(of: task.id)
    } catch {
      changes.send(.updated(task))
      throw error
    }
    state.withLock { state in
      if let index = state.tasks.firstIndex(where: { $0.id == task.id }) {
        state.tasks[index] = changed
      }
    }
    changes.send(.updated(changed))
    return changed
  }

  /// Announces the removal, then removes the stored task, or fails (as
  /// ``failChanges(with:)`` set or the held answer says) and announces it restored.
  public func deleteTask(_ task: TaskItem) async throws(ServiceError) {
    changes.send(.removed(task))
    do {
      try await answerChange(of: task.id)
    } catch {
      changes.send(.restored(task))
      throw error
    }
    state.withLock { $0.tasks.removeAll { $0.id == task.id } }
  }

  /// Throws the failure set, or the test's answer when held.
  private func answerChange(of taskID: Int) async throws(ServiceError) {
    let (holds, failure) = state.withLock { ($0.holdsChanges, $0.changeFailure) }
    if let failure { throw failure }
    guard holds else { return }
    let answer: ServiceError?
    do {
      answer = try await changeAnswers.wait(taskID)
    } catch {
      throw ServiceError(.cancelled, "Cancelled.")
    }
    if let answer { throw answer }
  }

  /// Records the draft and returns a task made from it.
  public func createTask(_ draft: TaskDraft) async throws(ServiceError) -> TaskItem {
    let task = try state.withLock { state throws(ServiceError) in
      if let failure = state.createFailure { throw failure }
      state.created.append(draft)
      let task = TaskItem(
        id: 100 + state.created.count, projectID: draft.projectID, title: draft.title)
      state.tasks.append(task)
      return task
    }
    changes.send(.created(task))
    return task
  }
}

/// A ``FileService`` whose uploads wait on ``uploads`` (keyed by file name).
public final class FakeFileService: FileService {
  /// Holds uploads until the test answers them.
  public let uploads = KeyedGate<String, Attachment>()

  /// Creates the fake.
  public init() {}

  /// Waits for the test's answer.
  public func upload(fileAt url: URL, progress: (@Sendable (Double) -> Void)?)
    async throws(ServiceError) -> Attachment
  {
    do {
      return try await uploads.wait(url.lastPathComponent)
    } catch let error as ServiceError {
      throw error
    } catch {
      throw ServiceError(.cancelled, "Cancelled.")
    }
  }
}

/// A ``ConnectionService`` whose state and events the test sends.
public final class FakeConnectionService: ConnectionService {
  /// The connection state.
  public let state = Relay(ConnectionState.offline)
  /// The server events.
  public let events = Broadcast<ServerEvent>()
  private let reconnects = Mutex(0)

  /// Creates the fake.
  public init() {}

  /// How many times ``reconnectNow()`` was called.
  public var reconnectRequests: Int { reconnects.withLock { $0 } }

  /// Counts the call.
  public func reconnectNow() {
    reconnects.withLock { $0 += 1 }
  }
}

extension ProjectContext {
  /// A context for `projectID` with one milestone, tag and member named after it.
  public static func sample(_ projectID: Int, canCreate: Bool = true) -> ProjectContext {
    ProjectContext(
      projectID: projectID, milestones: [Milestone(id: projectID * 10, name: "M\(projectID)")],
      tags: [Tag(id: projectID * 100, name: "tag\(projectID)")],
      members: [Member(id: 1, displayName: "Alice Kim", role: "admin")],
      permissions: ProjectPermissions(
        role: canCreate ? "admin" : "viewer", canCreateTasks: canCreate, canAssign: canCreate,
        canUpload: canCreate))
  }
}
