import TrellisCore
import TrellisReactor
import TrellisService

/// One task in full: its title, done or not, project, milestone, tags, assignees and
/// attachments, with the project's names for them; and what the user can do to it: mark it done
/// (or not), rename it, delete it (after confirming). Opened from the task list or by a link
/// (`trellis://tasks/<id>`).
///
/// Offline is a state: a task that cannot be loaded shows what this app last saw of it (its
/// title and whether it is done, from the list), says that the network is unreachable, offers
/// Retry, and loads by itself when the connection is live again.
///
/// Stale-while-revalidate: a task kept from an earlier launch (read, or a row of a kept list,
/// with its project's kept names) shows in full at once, marked with its age ("as of 14:02"),
/// while it loads; the server's replaces it. Offline it stays, marked, until it can load.
///
/// Changes are optimistic: the screen (and, through ``TaskService/changes``, the task list)
/// shows a change at once, and shows it undone, with an alert saying why, when the server
/// refuses it (a viewer cannot change tasks) or cannot be reached. A title being typed is never
/// lost: a rename that fails keeps the field open with the text in it, and the text is kept as
/// a draft (``DraftService``) until it is saved or cancelled, so a task opened after a quit or
/// a crash opens its title field again as it was left.
@MainActor
public final class TaskDetailViewReactor: ReactorProtocol {
  /// What happens to the screen.
  public enum Action: Sendable, Equatable {
    /// The screen appeared: load the task.
    case load
    /// Chose an attachment (by its file id): the screen says what it is.
    case openAttachment(Int)
    /// Tapped "Mark done" or "Mark not done".
    case toggleDone
    /// Tapped "Rename": the title field opens with the title in it.
    case startRename
    /// Typed in the title field: its whole text.
    case editTitle(String)
    /// Tapped "Save title".
    case saveTitle
    /// Tapped "Cancel" beside the title field: closes it.
    case cancelRename
    /// Tapped "Delete": the screen asks first.
    case delete
    /// Confirmed the deletion.
    case confirmDelete
    /// Kept the task after all.
    case cancelDelete
    /// The connection to the server changed (merged from the connection service).
    case connectionChanged(ConnectionState)
    /// The changes not sent yet changed (merged from the task service).
    case pendingChanged(PendingChanges)
    /// This app changed a task, or the server answered a change (merged from the task
    /// service): one sent from the outbox later, refused, or resolved against someone else's.
    case taskChanged(TaskChange)
  }

  /// State changes.
  public enum Mutation: Sendable, Equatable {
    /// Loading started or ended.
    case setLoading(Bool)
    /// The task arrived, with its project's names.
    case setLoaded(TaskItem, TaskDetail)
    /// The task as it now is (changed optimistically, as saved, or as it was again).
    case setTask(TaskItem)
    /// The task could not be loaded: why, and whether because the app is offline.
    case setFailure(String, isOffline: Bool)
    /// What this app last saw of the task, shown until it loads.
    case setPreview(TaskItem?)
    /// The task as kept from an earlier launch, with its age ("as of 14:02"), until it loads.
    case setStoredDetail(TaskItem, TaskDetail, age: String)
    /// The kept task is not to be shown: the server says it is gone or not the user's.
    case forgetStoredDetail
    /// The title field's text; `nil` closes the field.
    case setTitleDraft(String?)
    /// A title typed before a quit, opened again unless a title is being typed.
    case restoreTitleDraft(String)
    /// What is wrong with the title typed, or `nil`.
    case setTitleProblem(String?)
    /// Whether the deletion question shows.
    case setConfirmingDelete(Bool)
    /// Whether a change is being sent.
    case setSaving(Bool)
    /// Whether the task has a change not sent yet.
    case setPending(Bool)
    /// The task created offline (shown under a temporary id) was saved: the server's.
    case setSaved(TaskItem)
    /// The deletion this screen sent is done (the screen closes).
    case setDeleted
  }

  /// One-shot outputs.
  public enum Event: Sendable, Equatable {
    /// Show an alert.
    case alert(title: String, message: String)
    /// Show a toast.
    case toast(String)
    /// The task was deleted: close the screen.
    case deleted
  }

  /// A task as the screen shows it.
  public struct TaskDetail: Sendable, Equatable {
    /// Its title.
    public var title: String
    /// Whether it is done.
    public var isDone: Bool
    /// Its project's name.
    public var project: String
    /// Its milestone's name, if it has one.
    public var milestone: String?
    /// Its tags' names.
    public var tags: [String]
    /// Its assignees' names.
    public var assignees: [String]
    /// Its files: name, then size and type (`12 bytes · image/png`).
    public var attachments: [Choice]

    /// Creates a detail.
    public init(
      title: String, isDone: Bool = false, project: String, milestone: String? = nil,
      tags: [String] = [], assignees: [String] = [], attachments: [Choice] = []
    ) {
      self.title = title
      self.isDone = isDone
      self.project = project
      self.milestone = milestone
      self.tags = tags
      self.assignees = assignees
      self.attachments = attachments
    }
  }

  /// What the screen shows.
  public struct State: Sendable, Equatable {
    /// The task's id.
    public var taskID: Int
    /// The task, once loaded.
    public var detail: TaskDetail?
    /// The task as the service knows it (what a change starts from).
    public var task: TaskItem?
    /// Whether it is loading.
    public var isLoading = false
    /// Why it could not be loaded.
    public var failure: String?
    /// Whether it could not be loaded because the app is offline (it loads when back).
    public var isOffline = false
    /// What this app last saw of the task (from the list), shown while it is not loaded.
    public var preview: TaskItem?
    /// When the task shown was kept ("as of 14:02"), while it is the kept one, not the
    /// server's.
    public var storedAge: String?
    /// The title being typed, while the title field is open.
    public var titleDraft: String?
    /// What is wrong with the title typed.
    public var titleProblem: String?
    /// Whether the screen asks to confirm the deletion.
    public var isConfirmingDelete = false
    /// Whether a change is being sent (the buttons wait).
    public var isSaving = false
    /// Whether this screen deleted the task (it is closing).
    public var isDeleted = false

    /// What the screen says about a kept task it shows: that it is loading, or that it cannot
    /// be while offline; `nil` once the server's is shown.
    public var storedNotice: String? {
      guard let storedAge, detail != nil else { return nil }
      guard failure == nil else {
        return isOffline
          ? "Offline: showing the task \(storedAge). It reloads when the connection is back."
          : "Showing the task \(storedAge): \(failure ?? "")"
      }
      return "Showing the task \(storedAge) while it loads."
    }

    /// Whether the task has a change the server has not confirmed yet (made offline).
    public var isPending = false

    /// What the screen says about a change not sent yet.
    public var pendingNotice: String? {
      isPending ? "Not sent yet: the change is sent as soon as the server takes it." : nil
    }

    /// Whether a title was typed that is not saved.
    public var hasUnsavedTitle: Bool {
      guard let titleDraft, let task else { return false }
      return titleDraft != task.title
    }

    /// The state before anything happened.
    public init(taskID: Int) {
      self.taskID = taskID
    }
  }

  /// The longest title, as the task form and the server take it.
  public static let titleLimit = FieldLimit("Title", maximumLength: 120)

  /// Nothing loaded.
  public let initialState: State
  /// The runtime.
  public let runtime = ReactorRuntime<TaskDetailViewReactor>()
  private let services: any TaskDetailViewServiceProvider
  private let ageText: AgeText

  /// Creates the reactor for the task `taskID`; `ageText` says when a kept task was kept.
  public init(
    serviceProvider: any TaskDetailViewServiceProvider, taskID: Int, ageText: AgeText = AgeText()
  ) {
    services = serviceProvider
    initialState = State(taskID: taskID)
    self.ageText = ageText
  }

  /// Connection changes, the changes waiting and the task's changes come in as actions.
  public func transform(action: ReactorStream<Action>) -> ReactorStream<Action> {
    action.merge(services.connectionService.state.changes) { .connectionChanged($0) }
      .merge(services.taskService.pending.changes) { .pendingChanged($0) }
      .merge(services.taskService.changes.events) { .taskChanged($0) }
  }

  /// Loads the task; changes it.
  public func mutate(action: Action) -> Effect {
    let taskService = services.taskService
    let state = currentState
    switch action {
    case .load:
      guard !state.isLoading else { return .none }
      let taskID = state.taskID
      let stored = state.detail == nil ? Self.storedDetail(of: taskID, from: taskService) : nil
      let preview =
        state.detail == nil && stored == nil ? taskService.lastKnownTask(id: taskID) : nil
      // The title a quit left being typed, read when it is applied: one cancelled or saved
      // while the task loads stays closed.
      let drafts = services.draftService
      let restoreDraft = Effect.run { emit in
        if let kept = drafts.draft(String.self, for: Self.titleDraftKey(taskID)) {
          emit(.restoreTitleDraft(kept))
        }
      }
      let showsKept = stored != nil || state.storedAge != nil
      let showStored: Effect =
        stored.map {
          Effect.just(
            .setStoredDetail($0.value.task, $0.value.detail, age: ageText.asOf($0.storedAt)))
        } ?? .none
      let isPending = taskService.pending.value.taskIDs.contains(taskID)
      return .concat(
        isPending == state.isPending ? .none : .just(.setPending(isPending)),
        showStored,
        stored != nil ? restoreDraft : .none,
        preview != state.preview ? .just(.setPreview(preview)) : .none,
        .just(.setLoading(true)),
        .task {
          let (task, detail) = try await Self.detail(of: taskID, from: taskService)
          return .setLoaded(task, detail)
        },
        restoreDraft,
        .just(.setLoading(false))
      )
      .catch { error in
        let isOffline = ErrorMessage.isOffline(error)
        let message =
          isOffline
          ? "You are offline: the server cannot be reached, so the task could not be loaded. "
            + "It loads by itself when the connection is back."
          : ErrorMessage.text(for: error)
        // Gone, or no longer the user's: what the device kept of it is not shown any more.
        let kind = (error as? ServiceError)?.kind
        let forgetsKept: Effect =
          showsKept && (kind == .notFound || kind == .forbidden)
          ? .just(.forgetStoredDetail) : .none
        return .concat(
          forgetsKept, .just(.setFailure(message, isOffline: isOffline)),
          .just(.setLoading(false)))
      }
    case .connectionChanged(.online):
      // Live again: a task that could not be loaded (or only as kept) loads now.
      guard state.failure != nil, state.detail == nil || state.storedAge != nil else {
        return .none
      }
      return mutate(action: .load)
    case .connectionChanged:
      return .none
    case .pendingChanged(let pending):
      let isPending = pending.taskIDs.contains(state.taskID)
      guard isPending != state.isPending else { return .none }
      // Its changes are sent: the task as the service now knows it (saved, undone when
      // refused, or resolved against someone else's change), unless this screen is saving.
      let known = isPending || state.isSaving ? nil : taskService.lastKnownTask(id: state.taskID)
      return .concat(
        .just(.setPending(isPending)),
        known.map { $0 == state.task ? .none : .just(.setTask($0)) } ?? .none)
    case .taskChanged(let change):
      return follow(change)
    case .openAttachment(let fileID):
      // A terminal cannot show the file: it says what it is.
      guard let file = state.detail?.attachments.first(where: { $0.id == fileID }) else {
        return .none
      }
      return .event(.alert(title: file.title, message: "\(file.detail) (file \(file.id))."))
    case .toggleDone:
      guard let task = state.task, !state.isSaving else { return .none }
      let isDone = !task.isDone
      var changed = task
      changed.isDone = isDone
      return change(
        task, to: changed, failureTitle: isDone ? "Not marked done" : "Not reopened",
        offline: "The task was not changed."
      ) {
        .setTask(try await taskService.updateTask(task, title: nil, isDone: isDone))
      }
    case .startRename:
      guard let task = state.task, state.titleDraft == nil else { return .none }
      return .just(.setTitleDraft(task.title))
    case .editTitle(let text):
      guard state.titleDraft != nil else { return .none }
      let key = Self.titleDraftKey(state.taskID)
      if text != state.task?.title {
        services.draftService.keep(text, for: key)
      } else {
        services.draftService.discard(key)
      }
      return .mutations(.setTitleDraft(text), .setTitleProblem(nil))
    case .cancelRename:
      services.draftService.discard(Self.titleDraftKey(state.taskID))
      return .mutations(.setTitleDraft(nil), .setTitleProblem(nil))
    case .saveTitle:
      guard let task = state.task, let draft = state.titleDraft, !state.isSaving else {
        return .none
      }
      if let problem = Self.titleLimit.problem(with: draft) {
        return .just(.setTitleProblem(problem))
      }
      var changed = task
      changed.title = draft.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !changed.title.isEmpty else { return .just(.setTitleProblem("Title is required.")) }
      // The drafts of the user who renames: dropped there after the save, whatever the session
      // did meanwhile.
      let (drafts, key) = (services.draftService.pinned(), Self.titleDraftKey(state.taskID))
      guard changed.title != task.title else {
        drafts.discard(key)
        return .just(.setTitleDraft(nil))
      }
      return change(
        task, to: changed, failureTitle: "Not renamed", offline: "The new title was not saved.",
        then: .concat(.just(.setTitleDraft(nil)), .event(.toast("Renamed")))
      ) {
        let saved = try await taskService.updateTask(task, title: changed.title, isDone: nil)
        drafts.discard(key)
        return .setTask(saved)
      }
    case .delete:
      guard state.task != nil, !state.isSaving else { return .none }
      return .just(.setConfirmingDelete(true))
    case .cancelDelete:
      return .just(.setConfirmingDelete(false))
    case .confirmDelete:
      guard let task = state.task, state.isConfirmingDelete, !state.isSaving else { return .none }
      return .concat(
        .just(.setConfirmingDelete(false)),
        .just(.setSaving(true)),
        .run { _ in try await taskService.deleteTask(task) },
        .just(.setDeleted),
        .event(.toast("Deleted \"\(task.title)\"")),
        .event(.deleted)
      )
      .catch { error in
        .concat(
          .just(.setSaving(false)),
          Self.alert(for: error, title: "Not deleted", offline: "The task was not deleted."))
      }
    }
  }

  /// Follows what the outbox did to this task made offline (the changes this screen makes it
  /// applies itself; a change of the outbox's shows when it is no longer pending): saved
  /// under the server's id (a title being typed is kept under it), or gone (the server refused
  /// it): the screen closes, and the notice says why. (A saved task's removal may be a
  /// deletion still being decided, announced before it is made: the screen stays, and says so
  /// if the task is gone when it is next used.)
  private func follow(_ change: TaskChange) -> Effect {
    let state = currentState
    // Its own deletion (announced before it is made) it follows itself.
    guard !state.isDeleted, !state.isSaving else { return .none }
    switch change {
    case .replaced(let temporaryID, let task) where temporaryID == state.taskID:
      let drafts = services.draftService
      if let typed = state.titleDraft {
        drafts.keep(typed, for: Self.titleDraftKey(task.id))
      }
      drafts.discard(Self.titleDraftKey(temporaryID))
      return .concat(
        .just(.setSaved(task)),
        .just(.setPending(services.taskService.pending.value.taskIDs.contains(task.id))))
    case .removed(let task) where task.id == state.taskID && task.id < 0:
      return .concat(.just(.setDeleted), .event(.deleted))
    default:
      return .none
    }
  }

  /// Where the title typed for the task `taskID` is kept.
  public static func titleDraftKey(_ taskID: Int) -> String { "draft.rename.\(taskID)" }

  /// Shows `changed` at once and sends it with `request`, then performs `success`; shows
  /// `task` again, with an alert, if the request fails.
  private func change(
    _ task: TaskItem, to changed: TaskItem, failureTitle: String, offline: String,
    then success: Effect = .none, request: @escaping @MainActor () async throws -> Mutation
  ) -> Effect {
    .concat(
      .just(.setTask(changed)),
      .just(.setSaving(true)),
      .task(request),
      success,
      .just(.setSaving(false))
    )
    .catch { error in
      .concat(
        .just(.setTask(task)),
        .just(.setSaving(false)),
        Self.fieldProblem(in: error),
        Self.alert(for: error, title: failureTitle, offline: offline))
    }
  }

  /// The title's problem when the server refused the title itself.
  private static func fieldProblem(in error: any Error) -> Effect {
    guard let problem = (error as? ServiceError)?.fields["title"] else { return .none }
    return .just(.setTitleProblem("Title: \(problem)."))
  }

  /// The alert for a change that failed: offline, it says nothing was lost.
  private static func alert(for error: any Error, title: String, offline: String) -> Effect {
    guard !ErrorMessage.isOffline(error) else {
      let alert = ErrorMessage.offlineAlert(offline, retry: "try again")
      return .event(.alert(title: alert.title, message: alert.message))
    }
    return .event(.alert(title: title, message: ErrorMessage.text(for: error)))
  }

  /// The task with the names of its project, milestone, tags and assignees.
  static func detail(of taskID: Int, from taskService: any TaskService) async throws(ServiceError)
    -> (TaskItem, TaskDetail)
  {
    let task = try await taskService.task(id: taskID)
    let projects = try await taskService.projects(forceRefresh: false)
    let context = try await taskService.projectContext(projectID: task.projectID)
    return (task, detail(of: task, projects: projects, context: context))
  }

  /// The task as kept from an earlier launch, with its project's kept names, and when the task
  /// was kept; `nil` unless both the task and its project's context are kept.
  static func storedDetail(of taskID: Int, from taskService: any TaskService)
    -> Stored<(task: TaskItem, detail: TaskDetail)>?
  {
    guard let task = taskService.storedTask(id: taskID),
      let context = taskService.storedContext(projectID: task.value.projectID)
    else { return nil }
    let projects = taskService.storedProjects()?.value ?? []
    return task.map { ($0, detail(of: $0, projects: projects, context: context.value)) }
  }

  /// `task` with the names `projects` and `context` give its project, milestone, tags and
  /// assignees.
  private static func detail(of task: TaskItem, projects: [Project], context: ProjectContext)
    -> TaskDetail
  {
    let tags = Dictionary(context.tags.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
    let members = Dictionary(
      context.members.map { ($0.id, $0.displayName) }, uniquingKeysWith: { a, _ in a })
    let detail = TaskDetail(
      title: task.title, isDone: task.isDone,
      project: projects.first { $0.id == task.projectID }?.name ?? "Project \(task.projectID)",
      milestone: task.milestoneID.flatMap { id in context.milestones.first { $0.id == id }?.name },
      tags: task.tagIDs.map { tags[$0] ?? "#\($0)" },
      assignees: task.assigneeIDs.map { members[$0] ?? "User \($0)" },
      attachments: task.attachments.map {
        Choice(id: $0.id, title: $0.name, detail: "\($0.size) bytes · \($0.contentType)")
      })
    return detail
  }

  /// Applies a mutation.
  public func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setLoading(let isLoading): state.isLoading = isLoading
    case .setLoaded(let task, let detail):
      // Opened under a temporary id (a task made offline) and saved since: the server's id.
      state.taskID = task.id
      state.task = task
      state.detail = detail
      state.failure = nil
      state.isOffline = false
      state.preview = nil
      state.storedAge = nil
    case .setStoredDetail(let task, let detail, let age):
      state.task = task
      state.detail = detail
      state.storedAge = age
    case .forgetStoredDetail:
      guard state.storedAge != nil else { break }
      state.task = nil
      state.detail = nil
      state.storedAge = nil
      state.titleDraft = nil
    case .setTask(let task):
      state.task = task
      state.detail?.title = task.title
      state.detail?.isDone = task.isDone
    case .setDeleted:
      state.isSaving = false
      state.isDeleted = true
    case .setSaved(let task):
      state.taskID = task.id
      state.task = task
      state.preview = state.preview.map { _ in task }
      state.detail?.title = task.title
      state.detail?.isDone = task.isDone
    case .setFailure(let message, let isOffline):
      state.failure = message
      state.isOffline = isOffline
    case .setPreview(let preview): state.preview = preview
    case .setTitleDraft(let draft): state.titleDraft = draft
    case .restoreTitleDraft(let draft):
      if state.titleDraft == nil, draft != state.task?.title { state.titleDraft = draft }
    case .setTitleProblem(let problem): state.titleProblem = problem
    case .setConfirmingDelete(let isConfirming): state.isConfirmingDelete = isConfirming
    case .setSaving(let isSaving): state.isSaving = isSaving
    case .setPending(let isPending): state.isPending = isPending
    }
    return state
  }
}
