import Foundation
import TrellisCore
import TrellisReactor
import TrellisService

/// Dooray!'s task form (seed 000), the case MVI is for:
///
/// - Choosing a project fetches its milestones, tags, members and permissions at once; choosing
///   again before they arrive cancels the first fetch, so a stale answer never lands.
/// - Attaching a file shows the indicator, uploads, appends the file and hides the indicator;
///   on failure an alert shows and the indicator still hides.
/// - Saving creates the task, shows a toast, and closes the form.
/// - Offline, a save or an upload fails with an alert that says so; every field and
///   attachment stays, and the same tap succeeds once the connection is back. A form filled in
///   while the project's context could not be fetched can still be saved: the save fetches the
///   context (the permission) first.
@MainActor
public final class TaskComposeViewReactor: ReactorProtocol {
  /// What the user does.
  public enum Action: Sendable, Equatable {
    /// The form appeared: load the projects.
    case load
    /// Chose a project.
    case selectProject(Int)
    /// Typed the title.
    case setTitle(String)
    /// Chose a milestone (or none).
    case selectMilestone(Int?)
    /// Checked or unchecked a tag.
    case toggleTag(Int)
    /// Checked or unchecked an assignee.
    case toggleAssignee(Int)
    /// Typed the path of a file to attach.
    case setAttachmentPath(String)
    /// Tapped "Attach".
    case attach
    /// Removed an attachment (by its file id) from the draft.
    case removeAttachment(Int)
    /// Tapped "Save".
    case save
    /// The form was left without saving (the user chose to discard it): its draft goes.
    case discardDraft
  }

  /// State changes.
  public enum Mutation: Sendable, Equatable {
    /// The projects arrived.
    case setProjects([Project])
    /// The project chosen (clears what belonged to the previous one).
    case setProject(Int)
    /// Its context arrived.
    case setContext(ProjectContext)
    /// A member's name changed (the signed-in user's, in the profile).
    case renameMember(id: Int, displayName: String)
    /// The context fetch started or ended.
    case setLoadingContext(Bool)
    /// The title changed.
    case setTitle(String)
    /// The milestone changed.
    case setMilestone(Int?)
    /// A tag was toggled.
    case toggleTag(Int)
    /// An assignee was toggled.
    case toggleAssignee(Int)
    /// The attachment path changed.
    case setAttachmentPath(String)
    /// The upload indicator (seed 000's `setIndicator`).
    case setUploading(Bool)
    /// A file was uploaded (seed 000's `appendUploadedFiles`).
    case appendAttachment(Attachment)
    /// An attachment was taken off the draft.
    case removeAttachment(Int)
    /// Saving started or ended.
    case setSaving(Bool)
    /// What is wrong with each field a save was refused for (by the server's field names).
    case setFieldProblems([String: String])
    /// The draft kept from the last time the form was open.
    case restoreDraft(Draft)
  }

  /// What the form keeps on the device as it is filled in (``DraftService``), so that a quit
  /// or a crash loses nothing: restored when the form opens again, dropped once saved or
  /// discarded.
  public struct Draft: Codable, Sendable, Equatable {
    /// A file already uploaded for the task.
    public struct File: Codable, Sendable, Equatable {
      /// The file's id.
      public var id: Int
      /// Its name.
      public var name: String
      /// Its size, as the form shows it.
      public var detail: String
    }

    /// The chosen project.
    public var projectID: Int?
    /// The title.
    public var title: String
    /// The chosen milestone.
    public var milestoneID: Int?
    /// The checked tags.
    public var tagIDs: [Int]
    /// The checked assignees.
    public var assigneeIDs: [Int]
    /// The uploaded files.
    public var files: [File]
    /// The path typed for the next file, not attached yet (absent in a draft kept before it
    /// was kept).
    public var attachmentPath: String?

    /// The draft of `state`.
    init(_ state: State) {
      projectID = state.projectID
      title = state.title
      milestoneID = state.milestoneID
      tagIDs = state.tagIDs
      assigneeIDs = state.assigneeIDs
      files = state.attachments.map { File(id: $0.id, name: $0.title, detail: $0.detail) }
      attachmentPath = state.attachmentPath.isEmpty ? nil : state.attachmentPath
    }

    /// The draft of a new task the server refused (its files named by their ids: the names
    /// are not kept with it).
    init(_ returned: TaskDraft) {
      projectID = returned.projectID
      title = returned.title
      milestoneID = returned.milestoneID
      tagIDs = returned.tagIDs
      assigneeIDs = returned.assigneeIDs
      files = returned.attachmentIDs.map { File(id: $0, name: "File #\($0)", detail: "") }
      attachmentPath = nil
    }
  }

  /// Where the form's draft is kept.
  public static let draftKey = "draft.compose"

  /// One-shot outputs.
  public enum Event: Sendable, Equatable {
    /// Show an alert.
    case alert(title: String, message: String)
    /// Show a toast.
    case toast(String)
    /// The task was created: close the form. (Screens that show tasks learn of it from
    /// ``TaskService/changes``, not from this form.)
    case saved
  }

  /// What the form shows.
  public struct State: Sendable, Equatable {
    /// The user's projects.
    public var projects: [Choice] = []
    /// The chosen project.
    public var projectID: Int?
    /// The chosen project's milestones (empty until its context arrives).
    public var milestones: [Choice] = []
    /// The chosen project's tags.
    public var tags: [Choice] = []
    /// The chosen project's members, who can be assigned.
    public var members: [Choice] = []
    /// Whether the chosen project's context has arrived.
    public var hasContext = false
    /// Whether the user may create tasks in the chosen project.
    public var mayCreate = false
    /// Whether the context is being fetched.
    public var isLoadingContext = false
    /// The title.
    public var title = ""
    /// The chosen milestone.
    public var milestoneID: Int?
    /// The checked tags.
    public var tagIDs: [Int] = []
    /// The checked assignees.
    public var assigneeIDs: [Int] = []
    /// The path typed for the next attachment.
    public var attachmentPath = ""
    /// The uploaded attachments.
    public var attachments: [Choice] = []
    /// Whether an upload is in flight.
    public var isUploading = false
    /// Whether the task is being saved.
    public var isSaving = false
    /// What is wrong with each field the last save was refused for, by field name (`title`,
    /// `milestoneID`, `tagIDs`, `assigneeIDs`, `attachmentIDs`); a field's entry goes when it
    /// is edited.
    public var fieldProblems: [String: String] = [:]

    /// Whether "Save" can be tapped: a project is chosen that the user may create tasks in (or
    /// whose context could not be fetched, offline: saving fetches it first), the title is not
    /// blank, and nothing is in flight.
    public var canSave: Bool {
      projectID != nil && (mayCreate || !hasContext)
        && !title.trimmingCharacters(in: .whitespaces).isEmpty && !isSaving
        && !isUploading && !isLoadingContext
    }

    /// Whether the form holds anything the user entered (a title, a choice, a path, an
    /// attachment): closing it would lose that, so the screen asks first. The project alone is
    /// not input: it is chosen for the user when there is one.
    public var hasUnsavedInput: Bool {
      !title.trimmingCharacters(in: .whitespaces).isEmpty || milestoneID != nil
        || !tagIDs.isEmpty || !assigneeIDs.isEmpty
        || !attachmentPath.trimmingCharacters(in: .whitespaces).isEmpty || !attachments.isEmpty
    }

    /// The state before anything happened.
    public init() {}
  }

  /// An empty form.
  public let initialState = State()
  /// The runtime.
  public let runtime = ReactorRuntime<TaskComposeViewReactor>()
  /// The project to choose once the projects arrive (the list's, when opened from it).
  private let preselectedProjectID: Int?
  private let services: any TaskComposeViewServiceProvider

  /// The identity of the context fetch: a newer project choice cancels the one in flight.
  enum ContextFetch: Hashable, Sendable { case id }

  /// Creates the reactor.
  public init(serviceProvider: any TaskComposeViewServiceProvider, projectID: Int? = nil) {
    services = serviceProvider
    preselectedProjectID = projectID
  }

  /// The signed-in user's name, changed elsewhere (the profile), reaches the member list.
  public func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation> {
    mutation.merge(services.userService.currentUser.changes) { user in
      user.map { .renameMember(id: $0.id, displayName: $0.displayName) }
    }
  }

  /// Turns each action into its effect.
  public func mutate(action: Action) -> Effect {
    let taskService = services.taskService
    switch action {
    case .load:
      // The form as a quit or a crash left it, if it was: the draft's project wins over the one
      // the form was opened for.
      // Else a new task the server refused when it finally arrived (made offline), as the
      // user typed it, kept as this form's draft from now on.
      var draft = services.draftService.draft(Draft.self, for: Self.draftKey)
      if draft == nil, let returned = taskService.takeReturnedDraft() {
        let restored = Draft(returned)
        services.draftService.keep(restored, for: Self.draftKey)
        services.draftService.flush()  // taken from the returned ones: written at once
        draft = restored
      }
      let wanted = draft.map(\.projectID) ?? preselectedProjectID
      let isDraft = draft != nil
      // The projects kept from an earlier launch show at once (the form works from them
      // offline); the server's replace them.
      let stored = taskService.storedProjects()?.value
      return .concat(
        draft.map { .just(.restoreDraft($0)) } ?? .none,
        .run { [weak self] emit in
          var isOpened = false
          if let stored {
            emit(.setProjects(stored))
            if let wanted, isDraft || stored.contains(where: { $0.id == wanted }) {
              emit.action(.selectProject(wanted))
              isOpened = true
            }
          }
          let projects: [Project]
          do {
            projects = try await taskService.projects(forceRefresh: false)
          } catch {
            guard stored != nil, ErrorMessage.isOffline(error) else { throw error }
            return
          }
          emit(.setProjects(projects))
          // Opened from a project's task list (or a link): that project, once the user's
          // projects confirm it; one that is not among them is said, not ignored.
          guard let wanted, !isOpened, self?.currentState.projectID == nil || isDraft else {
            return
          }
          if isDraft || projects.contains(where: { $0.id == wanted }) {
            emit.action(.selectProject(wanted))
          } else {
            emit.event(
              .alert(
                title: "No such project",
                message:
                  "Project \(wanted) is not one of your projects: choose one from the list."))
          }
        }
        .catch { error in
          .event(.alert(title: "Could not load projects", message: ErrorMessage.text(for: error)))
        })
    case .selectProject(let projectID):
      keepDraft(after: .setProject(projectID))
      // The project's milestones, tags and members kept from an earlier launch show at once;
      // the server's replace them. Offline, the kept ones are enough to fill the form in.
      let stored = taskService.storedContext(projectID: projectID)?.value
      return .concat(
        .just(.setProject(projectID)),
        stored.map { .just(.setContext($0)) } ?? .none,
        .just(.setLoadingContext(true)),
        .task { .setContext(try await taskService.projectContext(projectID: projectID)) },
        .just(.setLoadingContext(false))
      )
      .catch { error in
        guard stored == nil || !ErrorMessage.isOffline(error) else {
          return .just(.setLoadingContext(false))
        }
        return .concat(
          .event(
            .alert(title: "Could not load the project", message: ErrorMessage.text(for: error))),
          .just(.setLoadingContext(false)))
      }
      .cancellable(id: ContextFetch.id, cancelInFlight: true)
    case .setTitle(let title): return edit(.setTitle(title))
    case .selectMilestone(let milestoneID): return edit(.setMilestone(milestoneID))
    case .toggleTag(let tagID): return edit(.toggleTag(tagID))
    case .toggleAssignee(let userID): return edit(.toggleAssignee(userID))
    case .setAttachmentPath(let path): return edit(.setAttachmentPath(path))
    case .attach:
      return attach(path: currentState.attachmentPath)
    case .removeAttachment(let fileID):
      // Taken off this task only: the uploaded file stays, and can be attached again.
      guard let file = currentState.attachments.first(where: { $0.id == fileID }) else {
        return .none
      }
      return .concat(
        edit(.removeAttachment(fileID)), .event(.toast("Removed \(file.title) from the task")))
    case .discardDraft:
      services.draftService.discard(Self.draftKey)
      return .none
    case .save:
      let state = currentState
      guard state.canSave, let projectID = state.projectID else { return .none }
      let draft = TaskDraft(
        projectID: projectID, title: state.title, milestoneID: state.milestoneID,
        tagIDs: state.tagIDs, assigneeIDs: state.assigneeIDs,
        attachmentIDs: state.attachments.map(\.id))
      if let problem = Self.titleLimit.problem(with: state.title) {
        return .concat(
          .just(.setFieldProblems(["title": problem])),
          .event(.alert(title: "Could not save the task", message: problem)))
      }
      let needsContext = !state.hasContext
      // The drafts of the user who saves: dropped there after the save, whatever the session
      // did meanwhile.
      let drafts = services.draftService.pinned()
      return .concat(
        .just(.setSaving(true)),
        .run { emit in
          // The project's context failed to arrive (the form was filled in offline): fetch it
          // now, so the permission is known before the task is sent.
          // Still offline: the task service keeps the task to send when the network returns
          // (with an outbox), and the server checks the permission then (a refusal comes back
          // as a notice, its text in it); without one, the save fails offline below.
          if needsContext {
            do {
              let context = try await taskService.projectContext(projectID: projectID)
              emit(.setContext(context))
              guard context.permissions.canCreateTasks else {
                emit.event(
                  .alert(
                    title: "Could not save the task",
                    message: "You cannot create tasks in this project."))
                return
              }
            } catch let error as ServiceError where error.kind == .offline {
              // (The permission is not known: the server decides.)
            }
          }
          let task = try await taskService.createTask(draft)
          drafts.discard(Self.draftKey)
          emit.event(.toast("Task created: \(task.title)"))
          emit.event(.saved)
        },
        .just(.setSaving(false))
      )
      .catch { error in
        let alert = Effect.event(
          Self.alert(
            title: "Could not save the task", for: error, offline: "The task was not saved."))
        // The fields a server's refusal names are marked (a state change only if there are).
        let problems = (error as? ServiceError)?.fields ?? [:]
        return .concat(
          problems.isEmpty ? .none : .just(.setFieldProblems(problems)), alert,
          .just(.setSaving(false)))
      }
    }
  }

  /// An edit: `mutation` now, and the form as it becomes kept as its draft.
  private func edit(_ mutation: Mutation) -> Effect {
    keepDraft(after: mutation)
    return .just(mutation)
  }

  /// Keeps the form as `mutation` leaves it as its draft (or drops the draft if that leaves no
  /// input). `reduce` is pure: applying it here only computes what the state will be.
  private func keepDraft(after mutation: Mutation) {
    let next = reduce(state: currentState, mutation: mutation)
    if next.hasUnsavedInput {
      services.draftService.keep(Draft(next), for: Self.draftKey)
    } else {
      services.draftService.discard(Self.draftKey)
    }
  }

  /// Seed 000's upload: indicator on, upload, append, indicator off; on error an alert and the
  /// indicator off.
  private func attach(path: String) -> Effect {
    let trimmed = path.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty, !currentState.isUploading else { return .none }
    let fileService = services.fileService
    let url = URL(fileURLWithPath: (trimmed as NSString).expandingTildeInPath)
    return .concat(
      .just(.setUploading(true)),
      .run { [weak self] emit in
        let attachment = try await fileService.upload(fileAt: url, progress: nil)
        self?.keepDraft(after: .appendAttachment(attachment))
        emit(.appendAttachment(attachment))
      },
      .just(.setUploading(false))
    )
    .catch { error in
      .concat(
        .event(
          Self.alert(
            title: "Upload failed", for: error, offline: "The file was not uploaded.",
            retry: "attach it again")),
        .just(.setUploading(false)))
    }
  }

  /// The longest title a task may have (the view's field and the save both use it).
  public static let titleLimit = FieldLimit("Title", maximumLength: 120)

  /// The form's fields as the user knows them, by the names the server uses.
  public static let fieldLabels = [
    "title": "Title", "milestoneID": "Milestone", "tagIDs": "Tags", "assigneeIDs": "Assignees",
    "attachmentIDs": "Attachments",
  ]

  /// The alert for a failed save or upload: offline, it says so and that the draft is kept.
  private static func alert(
    title: String, for error: any Error, offline: String, retry: String = "save again"
  ) -> Event {
    guard ErrorMessage.isOffline(error) else {
      return .alert(title: title, message: ErrorMessage.text(for: error, labels: fieldLabels))
    }
    let alert = ErrorMessage.offlineAlert(offline, retry: retry)
    return .alert(title: alert.title, message: alert.message)
  }

  /// Applies a mutation.
  public func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setProjects(let projects):
      state.projects = projects.map(Choice.init)
    case .setProject(let projectID):
      guard state.projectID != projectID else { break }
      state.projectID = projectID
      state.milestones = []
      state.tags = []
      state.members = []
      state.hasContext = false
      state.mayCreate = false
      state.milestoneID = nil
      state.tagIDs = []
      state.assigneeIDs = []
    case .setContext(let context):
      guard context.projectID == state.projectID else { break }
      state.milestones = context.milestones.map { Choice(id: $0.id, title: $0.name) }
      state.tags = context.tags.map { Choice(id: $0.id, title: $0.name) }
      state.members = context.members.map {
        Choice(id: $0.id, title: $0.displayName, detail: $0.role)
      }
      state.mayCreate = context.permissions.canCreateTasks
      state.hasContext = true
    case .renameMember(let id, let displayName):
      for index in state.members.indices where state.members[index].id == id {
        state.members[index].title = displayName
      }
    case .setLoadingContext(let isLoading): state.isLoadingContext = isLoading
    case .setTitle(let title):
      state.title = title
      state.fieldProblems["title"] = nil
    case .setMilestone(let milestoneID):
      state.milestoneID = milestoneID
      state.fieldProblems["milestoneID"] = nil
    case .toggleTag(let tagID):
      state.tagIDs.toggle(tagID)
      state.fieldProblems["tagIDs"] = nil
    case .toggleAssignee(let userID):
      state.assigneeIDs.toggle(userID)
      state.fieldProblems["assigneeIDs"] = nil
    case .setAttachmentPath(let path): state.attachmentPath = path
    case .setUploading(let isUploading): state.isUploading = isUploading
    case .appendAttachment(let attachment):
      state.attachments.append(
        Choice(id: attachment.id, title: attachment.name, detail: "\(attachment.size) bytes"))
      state.attachmentPath = ""
    case .removeAttachment(let fileID):
      state.attachments.removeAll { $0.id == fileID }
      state.fieldProblems["attachmentIDs"] = nil
    case .setSaving(let isSaving): state.isSaving = isSaving
    case .setFieldProblems(let problems): state.fieldProblems = problems
    case .restoreDraft(let draft):
      state.projectID = draft.projectID
      state.title = draft.title
      state.milestoneID = draft.milestoneID
      state.tagIDs = draft.tagIDs
      state.assigneeIDs = draft.assigneeIDs
      state.attachments = draft.files.map { Choice(id: $0.id, title: $0.name, detail: $0.detail) }
      state.attachmentPath = draft.attachmentPath ?? ""
    }
    return state
  }
}

extension Array where Element: Equatable {
  /// Removes `element` if present, else appends it.
  fileprivate mutating func toggle(_ element: Element) {
    if let index = firstIndex(of: element) { remove(at: index) } else { append(element) }
  }
}
