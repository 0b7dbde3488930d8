import TrellisCore
import TrellisService

/// A project's tasks; a task created elsewhere (a server event) refreshes the list.
///
/// Offline is a state, not an error: a load that cannot reach the server keeps the list as it
/// was, marked as not current (``State/staleNotice``), instead of emptying it behind an alert,
/// and the list reloads by itself when the connection is live again.
@MainActor
public final class TaskListViewReactor: ReactorProtocol {
  /// What happens to the list.
  public enum Action: Sendable, Equatable {
    /// The screen appeared: load the projects and the first project's tasks.
    case load
    /// Chose a project.
    case selectProject(Int)
    /// Tapped "Refresh".
    case refresh
    /// A task was created in this project (from this list's "New task"): show the project,
    /// its tasks loaded afresh.
    case showCreatedTask(projectID: Int)
    /// The server announced an event (merged from the connection service).
    case serverEvent(ServerEvent)
    /// The connection to the server changed (merged from the connection service).
    case connectionChanged(ConnectionState)
  }

  /// State changes.
  public enum Mutation: Sendable, Equatable {
    /// The projects arrived.
    case setProjects([Project])
    /// The project shown.
    case setProject(Int)
    /// The project's tasks arrived.
    case setTasks([TaskItem])
    /// Loading started or ended.
    case setLoading(Bool)
    /// The list could not be loaded now (offline): why, or `nil` once it is current again.
    case setStale(String?)
  }

  /// One-shot outputs: alerts and toasts, which the screen shows by itself.
  public typealias Event = ScreenEvent

  /// What the list shows.
  public struct State: Sendable, Equatable {
    /// The user's projects.
    public var projects: [Choice] = []
    /// The project shown.
    public var projectID: Int?
    /// Its tasks, newest first.
    public var tasks: [Choice] = []
    /// Whether a load is in flight.
    public var isLoading = false
    /// Set when the last load could not reach the server: the tasks shown (if any) are as
    /// last loaded, and they reload when the connection is back.
    public var staleNotice: String?

    /// The state before anything happened.
    public init() {}
  }

  /// Nothing loaded.
  public let initialState = State()
  /// The runtime.
  public let runtime = ReactorRuntime<TaskListViewReactor>()
  private let services: any TaskListViewServiceProvider

  /// The identity of the task load, so that choosing another project cancels the previous load.
  enum TaskLoad: Hashable, Sendable { case id }

  /// Creates the reactor.
  public init(serviceProvider: any TaskListViewServiceProvider) {
    services = serviceProvider
  }

  /// Server events and connection changes come in as actions.
  public func transform(action: ReactorStream<Action>) -> ReactorStream<Action> {
    action
      .merge(services.connectionService.events.events) { .serverEvent($0) }
      .merge(services.connectionService.state.changes) { .connectionChanged($0) }
  }

  /// Loads projects and tasks.
  public func mutate(action: Action) -> Effect {
    let taskService = services.taskService
    switch action {
    case .load:
      return .concat(
        .just(.setLoading(true)),
        .run { [weak self] send in
          let projects = try await taskService.projects(forceRefresh: false)
          send(.setProjects(projects))
          if let first = projects.first, self?.currentState.projectID == nil {
            // Still loading: the first project's tasks end it (no "No tasks yet." meanwhile).
            send.action(.selectProject(first.id))
          } else {
            send(.setLoading(false))
          }
        }
      )
      .catch { error in Self.failure(error) }
    case .selectProject(let projectID):
      return .concat(.just(.setProject(projectID)), loadTasks(projectID, forceRefresh: false))
    case .refresh:
      guard let projectID = currentState.projectID else { return .none }
      return loadTasks(projectID, forceRefresh: true)
    case .showCreatedTask(let projectID):
      return .concat(.just(.setProject(projectID)), loadTasks(projectID, forceRefresh: true))
    case .serverEvent(.taskCreated(let task)), .serverEvent(.taskUpdated(let task)),
      .serverEvent(.taskDeleted(let task)):
      // Created, changed or deleted elsewhere: the list shown is reloaded from the server.
      guard task.projectID == currentState.projectID else { return .none }
      return loadTasks(task.projectID, forceRefresh: true)
    case .serverEvent(.sessionRevoked):
      return .none
    case .connectionChanged(.online):
      // Live again: a list that could not be loaded while offline loads now.
      guard currentState.staleNotice != nil, !currentState.isLoading else { return .none }
      guard let projectID = currentState.projectID else { return mutate(action: .load) }
      return loadTasks(projectID, forceRefresh: true)
    case .connectionChanged:
      return .none
    }
  }

  private func loadTasks(_ projectID: Int, forceRefresh: Bool) -> Effect {
    let taskService = services.taskService
    return .concat(
      .just(.setLoading(true)),
      .task {
        .setTasks(try await taskService.tasks(projectID: projectID, forceRefresh: forceRefresh))
      },
      .just(.setLoading(false))
    )
    .catch { error in Self.failure(error) }
    .cancellable(id: TaskLoad.id, cancelInFlight: true)
  }

  /// Offline, the list stays as it is, marked as not current; other failures are alerts.
  private static func failure(_ error: any Error) -> Effect {
    guard !ErrorMessage.isOffline(error) else {
      return .concat(
        .just(
          .setStale(
            "Offline: showing the tasks as last loaded. They reload when the connection is back.")),
        .just(.setLoading(false)))
    }
    return .concat(
      .event(.alert(title: "Could not load tasks", message: ErrorMessage.text(for: error))),
      .just(.setLoading(false)))
  }

  /// A task as the list shows it.
  static func row(_ task: TaskItem) -> Choice {
    var details = ["#\(task.id)"]
    if !task.attachments.isEmpty {
      details.append(
        "\(task.attachments.count) attachment\(task.attachments.count == 1 ? "" : "s")")
    }
    return Choice(id: task.id, title: task.title, detail: details.joined(separator: " · "))
  }

  /// Applies a mutation.
  public func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setProjects(let projects):
      state.projects = projects.map { Choice(id: $0.id, title: $0.name, detail: $0.key) }
    case .setProject(let projectID):
      if state.projectID != projectID { state.tasks = [] }
      state.projectID = projectID
    case .setTasks(let tasks):
      state.tasks = tasks.map(Self.row)
      state.staleNotice = nil
    case .setLoading(let isLoading): state.isLoading = isLoading
    case .setStale(let notice): state.staleNotice = notice
    }
    return state
  }
}
