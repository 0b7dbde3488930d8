import Foundation
import TrellisCore
import TrellisRepository

/// The changes to tasks this device has made that the server has not confirmed yet, as
/// screens show them: each such task marked "not sent yet", and the count.
public struct PendingChanges: Sendable, Equatable {
  /// The tasks with a change waiting, by id (a task created here keeps its temporary id, below
  /// zero, until the server gives its own).
  public var taskIDs: Set<Int>
  /// How many changes wait.
  public var count: Int

  /// Pending changes.
  public init(taskIDs: Set<Int> = [], count: Int = 0) {
    self.taskIDs = taskIDs
    self.count = count
  }
}

/// Runs its jobs one after another, in the order given (an actor alone lets a second job start
/// while the first waits).
actor SerialJobs {
  private var last: Task<Void, Never>?

  /// Runs `job` after every job given before, and returns when it is done.
  func run(_ job: @escaping @Sendable () async -> Void) async {
    let previous = last
    let task = Task {
      await previous?.value
      await job()
    }
    last = task
    await task.value
  }
}

/// The outbox's work in ``TaskServiceImpl``: sending the changes in order, applying what the
/// server answered, and the pending changes on top of what the server shows.
extension TaskServiceImpl {
  /// What became of a change once sent.
  enum SendOutcome: Sendable, Equatable {
    /// Saved; the task as the server now has it (`nil` for a delete).
    case sent(TaskModel?)
    /// Refused: undone, with why.
    case refused(RepositoryError)
  }

  /// The pending changes of the current user's outbox.
  static func pendingChanges(in outbox: Outbox<TaskWrite>) -> PendingChanges {
    let entries = outbox.entries
    return PendingChanges(taskIDs: Set(entries.map(\.change.taskID)), count: entries.count)
  }

  /// `task` with the changes waiting for it applied (as the user made them); `nil` if one of
  /// them deletes it.
  static func applyingPending(_ entries: [Outbox<TaskWrite>.Entry], to task: TaskItem)
    -> TaskItem?
  {
    var task = task
    for entry in entries where entry.change.taskID == task.id {
      switch entry.change {
      case .update(_, _, let change, _, _):
        if let title = change.title { task.title = title }
        if let isDone = change.isDone { task.isDone = isDone }
      case .delete: return nil
      case .create: break
      }
    }
    return task
  }

  /// A task being created, as shown until the server saves it.
  static func unsavedTask(_ write: TaskWrite) -> TaskItem? {
    guard case .create(let projectID, let task, let temporaryID) = write else { return nil }
    return TaskItem(
      id: temporaryID, projectID: projectID, title: task.title, milestoneID: task.milestoneID,
      tagIDs: task.tagIDs, assigneeIDs: task.assigneeIDs)
  }

  /// `page` (of `projectID`, the first when `isFirst`) with the changes waiting applied: rows
  /// changed or gone, and the tasks created here on top of the first page.
  static func applyingPending(
    _ entries: [Outbox<TaskWrite>.Entry], to page: TaskPage, projectID: Int, isFirst: Bool
  ) -> TaskPage {
    guard !entries.isEmpty else { return page }
    var page = page
    page.tasks = page.tasks.compactMap { applyingPending(entries, to: $0) }
    if isFirst {
      let created = entries.reversed().compactMap { entry -> TaskItem? in
        guard entry.change.projectID == projectID, let task = unsavedTask(entry.change) else {
          return nil
        }
        return applyingPending(entries, to: task)
      }
      page.tasks = created + page.tasks
    }
    return page
  }

  /// Sends the outbox's changes in order, one at a time, until it is empty or the server
  /// cannot be reached (the rest wait for the next send), in the session `mark` names (taken
  /// before `outbox` was pinned). What became of each change whose caller waits is recorded in
  /// ``awaited``. Each answer is applied only in that session. `drafts` are that user's drafts
  /// (pinned with the outbox), where a refused new task's text is kept.
  func sendWaiting(
    _ outbox: Outbox<TaskWrite>, drafts: (any DraftService)?, mark: SessionGeneration.Mark
  ) async {
    defer { publishPending(in: mark) }
    // Each change is sent at most a few times here (a conflict resolved is sent again, once).
    var sends = 0
    var resolved: Set<String> = []
    while let entry = outbox.entries.first, sends < outbox.limit * 3 {
      sends += 1
      guard session.isCurrent(mark) else { return }
      // A change to a task created offline goes to the id the server gave it; one whose
      // creation was refused (and so left the outbox) goes nowhere.
      if entry.change.taskID < 0, !Self.isCreation(entry.change) {
        if let saved = savedIDs.withLock({ $0[entry.change.taskID] }) {
          outbox.update(entry.id) { $0 = Self.retargeted($0, to: saved) }
        } else if !outbox.entries.contains(where: {
          Self.isCreation($0.change) && $0.change.taskID == entry.change.taskID
        }) {
          outbox.remove(entry.id)
        }
        continue
      }
      let result: Result<TaskModel?, RepositoryError>
      do throws(RepositoryError) {
        result = .success(try await taskRepo.send(entry.change, idempotencyKey: entry.id))
      } catch {
        result = .failure(error)
      }
      guard session.isCurrent(mark) else { return }
      switch result {
      case .success(let model):
        retryDelay.withLock { $0 = nil }
        if case .create(_, _, let temporaryID) = entry.change, let model {
          // Before the outbox is rewritten: a change kept from now on goes to the saved id.
          savedIDs.withLock { $0.record(model.id, for: temporaryID) }
        }
        // One write: a quit between removing the change and retargeting the later ones would
        // leave them naming a task the next launch cannot find.
        outbox.rewrite(Self.afterSending(entry, answer: model))
        applySent(entry, model: model, outbox: outbox, mark: mark)
        record(.sent(model), for: entry.id)
      case .failure(.offline), .failure(.cancelled), .failure(.unauthorized):
        // Not reached (or the session is being renewed): it waits, with its key, for the
        // network's return (`reachability`) or the next session.
        return
      case .failure(.invalidResponse):
        // No answer it can read (the write may be made: the same key tells): again later.
        scheduleRetry()
        return
      case .failure(.server(let status, _))
      where status >= 500 || TaskRepoImpl.tryAgainLaterStatuses.contains(status):
        // The server failed, is still making it, or asks for later: sent again later, with its
        // key, though the network never went away.
        scheduleRetry()
        return
      case .failure(.server(412, _)):
        // Resolved once a run: a server that refuses the resolution too waits for the next.
        guard !resolved.contains(entry.id) else {
          scheduleRetry()
          return
        }
        guard
          let renewed = await resolveConflict(entry, outbox: outbox, drafts: drafts, mark: mark)
        else {
          return
        }
        resolved.insert(renewed)
      case .failure(let error):
        // A refused creation leaves with its later changes once its text is kept (a quit in
        // between must not lose both).
        if !Self.isCreation(entry.change) { outbox.remove(entry.id) }
        await applyRefused(entry, error: error, outbox: outbox, drafts: drafts, mark: mark)
        record(.refused(error), for: entry.id)
      }
      publishPending(in: mark)
    }
  }

  /// What becomes of each entry once `sent` is answered with `model`: `sent` leaves the outbox;
  /// the later changes to a task it created name the server's id; those to a task it changed
  /// are made to the version it made.
  static func afterSending(_ sent: Outbox<TaskWrite>.Entry, answer model: TaskModel?)
    -> (Outbox<TaskWrite>.Entry) -> TaskWrite?
  {
    { later in
      guard later.id != sent.id else { return nil }
      guard let model else { return later.change }
      switch sent.change {
      case .create(_, _, let temporaryID) where later.change.taskID == temporaryID:
        // A change to the task it created: to the server's id, and the version it made.
        return retargeted(later.change, to: model.id, version: model.version)
      case .update(let id, _, _, _, _) where later.change.taskID == id:
        // Made on top of the sent change: to its new version.
        return retargeted(later.change, to: id, version: model.version)
      default:
        return later.change
      }
    }
  }

  /// Whether `write` creates a task.
  static func isCreation(_ write: TaskWrite) -> Bool {
    if case .create = write { return true }
    return false
  }

  /// `write` made to the task `id` instead (a change to a task created offline, now saved),
  /// at `version` (`nil`: whatever version it has).
  static func retargeted(_ write: TaskWrite, to id: Int, version: Int? = nil) -> TaskWrite {
    switch write {
    case .update(_, let projectID, let change, let base, _):
      .update(id: id, projectID: projectID, change, base: base, version: version)
    case .delete(_, let projectID):
      .delete(id: id, projectID: projectID)
    case .create:
      write
    }
  }

  /// Sends what waits again after a delay (doubled each time, 2 s to 60 s), as long as this
  /// service lives: the server asked for later, and the network will not say when.
  private func scheduleRetry() {
    let delay = retryDelay.withLock { delay -> Duration in
      let next = min((delay ?? .seconds(1)) * 2, .seconds(60))
      delay = next
      return next
    }
    Task { [weak self] in
      try? await Task.sleep(for: delay)
      await self?.sendPendingChanges()
    }
  }

  /// Records what became of entry `id` (or of the entry it renewed), if its caller waits.
  private func record(_ outcome: SendOutcome, for id: String) {
    let waited = renewedEntries.withLock { $0.removeValue(forKey: id) } ?? id
    awaited.withLock { awaited in
      if awaited[waited] != nil { awaited[waited] = .some(outcome) }
    }
  }

  /// Tells the screens what the server saved.
  private func applySent(
    _ entry: Outbox<TaskWrite>.Entry, model: TaskModel?, outbox: Outbox<TaskWrite>,
    mark: SessionGeneration.Mark
  ) {
    switch entry.change {
    case .create(let projectID, _, let temporaryID):
      guard let model else { return }
      // Shown as the user left it (a later change or deletion still waiting applies).
      let saved = TaskItem(model)
      if let shown = Self.applyingPending(outbox.entries, to: saved) {
        announce(.replaced(temporaryID: temporaryID, shown), in: mark)
      } else {
        announce(
          .removed(TaskItem(id: temporaryID, projectID: projectID, title: model.title)), in: mark)
      }
    case .update:
      guard let model else { return }
      let saved = TaskItem(model)
      announce(.updated(Self.applyingPending(outbox.entries, to: saved) ?? saved), in: mark)
    case .delete:
      break
    }
  }

  /// Undoes a change the server refused, and says so (unless its caller waits for it: the
  /// error it throws says so).
  private func applyRefused(
    _ entry: Outbox<TaskWrite>.Entry, error: RepositoryError, outbox: Outbox<TaskWrite>,
    drafts: (any DraftService)?, mark: SessionGeneration.Mark
  ) async {
    let reason = ServiceError(error).message
    // Its caller is told by the error it throws (and keeps the form).
    let isAwaited = awaited.withLock { $0[entry.id] != nil }
    let notify = { (message: String, mark: SessionGeneration.Mark) in
      if !isAwaited { self.notify(message, in: mark) }
    }
    switch entry.change {
    case .create(let projectID, let task, let temporaryID):
      // What the user typed is kept, for the task form to open with (unless its caller waits:
      // its form is still open), before it leaves the outbox.
      if !isAwaited {
        keepReturned(
          TaskDraft(
            projectID: projectID, title: task.title, body: task.body,
            milestoneID: task.milestoneID, tagIDs: task.tagIDs, assigneeIDs: task.assigneeIDs,
            attachmentIDs: task.attachmentIDs),
          into: drafts)
      }
      // It leaves, and its later changes go with it.
      outbox.rewrite { $0.change.taskID == temporaryID ? nil : $0.change }
      if let unsaved = Self.unsavedTask(entry.change) { announce(.removed(unsaved), in: mark) }
      guard !isAwaited else { return }
      let kept = drafts == nil ? "" : " What you typed is back in New task."
      notify("“\(task.title)” was not created: \(reason)\(kept)", mark)
    case .update(let id, let projectID, let change, let base, _):
      // As it was before the change (the screens show the change): the server did nothing.
      var before =
        lastKnownTask(id: id)
        ?? TaskItem(id: id, projectID: projectID, title: base.title ?? change.title ?? "a task")
      if let title = base.title { before.title = title }
      if let isDone = base.isDone { before.isDone = isDone }
      let current = await settle(before, after: error)
      guard session.isCurrent(mark) else { return }
      if let current {
        announce(.updated(Self.applyingPending(outbox.entries, to: current) ?? current), in: mark)
      } else {
        outbox.rewrite { $0.change.taskID == id ? nil : $0.change }
        announce(.removed(before), in: mark)
      }
      notify("Your change to “\(before.title)” was undone: \(reason)", mark)
    case .delete(let id, _):
      // The screens forgot it: read again, and back as the server has it.
      let current: TaskModel?
      do throws(RepositoryError) {
        current = try await taskRepo.task(id: id)
      } catch {
        current = nil
      }
      guard session.isCurrent(mark) else { return }
      let title = current?.title ?? "A task"
      if let current { announce(.restored(TaskItem(current)), in: mark) }
      notify("“\(title)” was not deleted: \(reason)", mark)
    }
  }

  /// A change refused because someone changed the task since (`412`): the fields only this
  /// user changed are sent again, made to the server's version; a field both changed keeps
  /// the server's value, and the user is told. Returns the key the change now goes under (the
  /// renewed entry's, or the old one when it is done with), or `nil` when sending must stop
  /// (the task could not be read: offline).
  private func resolveConflict(
    _ entry: Outbox<TaskWrite>.Entry, outbox: Outbox<TaskWrite>, drafts: (any DraftService)?,
    mark: SessionGeneration.Mark
  ) async -> String? {
    guard case .update(let id, let projectID, let change, let base, _) = entry.change else {
      // Only a change names a version; a refusal all the same (a creation leaves in
      // `applyRefused`, once its text is kept).
      if !Self.isCreation(entry.change) { outbox.remove(entry.id) }
      let error = RepositoryError.server(status: 412, "The server refused it as out of date.")
      await applyRefused(entry, error: error, outbox: outbox, drafts: drafts, mark: mark)
      record(.refused(error), for: entry.id)
      return entry.id
    }
    let current: TaskModel
    do throws(RepositoryError) {
      current = try await taskRepo.task(id: id)
    } catch .notFound(let message) {
      guard session.isCurrent(mark) else { return nil }
      outbox.remove(entry.id)
      await applyRefused(
        entry, error: .notFound(message), outbox: outbox, drafts: drafts, mark: mark)
      record(.refused(.notFound(message)), for: entry.id)
      return entry.id
    } catch {
      return nil
    }
    guard session.isCurrent(mark) else { return nil }
    var kept = TaskChangeModel()
    var keptBase = TaskChangeModel()
    var theirs: [String] = []
    if let title = change.title {
      if current.title == base.title {
        kept.title = title
        keptBase.title = current.title
      } else if current.title != title {
        theirs.append("title")
      }
    }
    if let isDone = change.isDone {
      if current.isDone == base.isDone {
        kept.isDone = isDone
        keptBase.isDone = current.isDone
      } else if current.isDone != isDone {
        theirs.append("done state")
      }
    }
    var key = entry.id
    if kept == TaskChangeModel() {
      outbox.remove(entry.id)
      let server = TaskItem(current)
      announce(.updated(Self.applyingPending(outbox.entries, to: server) ?? server), in: mark)
      record(.sent(current), for: entry.id)
    } else if let renewed = outbox.renew(
      entry.id,
      with: .update(id: id, projectID: projectID, kept, base: keptBase, version: current.version))
    {
      // Its caller waits under the first key.
      renewedEntries.withLock { entries in
        entries[renewed.id] = entries.removeValue(forKey: entry.id) ?? entry.id
      }
      key = renewed.id
    }
    if !theirs.isEmpty {
      notify(
        "Someone else changed “\(current.title)” meanwhile: their "
          + theirs.joined(separator: " and ") + " was kept.",
        title: "Someone else changed a task", in: mark)
    }
    return key
  }
}
