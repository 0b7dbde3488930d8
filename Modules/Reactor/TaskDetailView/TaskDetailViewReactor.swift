import TrellisCore
import TrellisService

/// One task in full: its title, project, milestone, tags, assignees and attachments, with the
/// project's names for them. Opened from the task list or by a link (`trellis://tasks/<id>`).
@MainActor
public final class TaskDetailViewReactor: ReactorProtocol {
  /// What happens to the screen.
  public enum Action: Sendable, Equatable {
    /// The screen appeared: load the task.
    case load
    /// Chose an attachment (by its file id): the screen says what it is.
    case openAttachment(Int)
  }

  /// State changes.
  public enum Mutation: Sendable, Equatable {
    /// Loading started or ended.
    case setLoading(Bool)
    /// The task arrived, with its project's names.
    case setDetail(TaskDetail)
    /// The task could not be loaded.
    case setFailure(String)
  }

  /// One-shot outputs: alerts and toasts, which the screen shows by itself.
  public typealias Event = ScreenEvent

  /// A task as the screen shows it.
  public struct TaskDetail: Sendable, Equatable {
    /// Its title.
    public var title: String
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
      title: String, project: String, milestone: String? = nil, tags: [String] = [],
      assignees: [String] = [], attachments: [Choice] = []
    ) {
      self.title = title
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
    /// Whether it is loading.
    public var isLoading = false
    /// Why it could not be loaded.
    public var failure: String?

    /// The state before anything happened.
    public init(taskID: Int) {
      self.taskID = taskID
    }
  }

  /// Nothing loaded.
  public let initialState: State
  /// The runtime.
  public let runtime = ReactorRuntime<TaskDetailViewReactor>()
  private let services: any TaskDetailViewServiceProvider

  /// Creates the reactor for the task `taskID`.
  public init(serviceProvider: any TaskDetailViewServiceProvider, taskID: Int) {
    services = serviceProvider
    initialState = State(taskID: taskID)
  }

  /// Loads the task, then its project's names.
  public func mutate(action: Action) -> Effect {
    switch action {
    case .load:
      let taskService = services.taskService
      let taskID = currentState.taskID
      return .concat(
        .just(.setLoading(true)),
        .task { .setDetail(try await Self.detail(of: taskID, from: taskService)) },
        .just(.setLoading(false))
      )
      .catch { error in
        .concat(.just(.setFailure(ErrorMessage.text(for: error))), .just(.setLoading(false)))
      }
    case .openAttachment(let fileID):
      // A terminal cannot show the file: it says what it is.
      guard let file = currentState.detail?.attachments.first(where: { $0.id == fileID }) else {
        return .none
      }
      return .event(.alert(title: file.title, message: "\(file.detail) (file \(file.id))."))
    }
  }

  /// The task with the names of its project, milestone, tags and assignees.
  static func detail(of taskID: Int, from taskService: any TaskService) async throws(ServiceError)
    -> TaskDetail
  {
    let task = try await taskService.task(id: taskID)
    let projects = try await taskService.projects(forceRefresh: false)
    let context = try await taskService.projectContext(projectID: task.projectID)
    let tags = Dictionary(context.tags.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
    let members = Dictionary(
      context.members.map { ($0.id, $0.displayName) }, uniquingKeysWith: { a, _ in a })
    return TaskDetail(
      title: task.title,
      project: projects.first { $0.id == task.projectID }?.name ?? "Project \(task.projectID)",
      milestone: task.milestoneID.flatMap { id in context.milestones.first { $0.id == id }?.name },
      tags: task.tagIDs.map { tags[$0] ?? "#\($0)" },
      assignees: task.assigneeIDs.map { members[$0] ?? "User \($0)" },
      attachments: task.attachments.map {
        Choice(id: $0.id, title: $0.name, detail: "\($0.size) bytes · \($0.contentType)")
      })
  }

  /// Applies a mutation.
  public func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setLoading(let isLoading): state.isLoading = isLoading
    case .setDetail(let detail):
      state.detail = detail
      state.failure = nil
    case .setFailure(let message): state.failure = message
    }
    return state
  }
}
