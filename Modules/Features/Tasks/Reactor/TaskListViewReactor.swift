import Foundation
import TrellisCore
import TrellisReactor
import TrellisService

/// A project's tasks, searched as the user types and loaded a page at a time; a task created,
/// changed or deleted elsewhere (a server event) refreshes the list, and one changed or deleted
/// in this app (``TaskService/changes``) changes its row at once, before the server answers; a
/// task created in this app (from any screen) brings the list to its project, loaded afresh.
///
/// - **Search**: each keystroke sets ``State/query`` at once; the search runs ``searchDelay``
///   after the last one (a debounce, on the injected clock), and the latest query wins: a new
///   search cancels the one in flight, and an answer for another query than the one typed is
///   dropped. An empty query shows the whole list at once.
/// - **Pages**: ``Action/loadMore`` (the view sends it when the cursor reaches the last row,
///   and from its "Load more" button) loads the page after the last one shown, never twice at
///   once, and not while a search is pending; a refresh reloads as many tasks as were shown (up
///   to ``refreshPageLimit`` pages), so the user keeps their place.
/// - **Offline** is a state, not an error: a load that cannot reach the server keeps the list as
///   it was, marked as not current (``State/staleNotice``), and the list reloads by itself when
///   the connection is live again. So does a list whose live connection dropped while it was
///   shown (``State/mayHaveMissedEvents``): what the server announced meanwhile may be lost (a
///   server that cannot replay it, or a stream restarted), and a reload loses nothing.
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
    /// Typed in the search field: its whole text.
    case search(String)
    /// Reached the end of the list, or tapped "Load more".
    case loadMore
    /// The server announced an event (merged from the connection service).
    case serverEvent(ServerEvent)
    /// This app changed a task (merged from the task service), or the server answered it.
    case taskChanged(TaskChange)
    /// The connection to the server changed (merged from the connection service).
    case connectionChanged(ConnectionState)
    /// The changes not sent yet changed (merged from the task service).
    case pendingChanged(PendingChanges)
  }

  /// State changes.
  public enum Mutation: Sendable, Equatable {
    /// The projects arrived.
    case setProjects([Project])
    /// The project shown.
    case setProject(Int)
    /// The search as typed.
    case setQuery(String)
    /// The first pages for `query` arrived: they replace the rows (unless another query was
    /// typed meanwhile).
    case setTasks(TaskPage, query: String)
    /// The page after `cursor` for `query` arrived: appended, unless the list changed since.
    case appendPage(TaskPage, after: String, query: String)
    /// Loading the first page started or ended.
    case setLoading(Bool)
    /// Loading the next page started or ended.
    case setLoadingMore(Bool)
    /// The list could not be loaded now (offline): why, or `nil` once it is current again.
    case setStale(String?)
    /// The first page as kept on the device (from an earlier launch), shown until the server
    /// answers, with its age (`as of 14:02`).
    case setStoredTasks(TaskPage, age: String)
    /// The live connection dropped (`true`), or the list was reloaded since (`false`).
    case setMayHaveMissedEvents(Bool)
    /// A task changed in this app: its row changes, goes or comes back.
    case apply(TaskChange)
    /// The changes not sent yet.
    case setPending(PendingChanges)
  }

  /// One-shot outputs: alerts and toasts, which the screen shows by itself.
  public typealias Event = ScreenEvent

  /// What the list shows.
  public struct State: Sendable, Equatable {
    /// The user's projects.
    public var projects: [Choice] = []
    /// The project shown.
    public var projectID: Int?
    /// The search field's text.
    public var query = ""
    /// The tasks loaded so far, newest first.
    public var tasks: [Choice] = []
    /// Where the next page starts; `nil` when every task is shown.
    public var nextCursor: String?
    /// Whether the first page is loading.
    public var isLoading = false
    /// Whether the next page is loading.
    public var isLoadingMore = false
    /// Set when the last load could not reach the server: the tasks shown (if any) are as
    /// last loaded, and they reload when the connection is back.
    public var staleNotice: String?
    /// Set when the live connection dropped while the list was shown: the server's events may
    /// have been missed since, so the list reloads when the connection is live again.
    public var mayHaveMissedEvents = false
    /// When the rows shown were stored on the device (`as of 14:02`), while they are not yet
    /// the server's answer; `nil` once they are.
    public var storedAge: String?
    /// The changes made here that the server has not confirmed yet.
    public var pending = PendingChanges()

    /// The rows as shown: a task with a change not sent yet says so.
    public var rows: [Choice] {
      guard !pending.taskIDs.isEmpty else { return tasks }
      return tasks.map { row in
        guard pending.taskIDs.contains(row.id) else { return row }
        var marked = row
        marked.detail = row.detail.isEmpty ? "not sent yet" : row.detail + " · not sent yet"
        return marked
      }
    }

    /// How many changes wait to be sent, when any do.
    public var pendingNotice: String? {
      switch pending.count {
      case 0: nil
      case 1: "1 change not sent yet: it is sent as soon as the server takes it."
      default:
        "\(pending.count) changes not sent yet: they are sent as soon as the server takes them."
      }
    }

    /// Whether more tasks than those shown match.
    public var hasMore: Bool { nextCursor != nil }

    /// The offline notice to show: the tasks shown are as last loaded, or, when none could be
    /// loaded (a project never opened before), that they could not be.
    public var offlineNotice: String? {
      guard let staleNotice else { return nil }
      guard tasks.isEmpty else {
        guard let storedAge else { return staleNotice }
        return "Offline: showing the tasks \(storedAge). They reload when the connection is back."
      }
      return "Offline: this project's tasks could not be loaded. They load when the connection "
        + "is back."
    }

    /// What the list says while it shows rows kept on the device and asks the server.
    public var storedNotice: String? {
      guard staleNotice == nil, let storedAge, !tasks.isEmpty else { return nil }
      return "Showing the tasks \(storedAge) while they load."
    }

    /// What the list says when it has no rows.
    public var emptyText: String {
      if isLoading { return "Loading…" }
      if staleNotice != nil { return "Not loaded (offline)." }
      let search = query.trimmingCharacters(in: .whitespacesAndNewlines)
      return search.isEmpty ? "No tasks yet." : "No task matches \"\(search)\"."
    }

    /// The state before anything happened.
    public init() {}
  }

  /// How long the search waits after a keystroke, so one search runs per pause in typing.
  public static let searchDelay: Duration = .milliseconds(300)
  /// The longest search the server takes.
  public static let queryLimit = FieldLimit("Search", maximumLength: 100)
  /// The most pages a refresh reloads to keep the user's place (a bound on its requests).
  public static let refreshPageLimit = 10

  /// Nothing loaded.
  public let initialState = State()
  /// The runtime.
  public let runtime = ReactorRuntime<TaskListViewReactor>()
  private let services: any TaskListViewServiceProvider
  private let clock: any Clock<Duration>
  private let ageText: AgeText

  /// The identity of the first-page load: a new search, project or refresh replaces it.
  enum TaskLoad: Hashable, Sendable { case id }
  /// The identity of the next-page load: cancelled when the list is loaded afresh.
  enum PageLoad: Hashable, Sendable { case id }

  /// Creates the reactor; `clock` times the search's debounce (a test clock in tests).
  ///
  /// `ageText` says when rows kept on the device were stored (a fixed time zone in tests).
  public init(
    serviceProvider: any TaskListViewServiceProvider,
    clock: any Clock<Duration> = ContinuousClock(), ageText: AgeText = AgeText()
  ) {
    services = serviceProvider
    self.clock = clock
    self.ageText = ageText
  }

  /// Server events, this app's task changes and connection changes come in as actions.
  public func transform(action: ReactorStream<Action>) -> ReactorStream<Action> {
    action
      .merge(services.connectionService.events.events) { .serverEvent($0) }
      .merge(services.taskService.changes.events) { .taskChanged($0) }
      .merge(services.connectionService.state.changes) { .connectionChanged($0) }
      .merge(services.taskService.pending.changes) { .pendingChanged($0) }
  }

  /// Loads projects, pages and searches; applies changes.
  public func mutate(action: Action) -> Effect {
    let taskService = services.taskService
    let state = currentState
    switch action {
    case .load:
      // The changes waiting since before the screen (later ones come in as actions).
      let pending = taskService.pending.value
      return .concat(
        pending == state.pending ? .none : .just(.setPending(pending)),
        storedStart(),
        .just(.setLoading(true)),
        .run { [weak self] emit in
          let projects = try await taskService.projects(forceRefresh: false)
          emit(.setProjects(projects))
          // The project shown (the one the list opened from the device) if it is still the
          // user's, else the first.
          let shown = self?.currentState.projectID
          let chosen = projects.contains { $0.id == shown } ? shown : projects.first?.id
          // Loaded unless its rows are the server's already (none from the device, or none
          // kept at all: the project opened with no rows).
          let hasServerRows =
            self.map { $0.currentState.storedAge == nil && !$0.currentState.tasks.isEmpty }
            ?? false
          if let chosen, chosen != shown || !hasServerRows {
            // Still loading: the project's tasks end it (no "No tasks yet." meanwhile).
            emit.action(.selectProject(chosen))
          } else {
            emit(.setLoading(false))
          }
        }
      )
      .catch { error in Self.failure(error) }
    case .selectProject(let projectID):
      let stored =
        state.projectID != projectID || state.tasks.isEmpty
        ? storedPage(projectID) : .none
      return .concat(
        .just(.setProject(projectID)), stored, loadTasks(projectID, forceRefresh: false))
    case .refresh:
      guard let projectID = state.projectID else { return .none }
      return loadTasks(projectID, forceRefresh: true, keeping: state.tasks.count)
    case .search(let text):
      let changesResults = Self.searchText(text) != Self.searchText(state.query)
      guard changesResults, let projectID = state.projectID else { return .just(.setQuery(text)) }
      // Typing more waits for a pause; clearing the field shows the list at once.
      let delay = Self.searchText(text).isEmpty ? Duration.zero : Self.searchDelay
      return .concat(
        .just(.setQuery(text)),
        loadTasks(projectID, matching: text, forceRefresh: false, after: delay))
    case .loadMore:
      guard let projectID = state.projectID, let cursor = state.nextCursor, !state.isLoading,
        !state.isLoadingMore
      else { return .none }
      return loadPage(projectID, after: cursor, query: Self.searchText(state.query))
    case .serverEvent(.taskCreated(let task)), .serverEvent(.taskUpdated(let task)),
      .serverEvent(.taskDeleted(let task)):
      // Created, changed or deleted elsewhere: the list shown is reloaded from the server.
      guard task.projectID == state.projectID else { return .none }
      return loadTasks(task.projectID, forceRefresh: true, keeping: state.tasks.count)
    case .serverEvent(.sessionRevoked):
      return .none
    case .taskChanged(.created(let task)) where task.isUnsaved:
      // Created here and not saved yet (offline): on top of its project's list at once; the
      // server's task replaces it once sent.
      guard task.projectID == state.projectID else {
        // Its project, as kept on the device (with the changes waiting, this one too).
        return .concat(
          .just(.setProject(task.projectID)), storedPage(task.projectID),
          .just(.apply(.created(task))))
      }
      return .just(.apply(.created(task)))
    case .taskChanged(.created(let task)):
      // Created in this app (from "New task" here or elsewhere): its project, loaded afresh.
      return .concat(
        .just(.setProject(task.projectID)), loadTasks(task.projectID, forceRefresh: true))
    case .taskChanged(let change):
      return .just(.apply(change))
    case .connectionChanged(.online):
      // Live again: a list that could not be loaded while offline loads now, and one shown
      // while the connection was down reloads (the events of the outage may be lost).
      guard state.staleNotice != nil || state.mayHaveMissedEvents else { return .none }
      let caughtUp = Effect.just(.setMayHaveMissedEvents(false))
      // A load under way brings the list up to date already.
      guard !state.isLoading else { return caughtUp }
      guard let projectID = state.projectID else { return .concat(caughtUp, mutate(action: .load)) }
      return .concat(caughtUp, loadTasks(projectID, forceRefresh: true, keeping: state.tasks.count))
    case .connectionChanged(.offline), .connectionChanged(.reconnecting):
      guard !state.mayHaveMissedEvents else { return .none }
      return .just(.setMayHaveMissedEvents(true))
    case .connectionChanged(.connecting):
      // The first connection since sign-in: nothing was live before it.
      return .none
    case .pendingChanged(let pending):
      return pending == state.pending ? .none : .just(.setPending(pending))
    }
  }

  /// What the list shows at once from the device, before the server answers: the projects,
  /// and the tasks of the project shown last (the list opens on it), with their age.
  private func storedStart() -> Effect {
    let taskService = services.taskService
    guard currentState.projects.isEmpty, let projects = taskService.storedProjects()?.value,
      !projects.isEmpty
    else { return .none }
    guard currentState.projectID == nil,
      let last = taskService.lastShownProjectID(among: projects) ?? projects.first?.id
    else { return .just(.setProjects(projects)) }
    return .concat(.just(.setProjects(projects)), .just(.setProject(last)), storedPage(last))
  }

  /// The project's first page as kept on the device, if any, with its age.
  private func storedPage(_ projectID: Int) -> Effect {
    guard Self.searchText(currentState.query).isEmpty,
      let page = services.taskService.storedTasks(projectID: projectID)
    else { return .none }
    return .just(.setStoredTasks(page.value, age: ageText.asOf(page.storedAt)))
  }

  /// What a search looks for: the text without surrounding spaces.
  static func searchText(_ text: String) -> String {
    text.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Loads the first page for `text` (by default the query as typed) after `delay`, replacing
  /// the load in flight; a refresh loads pages until it has at least `count` tasks, so the
  /// user keeps their place.
  private func loadTasks(
    _ projectID: Int, matching text: String? = nil, forceRefresh: Bool, keeping count: Int = 0,
    after delay: Duration = .zero
  ) -> Effect {
    let taskService = services.taskService
    let clock = clock
    let query = Self.searchText(text ?? currentState.query)
    // A next page in flight would continue the list this load replaces.
    let stopsPageLoad: Effect =
      currentState.isLoadingMore
      ? .concat(.cancel(id: PageLoad.id), .just(.setLoadingMore(false))) : .none
    return .concat(
      stopsPageLoad,
      .run { emit in
        if delay > .zero { try await clock.sleep(for: delay) }
        emit(.setLoading(true))
        var page = try await taskService.tasks(
          projectID: projectID, matching: query, after: nil, forceRefresh: forceRefresh)
        var tasks = page.tasks
        var pages = 1
        while tasks.count < count, let cursor = page.nextCursor, pages < Self.refreshPageLimit {
          page = try await taskService.tasks(
            projectID: projectID, matching: query, after: cursor, forceRefresh: forceRefresh)
          tasks += page.tasks
          pages += 1
        }
        emit(.setTasks(TaskPage(tasks: tasks, nextCursor: page.nextCursor), query: query))
        emit(.setLoading(false))
      }
      .catch { error in Self.failure(error) }
      .cancellable(id: TaskLoad.id, cancelInFlight: true)
    )
  }

  /// Loads the page after `cursor`.
  private func loadPage(_ projectID: Int, after cursor: String, query: String) -> Effect {
    let taskService = services.taskService
    return .concat(
      .just(.setLoadingMore(true)),
      .task {
        .appendPage(
          try await taskService.tasks(
            projectID: projectID, matching: query, after: cursor, forceRefresh: false),
          after: cursor, query: query)
      },
      .just(.setLoadingMore(false))
    )
    .catch { error in
      let message =
        ErrorMessage.isOffline(error)
        ? "Offline: no more tasks can be loaded until the connection is back."
        : ErrorMessage.text(for: error)
      return .concat(
        .event(.alert(title: "Could not load more tasks", message: message)),
        .just(.setLoadingMore(false)))
    }
    .cancellable(id: PageLoad.id)
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
    var details = [task.isUnsaved ? "new" : "#\(task.id)"]
    if task.isDone { details.append("done") }
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
      state.projects = projects.map(Choice.init)
    case .setProject(let projectID):
      if state.projectID != projectID {
        state.tasks = []
        state.nextCursor = nil
        state.storedAge = nil
      }
      state.projectID = projectID
    case .setStoredTasks(let page, let age):
      // Only into an empty list: rows the server gave are never replaced by older ones.
      guard state.tasks.isEmpty else { break }
      state.tasks = page.tasks.map(Self.row)
      state.nextCursor = page.nextCursor
      state.storedAge = age
    case .setQuery(let query):
      // A search that will change the rows ends the list's paging: no page of the old list
      // (or of the new query after the old list's cursor) is loaded before its answer.
      if Self.searchText(query) != Self.searchText(state.query) { state.nextCursor = nil }
      state.query = query
    case .setTasks(let page, let query):
      // An answer for a search the user has typed past never lands.
      guard query == Self.searchText(state.query) else { break }
      state.tasks = page.tasks.map(Self.row)
      state.nextCursor = page.nextCursor
      state.staleNotice = nil
      state.storedAge = nil
    case .appendPage(let page, let cursor, let query):
      // Only onto the list it continues (not one reloaded or searched since).
      guard query == Self.searchText(state.query), cursor == state.nextCursor else { break }
      let shown = Set(state.tasks.map(\.id))
      state.tasks += page.tasks.filter { !shown.contains($0.id) }.map(Self.row)
      state.nextCursor = page.nextCursor
    case .setLoading(let isLoading): state.isLoading = isLoading
    case .setLoadingMore(let isLoading): state.isLoadingMore = isLoading
    case .setStale(let notice): state.staleNotice = notice
    case .setMayHaveMissedEvents(let missed): state.mayHaveMissedEvents = missed
    case .apply(.updated(let task)):
      if let index = state.tasks.firstIndex(where: { $0.id == task.id }) {
        state.tasks[index] = Self.row(task)
      }
    case .apply(.removed(let task)):
      state.tasks.removeAll { $0.id == task.id }
    case .apply(.restored(let task)):
      // Back where it was: the list is newest (highest id) first.
      guard task.projectID == state.projectID, !state.tasks.contains(where: { $0.id == task.id })
      else { break }
      let index = state.tasks.firstIndex { $0.id < task.id } ?? state.tasks.endIndex
      state.tasks.insert(Self.row(task), at: index)
    case .apply(.created(let task)):
      // One not saved yet goes on top (`mutate` reloads the project for a saved one).
      guard task.isUnsaved, task.projectID == state.projectID,
        !state.tasks.contains(where: { $0.id == task.id })
      else { break }
      state.tasks.insert(Self.row(task), at: 0)
    case .apply(.replaced(let temporaryID, let task)):
      // Saved: the server's task in the place of the one shown since it was made offline.
      if let index = state.tasks.firstIndex(where: { $0.id == temporaryID }) {
        state.tasks[index] = Self.row(task)
      }
    case .setPending(let pending):
      state.pending = pending
    }
    return state
  }
}
