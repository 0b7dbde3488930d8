import TrellisCore
import TrellisRepository

/// Projects, the task form's project context, and tasks.
///
/// Changing or deleting a task is optimistic: ``changes`` announces the change at once, so every
/// screen showing the task shows it changed, then announces what the server answered: the change
/// as saved, or undone when it refused (the method then throws why).
///
/// What happens when the server cannot be reached depends on the implementation. One with an
/// outbox (``TaskServiceImpl`` given one, as the app's is) keeps the change and returns it as
/// made, marked in ``pending`` until it is sent (a new task under a temporary id, below zero,
/// which ``TaskChange/replaced(temporaryID:_:)`` swaps for the server's); a refusal that comes
/// later undoes it and posts why on the ``NoticeBoard`` it was given (a new task's text is kept
/// as a draft: ``takeReturnedDraft()``). One without undoes the change and throws; when
/// no answer came (a timeout, a lost connection), the server may have made the change: the task
/// is read again and announced as the server has it.
public protocol TaskService: Sendable {
  /// The user's projects.
  func projects(forceRefresh: Bool) async throws(ServiceError) -> [Project]
  /// A project's milestones, tags, members and the user's permissions, fetched concurrently
  /// and returned together (the task form needs all four when the project changes).
  func projectContext(projectID: Int) async throws(ServiceError) -> ProjectContext
  /// A page of a project's tasks, newest first: the first when `cursor` is `nil`, else the one
  /// after the page whose ``TaskPage/nextCursor`` it is; only the tasks whose titles contain
  /// the words of `query` (empty: all).
  func tasks(projectID: Int, matching query: String, after cursor: String?, forceRefresh: Bool)
    async throws(ServiceError) -> TaskPage
  /// Creates a task, and announces it in ``changes`` (``TaskChange/created(_:)``): once saved,
  /// or (with an outbox, offline) at once, under a temporary id.
  func createTask(_ draft: TaskDraft) async throws(ServiceError) -> TaskItem
  /// The task `id`, in whichever of the user's projects it is (`notFound` if in none).
  func task(id: Int) async throws(ServiceError) -> TaskItem
  /// Changes `task`'s title and done state (`nil`: unchanged); returns the task as the server
  /// now has it (with an outbox, offline: as changed, waiting). Announced in ``changes`` before
  /// the request; if the server refuses, announced again as the server has the task (without an
  /// outbox, also when it cannot be reached: read again when the outcome is unknown, kept, and
  /// no error, when the change was made after all), or as removed when it is gone.
  func updateTask(_ task: TaskItem, title: String?, isDone: Bool?) async throws(ServiceError)
    -> TaskItem
  /// Deletes `task`. Announced in ``changes`` before the request; if the server refuses (or,
  /// without an outbox, cannot be reached), the task is announced restored as the server has it
  /// (no error when it is gone after all).
  func deleteTask(_ task: TaskItem) async throws(ServiceError)
  /// The changes this app makes to tasks, as they are made and as the server answers.
  var changes: Broadcast<TaskChange> { get }
  /// The task `id` as this app last saw it (in a page of a list, read, or changed, in this run
  /// or, when kept, an earlier one), without a request: what a screen shows while the task
  /// itself cannot be loaded (offline). `nil` when it was not seen since sign-in.
  func lastKnownTask(id: Int) -> TaskItem?
  /// The projects as last loaded, kept between launches, with when; `nil` when none are kept.
  func storedProjects() -> Stored<[Project]>?
  /// A project's first page as last loaded, kept between launches, with when; `nil` when none
  /// is kept.
  func storedTasks(projectID: Int) -> Stored<TaskPage>?
  /// A project's milestones, tags, members and permissions as last loaded, kept between
  /// launches, with when; `nil` when not kept.
  func storedContext(projectID: Int) -> Stored<ProjectContext>?
  /// The task `id` as kept between launches (read on its own, or a row of a kept first page),
  /// with when; `nil` when not kept.
  func storedTask(id: Int) -> Stored<TaskItem>?
  /// The changes made here that the server has not confirmed yet (with an outbox: made
  /// offline, or whose answer was lost), for screens to mark "not sent yet" and count.
  var pending: Relay<PendingChanges> { get }
  /// The oldest new task the server refused when it finally arrived (made offline), as the
  /// user typed it, for the task form to open with; taken: it is not returned again. `nil`
  /// when none waits.
  func takeReturnedDraft() -> TaskDraft?
  /// Sends the changes waiting, in order (the network is back); returns when none is left or
  /// the server still cannot be reached.
  func sendPendingChanges() async
}

/// What a service without an outbox has waiting: nothing, ever.
private let nothingPending = Relay(PendingChanges())

extension TaskService {
  /// None: a service that keeps nothing between launches.
  public func storedProjects() -> Stored<[Project]>? { nil }
  /// None: a service that keeps nothing between launches.
  public func storedTasks(projectID: Int) -> Stored<TaskPage>? { nil }
  /// None: a service that keeps nothing between launches.
  public func storedContext(projectID: Int) -> Stored<ProjectContext>? { nil }
  /// None: a service that keeps nothing between launches.
  public func storedTask(id: Int) -> Stored<TaskItem>? { nil }
  /// None: a service that sends each change as it is made.
  public var pending: Relay<PendingChanges> { nothingPending }
  /// None: a service that sends each change as it is made.
  public func takeReturnedDraft() -> TaskDraft? { nil }
  /// Nothing to send: a service that sends each change as it is made.
  public func sendPendingChanges() async {}

  /// The project whose tasks were loaded last (of those whose first page is kept): where the
  /// task list opens after a launch.
  public func lastShownProjectID(among projects: [Project]) -> Int? {
    projects.compactMap { project in
      storedTasks(projectID: project.id).map { (project.id, $0.storedAt) }
    }
    .max { $0.1 < $1.1 }?.0
  }
}

/// The ``TaskService`` over a ``ProjectRepo`` and a ``TaskRepo``.
///
/// What it learns after an `await` (a page, a task read, the server's answer to a change) is
/// remembered and announced only in the session the call began in (``SessionGeneration``): an
/// answer that arrives after a sign-out, or after another user signed in, is dropped, and the
/// call throws ``ServiceError/Kind/cancelled``.
public final class TaskServiceImpl: TaskService {
  private let projectRepo: any ProjectRepo
  let taskRepo: any TaskRepo
  private let observations: [ObservationToken]
  let session: SessionGeneration
  /// The tasks seen in this session, by id (at most ``seenLimit``; the oldest seen go first).
  private let seen = Lock(SeenTasks())
  /// See ``TaskService/changes``.
  public let changes = Broadcast<TaskChange>()
  /// The changes not confirmed yet, when changes go through one; `nil`: each is sent as it is
  /// made, and undone if it fails.
  let outbox: Outbox<TaskWrite>?
  /// The outbox's sends, one at a time.
  private let sends = SerialJobs()
  /// See ``TaskService/pending``.
  public let pending = Relay(PendingChanges())
  /// Where a change undone later is told (`nil`: nowhere).
  private let notices: NoticeBoard?
  /// Where a refused new task's text is kept (`nil`: nowhere).
  let drafts: (any DraftService)?
  /// Keeping and taking returned drafts, one at a time.
  private let returning = Lock(())
  /// What sends the outbox when the network returns or a session begins.
  private let outboxObservations = Lock<[ObservationToken]>([])
  /// The outbox entries whose caller waits for their answer (and is told of a refusal by the
  /// error it throws, not by a notice as well), with what became of each once sent (by
  /// whichever send sent it).
  let awaited = Lock<[String: SendOutcome?]>([:])
  /// The server's id of each task created here since the launch, by its temporary id: a
  /// change made to the temporary task after it was saved (a screen still showing it) goes to
  /// the saved one. Kept in memory only: a send records it before it rewrites what waits in
  /// the outbox, and a change is retargeted as it is kept (``Outbox/append(making:)``), so
  /// nothing on disk names a saved task by its temporary id.
  let savedIDs = Lock(SavedIDs())
  /// Entries renewed (a conflict resolved: a new key) by their first key, whose caller waits
  /// under that first key.
  let renewedEntries = Lock<[String: String]>([:])
  /// What delays the next send after the server asked for later (a 5xx, a 429...): doubled
  /// each time, from 2 s to 60 s; reset by a send that gets answered.
  let retryDelay = Lock<Duration?>(nil)

  /// The most tasks ``lastKnownTask(id:)`` remembers.
  public static let seenLimit = 2000

  /// Creates the service. It clears the repositories' caches, and forgets the tasks it saw,
  /// whenever the session ends or another user's begins; and the projects' member lists
  /// whenever the signed-in user's name changes (`currentUser`: a ``UserService``'s), so no
  /// screen loads the old name again.
  ///
  /// With an `outbox` (the user's: an ``Outbox`` in their durable store), a change is kept
  /// there before it is sent and shown at once, marked pending; one the server cannot be
  /// reached for (or whose answer is lost) waits there, across launches, and is sent again
  /// with the same idempotency key, in order, when `reachability` turns true, when the user's
  /// session begins, and after each new change. Without one, each change is sent as it is made
  /// and undone if that fails. A change undone when the server finally refused it is told on
  /// `notices`; a refused new task's text is kept in `drafts` (``takeReturnedDraft()``).
  public init(
    projectRepo: any ProjectRepo, taskRepo: any TaskRepo, sessionState: Relay<SessionState>,
    currentUser: Relay<User?>? = nil, outbox: Outbox<TaskWrite>? = nil,
    reachability: Relay<Bool>? = nil, notices: NoticeBoard? = nil,
    drafts: (any DraftService)? = nil
  ) {
    self.projectRepo = projectRepo
    self.taskRepo = taskRepo
    self.outbox = outbox
    self.notices = notices
    self.drafts = drafts
    let seen = seen
    let pending = pending
    let savedIDs = savedIDs
    session = SessionGeneration(sessionState: sessionState) { user in
      projectRepo.clear()
      taskRepo.clear()
      seen.withLock { $0 = SeenTasks() }
      savedIDs.withLock { $0 = SavedIDs() }
      // The new session's outbox (another user's is not readable any more).
      if let outbox {
        pending.send(user == nil ? PendingChanges() : Self.pendingChanges(in: outbox))
      }
    }
    var observations: [ObservationToken] = []
    if let currentUser {
      let names = Lock([Int: String]())
      if let user = currentUser.value { names.withLock { $0[user.id] = user.displayName } }
      observations.append(
        currentUser.observe { user in
          guard let user else { return }
          let renamed = names.withLock { names in
            defer { names[user.id] = user.displayName }
            return names[user.id].map { $0 != user.displayName } ?? false
          }
          // The projects' members name the user: loaded afresh next time.
          if renamed { projectRepo.clear() }
        })
    }
    self.observations = observations
    if let outbox {
      if sessionState.value.user != nil { pending.send(Self.pendingChanges(in: outbox)) }
      var tokens: [ObservationToken] = []
      // The network is back, or a session began: what waits is sent.
      if let reachability {
        tokens.append(
          reachability.observe { [weak self] isReachable in
            guard isReachable, let self else { return }
            Task { await self.sendPendingChanges() }
          })
      }
      tokens.append(
        sessionState.observe { [weak self] state in
          guard state.user != nil, let self else { return }
          Task { await self.sendPendingChanges() }
        })
      outboxObservations.withLock { $0 = tokens }
    }
  }

  /// See ``TaskService/sendPendingChanges()``.
  public func sendPendingChanges() async {
    guard let outbox else { return }
    await sends.run { [self] in
      // The session first, then its user's outbox: never one user's outbox in another's.
      let mark = session.mark
      // Its user's drafts too: a refused new task's text goes there, even if the server ends
      // the session meanwhile (the drafts are then set aside for that user before this
      // service hears of it).
      await sendWaiting(outbox.pinned(), drafts: drafts?.pinned(), mark: mark)
    }
  }

  /// Publishes the pending changes, if the session is still the one `mark` names.
  func publishPending(in mark: SessionGeneration.Mark) {
    guard let outbox, session.isCurrent(mark) else { return }
    pending.send(Self.pendingChanges(in: outbox))
  }

  /// Tells the user `message` under `title`, if the session is still the one `mark` names.
  func notify(
    _ message: String, title: String = "A change was not saved", in mark: SessionGeneration.Mark
  ) {
    // With the session's user, in one step with the check: a notice of the user who just
    // left never reaches the next one's board.
    session.ifCurrentUser(mark) { userID in
      notices?.post(Notice(title: title, message: message), forUser: userID)
    }
  }

  /// The key the refused new tasks' drafts are kept under (see ``takeReturnedDraft()``).
  public static let returnedDraftsKey = "draft.tasks.returned"
  /// The most refused new tasks kept as drafts (the oldest go first).
  public static let returnedDraftLimit = 20

  /// Keeps `draft` (a new task the server refused) for the task form in `drafts`, the drafts
  /// of the user the outbox is sending for (pinned with it: whatever the session does
  /// meanwhile, the text goes where the outbox drops the creation, or nowhere if that user's
  /// data is gone); written at once.
  func keepReturned(_ draft: TaskDraft, into drafts: (any DraftService)?) {
    guard let drafts else { return }
    returning.withLock { _ in
      var kept = drafts.draft([TaskDraft].self, for: Self.returnedDraftsKey) ?? []
      kept.append(draft)
      drafts.keep(Array(kept.suffix(Self.returnedDraftLimit)), for: Self.returnedDraftsKey)
      drafts.flush()
    }
  }

  /// See ``TaskService/takeReturnedDraft()``.
  public func takeReturnedDraft() -> TaskDraft? {
    guard let drafts else { return nil }
    return returning.withLock { _ -> TaskDraft? in
      guard var kept = drafts.draft([TaskDraft].self, for: Self.returnedDraftsKey),
        !kept.isEmpty
      else { return nil }
      let draft = kept.removeFirst()
      if kept.isEmpty {
        drafts.discard(Self.returnedDraftsKey)
      } else {
        drafts.keep(kept, for: Self.returnedDraftsKey)
        drafts.flush()
      }
      return draft
    }
  }

  /// Keeps `write` in the outbox, shows it pending, and sends what waits; what became of it
  /// (`nil`: it waits). When the outbox is full, `undo` takes back what was shown, and it
  /// throws.
  private func sendThroughOutbox(
    _ write: TaskWrite, outbox: Outbox<TaskWrite>, mark: SessionGeneration.Mark, undo: TaskChange
  )
    async throws(ServiceError) -> SendOutcome?
  {
    let entry: Outbox<TaskWrite>.Entry
    do {
      // Retargeted under the outbox's lock: a send that saves the task meanwhile either
      // finds this change in the outbox (and rewrites it) or has recorded the saved id.
      entry = try outbox.append { self.retargetedToSaved(write) }
    } catch {
      announce(undo, in: mark)
      throw ServiceError(.invalidInput, error.description)
    }
    publishPending(in: mark)
    awaited.withLock { $0[entry.id] = .some(nil) }
    await sendPendingChanges()
    return awaited.withLock { $0.removeValue(forKey: entry.id) } ?? nil
  }

  /// `id`, or the server's id of the task created here as `id` (temporary) and saved since.
  func currentID(_ id: Int) -> Int {
    id < 0 ? savedIDs.withLock { $0[id] } ?? id : id
  }

  /// `write`, made to the saved task if it names a task created here and saved since.
  func retargetedToSaved(_ write: TaskWrite) -> TaskWrite {
    guard write.taskID < 0, !Self.isCreation(write),
      let saved = savedIDs.withLock({ $0[write.taskID] })
    else { return write }
    return Self.retargeted(write, to: saved)
  }

  /// See ``TaskService/lastKnownTask(id:)``.
  public func lastKnownTask(id: Int) -> TaskItem? {
    seen.withLock { $0.tasks[id] } ?? storedTask(id: id)?.value
  }

  /// See ``TaskService/storedTask(id:)``: the task read on its own, else the row of a kept
  /// first page (of the kept projects: a few pages at most, read only when asked).
  public func storedTask(id: Int) -> Stored<TaskItem>? {
    guard let stored = keptTask(id: id) else { return nil }
    // The changes waiting, on top (none if one deletes it).
    guard let outbox else { return stored }
    let entries = outbox.entries
    guard let task = Self.applyingPending(entries, to: stored.value) else { return nil }
    return Stored(task, storedAt: stored.storedAt)
  }

  /// The task `id` as kept: read on its own, else a row of a kept first page.
  private func keptTask(id: Int) -> Stored<TaskItem>? {
    if let task = taskRepo.storedTask(id: id) { return task.map(TaskItem.init) }
    for project in projectRepo.storedProjects()?.value ?? [] {
      guard let page = taskRepo.storedTasks(projectID: project.id),
        let row = page.value.tasks.first(where: { $0.id == id })
      else { continue }
      return Stored(TaskItem(row), storedAt: page.storedAt)
    }
    return nil
  }

  /// See ``TaskService/storedProjects()``.
  public func storedProjects() -> Stored<[Project]>? {
    projectRepo.storedProjects()?.map { $0.map { Project(id: $0.id, key: $0.key, name: $0.name) } }
  }

  /// See ``TaskService/storedContext(projectID:)``.
  public func storedContext(projectID: Int) -> Stored<ProjectContext>? {
    projectRepo.storedContext(projectID: projectID)?.map {
      ProjectContext(projectID: projectID, model: $0)
    }
  }

  /// See ``TaskService/storedTasks(projectID:)``.
  public func storedTasks(projectID: Int) -> Stored<TaskPage>? {
    guard let stored = taskRepo.storedTasks(projectID: projectID)?.map({ TaskPage($0) }) else {
      return nil
    }
    // The changes waiting, on top of the rows kept (a launch offline shows them too).
    guard let outbox else { return stored }
    let entries = outbox.entries
    return stored.map {
      Self.applyingPending(entries, to: $0, projectID: projectID, isFirst: true)
    }
  }

  /// Sends `change`, remembering the task as it now is (forgetting a removed one), if the
  /// session is still the one `mark` names; returns whether it was.
  @discardableResult
  func announce(_ change: TaskChange, in mark: SessionGeneration.Mark) -> Bool {
    let current = session.ifCurrent(mark) {
      seen.withLock { seen in
        switch change {
        case .created(let task), .updated(let task), .restored(let task):
          seen.insert(task, limit: Self.seenLimit)
        case .removed(let task):
          seen.tasks.removeValue(forKey: task.id)
        case .replaced(let temporaryID, let task):
          seen.tasks.removeValue(forKey: temporaryID)
          seen.insert(task, limit: Self.seenLimit)
        }
      }
    }
    guard current else { return false }
    // Sent after the check: a screen of the next session cannot exist yet (it is built after a
    // sign-in, which the change of session precedes), and the old session's screens are gone.
    changes.send(change)
    return true
  }

  /// Remembers `tasks` as seen now, if the session is still the one `mark` names.
  private func remember(_ tasks: [TaskItem], in mark: SessionGeneration.Mark) -> Bool {
    session.ifCurrent(mark) {
      seen.withLock { seen in
        for task in tasks { seen.insert(task, limit: Self.seenLimit) }
      }
    }
  }

  /// The error of a call whose answer came after its session ended.
  private static let sessionChanged = ServiceError(
    .cancelled, "The session changed while this was loading.")

  /// See ``TaskService/projects(forceRefresh:)``.
  public func projects(forceRefresh: Bool = false) async throws(ServiceError) -> [Project] {
    do {
      return try await projectRepo.projects(forceRefresh: forceRefresh).map {
        Project(id: $0.id, key: $0.key, name: $0.name)
      }
    } catch {
      throw ServiceError(error)
    }
  }

  /// See ``TaskService/projectContext(projectID:)``. The four requests are in flight at once;
  /// the first failure cancels the others.
  public func projectContext(projectID: Int) async throws(ServiceError) -> ProjectContext {
    let projectRepo = projectRepo
    do {
      async let milestones = projectRepo.milestones(projectID: projectID, forceRefresh: false)
      async let tags = projectRepo.tags(projectID: projectID, forceRefresh: false)
      async let members = projectRepo.members(projectID: projectID, forceRefresh: false)
      async let permissions = projectRepo.permissions(projectID: projectID, forceRefresh: false)
      let (milestoneModels, tagModels, memberModels, permissionModel) = try await (
        milestones, tags, members, permissions
      )
      return ProjectContext(
        projectID: projectID,
        model: ProjectContextModel(
          milestones: milestoneModels, tags: tagModels, members: memberModels,
          permissions: permissionModel))
    } catch let error as RepositoryError {
      throw ServiceError(error)
    } catch {
      throw ServiceError(.cancelled, "Cancelled.")
    }
  }

  /// See ``TaskService/tasks(projectID:matching:after:forceRefresh:)``.
  public func tasks(
    projectID: Int, matching query: String = "", after cursor: String? = nil,
    forceRefresh: Bool = false
  ) async throws(ServiceError) -> TaskPage {
    let mark = session.mark
    let page: TaskPage
    do {
      page = TaskPage(
        try await taskRepo.tasks(
          projectID: projectID, matching: query, after: cursor, forceRefresh: forceRefresh))
    } catch {
      throw ServiceError(error)
    }
    guard remember(page.tasks, in: mark) else { throw Self.sessionChanged }
    // The changes waiting, on top of the server's rows.
    guard let outbox else { return page }
    return Self.applyingPending(
      outbox.entries, to: page, projectID: projectID,
      isFirst: cursor == nil && query.trimmingCharacters(in: .whitespaces).isEmpty)
  }

  /// An id for a task created here, below zero (the server's are above), unlike any other.
  static func temporaryID() -> Int {
    -Int.random(in: 1...(Int(Int32.max)))
  }

  /// See ``TaskService/task(id:)``: `GET /tasks/:id`.
  public func task(id: Int) async throws(ServiceError) -> TaskItem {
    let id = currentID(id)
    if id < 0, let outbox {
      // Created here and not saved yet: only the outbox has it.
      let entries = outbox.entries
      guard
        let unsaved = entries.lazy.compactMap({ Self.unsavedTask($0.change) })
          .first(where: { $0.id == id })
      else { throw ServiceError(.notFound, "This task was never saved.") }
      return Self.applyingPending(entries, to: unsaved) ?? unsaved
    }
    let mark = session.mark
    let task: TaskItem
    do {
      task = TaskItem(try await taskRepo.task(id: id))
    } catch {
      throw ServiceError(error)
    }
    guard remember([task], in: mark) else { throw Self.sessionChanged }
    guard let outbox else { return task }
    return Self.applyingPending(outbox.entries, to: task) ?? task
  }

  /// See ``TaskService/updateTask(_:title:isDone:)``. A blank title is refused before any
  /// request or announcement.
  public func updateTask(_ task: TaskItem, title: String? = nil, isDone: Bool? = nil)
    async throws(ServiceError) -> TaskItem
  {
    let title = title?.trimmingCharacters(in: .whitespacesAndNewlines)
    if let title, title.isEmpty {
      throw ServiceError(.validation, "Title is required.", fields: ["title": "required"])
    }
    // A task created offline and saved since is changed under the server's id.
    var task = task
    if outbox != nil { task.id = currentID(task.id) }
    var changed = task
    if let title { changed.title = title }
    if let isDone { changed.isDone = isDone }
    let mark = session.mark
    announce(.updated(changed), in: mark)
    if let outbox {
      let write = TaskWrite.update(
        id: task.id, projectID: task.projectID,
        TaskChangeModel(title: title, isDone: isDone),
        base: TaskChangeModel(
          title: title == nil ? nil : task.title, isDone: isDone == nil ? nil : task.isDone),
        version: task.version)
      switch try await sendThroughOutbox(write, outbox: outbox, mark: mark, undo: .updated(task)) {
      case .sent(let model?)?: return TaskItem(model)
      case .refused(let error)?: throw ServiceError(error)
      case .sent(nil)?, nil: return changed  // waits, shown pending
      }
    }
    let saved: TaskItem
    do {
      saved = TaskItem(
        try await taskRepo.updateTask(id: task.id, TaskChangeModel(title: title, isDone: isDone)))
    } catch {
      switch await settle(task, after: error) {
      case .some(let current)
      where current.title == changed.title && current.isDone == changed.isDone:
        // Made after all (only its answer was lost).
        guard announce(.updated(current), in: mark) else { throw Self.sessionChanged }
        return current
      case .some(let current):
        announce(.updated(current), in: mark)
      case .none:
        announce(.removed(task), in: mark)
      }
      throw ServiceError(error)
    }
    guard announce(.updated(saved), in: mark) else { throw Self.sessionChanged }
    return saved
  }

  /// The task as the server has it after a change failed with `error`: as it was when the
  /// server refused (it answered, and did nothing); read again when the outcome is unknown (no
  /// answer came, or an answer it could not make sense of); as it was when it cannot be read
  /// now. `nil` when the server says it is gone (in its answer, or when read again).
  func settle(_ task: TaskItem, after error: RepositoryError) async -> TaskItem? {
    switch error {
    case .notFound:
      return nil
    case .unauthorized, .forbidden, .validation:
      return task
    case .offline, .server, .invalidResponse, .cancelled:
      // Read outside the caller's cancellation: a screen closed while saving (its effect
      // cancelled) must still learn, and announce, what the server made of the change.
      let (repo, id) = (taskRepo, task.id)
      let read = Task { () async -> Result<TaskModel, RepositoryError> in
        do throws(RepositoryError) {
          return .success(try await repo.task(id: id))
        } catch {
          return .failure(error)
        }
      }
      switch await read.value {
      case .success(let current): return TaskItem(current)
      case .failure(.notFound): return nil
      case .failure: return task
      }
    }
  }

  /// See ``TaskService/deleteTask(_:)``.
  public func deleteTask(_ task: TaskItem) async throws(ServiceError) {
    var task = task
    if outbox != nil { task.id = currentID(task.id) }
    let mark = session.mark
    announce(.removed(task), in: mark)
    if let outbox {
      // (A task created offline is deleted after its creation: that may have reached the
      // server already, its answer lost; the send maps the temporary id to the saved one.)
      let write = TaskWrite.delete(id: currentID(task.id), projectID: task.projectID)
      if case .refused(let error)? = try await sendThroughOutbox(
        write, outbox: outbox, mark: mark, undo: .restored(task))
      {
        throw ServiceError(error)
      }
      return
    }
    do {
      try await taskRepo.deleteTask(id: task.id, projectID: task.projectID)
    } catch {
      // Gone after all (only the answer was lost): deleted.
      guard let current = await settle(task, after: error) else { return }
      announce(.restored(current), in: mark)
      throw ServiceError(error)
    }
  }

  /// See ``TaskService/createTask(_:)``. A blank title is refused before any request.
  public func createTask(_ draft: TaskDraft) async throws(ServiceError) -> TaskItem {
    guard !draft.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
      throw ServiceError(.validation, "Title is required.", fields: ["title": "required"])
    }
    let mark = session.mark
    if let outbox {
      let model = NewTaskModel(
        title: draft.title, body: draft.body, milestoneID: draft.milestoneID,
        tagIDs: draft.tagIDs, assigneeIDs: draft.assigneeIDs, attachmentIDs: draft.attachmentIDs)
      // Shown at once under a temporary id, which the server's replaces when it is saved.
      let write = TaskWrite.create(
        projectID: draft.projectID, model, temporaryID: Self.temporaryID())
      guard let unsaved = Self.unsavedTask(write) else { throw Self.sessionChanged }
      announce(.created(unsaved), in: mark)
      switch try await sendThroughOutbox(
        write, outbox: outbox, mark: mark, undo: .removed(unsaved))
      {
      case .sent(let model?)?: return TaskItem(model)
      case .refused(let error)?: throw ServiceError(error)
      case .sent(nil)?, nil: return unsaved
      }
    }
    let task: TaskItem
    do {
      task = TaskItem(
        try await taskRepo.createTask(
          projectID: draft.projectID,
          NewTaskModel(
            title: draft.title, body: draft.body, milestoneID: draft.milestoneID,
            tagIDs: draft.tagIDs, assigneeIDs: draft.assigneeIDs,
            attachmentIDs: draft.attachmentIDs)))
    } catch {
      throw ServiceError(error)
    }
    guard announce(.created(task), in: mark) else { throw Self.sessionChanged }
    return task
  }
}

/// The server's ids of the tasks created here, by their temporary ids: the newest ``limit``
/// (a screen still showing a temporary task after more were saved shows an old one).
struct SavedIDs {
  /// The most it keeps.
  static let limit = 1_000
  private var ids: [Int: Int] = [:]
  private var order: [Int] = []

  /// The server's id of the task created here as `temporaryID`, if it was saved.
  subscript(temporaryID: Int) -> Int? { ids[temporaryID] }

  /// Records that the task created here as `temporaryID` was saved as `id`.
  mutating func record(_ id: Int, for temporaryID: Int) {
    if ids.updateValue(id, forKey: temporaryID) == nil { order.append(temporaryID) }
    while order.count > Self.limit { ids.removeValue(forKey: order.removeFirst()) }
  }
}

/// The tasks a service saw, bounded: the oldest seen go first.
private struct SeenTasks {
  var tasks: [Int: TaskItem] = [:]
  var order: [Int] = []

  mutating func insert(_ task: TaskItem, limit: Int) {
    if tasks.updateValue(task, forKey: task.id) == nil { order.append(task.id) }
    if order.count > limit * 2 {
      order = order.filter { tasks[$0] != nil }
    }
    while tasks.count > limit, !order.isEmpty {
      tasks.removeValue(forKey: order.removeFirst())
    }
  }
}

extension ProjectContext {
  /// The context of `projectID` as the repository answered it.
  init(projectID: Int, model: ProjectContextModel) {
    self.init(
      projectID: projectID,
      milestones: model.milestones.map { Milestone(id: $0.id, name: $0.name) },
      tags: model.tags.map { Tag(id: $0.id, name: $0.name) },
      members: model.members.map {
        Member(id: $0.userID, displayName: $0.displayName, role: $0.role)
      },
      permissions: ProjectPermissions(
        role: model.permissions.role, canCreateTasks: model.permissions.canCreateTasks,
        canAssign: model.permissions.canAssign, canUpload: model.permissions.canUpload))
  }
}
