import TasksFeature
import TrellisFront
import TrellisReactor

/// A project's tasks: choose a project, search its tasks as you type, page through them
/// (moving onto the last row loads more, as "Load more" does), open one, or start a new one.
@MainActor
public final class TaskListViewController: ReactorViewController<TaskListViewReactor> {
  private let provider: any TaskListViewControllerProvider

  /// Creates the screen.
  public init(
    reactor: TaskListViewReactor, viewControllerProvider: any TaskListViewControllerProvider
  ) {
    provider = viewControllerProvider
    super.init(reactor: reactor, title: "Tasks")
  }

  /// Loads the projects.
  public override func viewDidAttach() {
    reactor.send(.load)
  }

  /// The project list, the search, the task list and the buttons.
  public override func body() -> [Element] {
    let reactor = reactor
    let projects = state.projects
    let tasks = state.rows
    var elements: [Element] = []
    if let notice = state.offlineNotice { elements += [.text(notice, style: .warning), .spacer] }
    if let notice = state.pendingNotice { elements += [.text(notice, style: .dim), .spacer] }
    if let notice = state.storedNotice { elements += [.text(notice, style: .dim), .spacer] }
    elements += [
      .list(
        ListBox(
          id: "project", title: "Project",
          items: projects.map {
            ListItem($0.title, detail: $0.detail, isSelected: $0.id == state.projectID)
          },
          emptyText: state.isLoading ? "Loading…" : "No projects.",
          onSelect: { reactor.send(.selectProject(projects[$0].id)) })),
      .spacer,
      .field(
        TextField(
          id: "search", label: "Search", text: state.query,
          maximumLength: TaskListViewReactor.queryLimit.maximumLength,
          onChange: { reactor.send(.search($0)) })),
      .list(
        ListBox(
          id: "tasks", title: "Tasks",
          items: tasks.map { ListItem($0.title, detail: $0.detail, key: "\($0.id)") },
          emptyText: state.emptyText,
          onSelect: { [weak self] in self?.openTask(tasks[$0].id) },
          onReachEnd: { reactor.send(.loadMore) })),
    ]
    if state.isLoadingMore {
      elements.append(.spinner("Loading more tasks…"))
    } else if state.hasMore {
      elements.append(.button(Button("Load more") { reactor.send(.loadMore) }))
    }
    elements += [
      .spacer,
      .button(Button("New task") { [weak self] in self?.openCompose() }),
      .button(Button("Refresh", isEnabled: state.projectID != nil) { reactor.send(.refresh) }),
    ]
    // (Rows kept on the device say so above: no spinner over them.)
    if state.isLoading, state.storedAge == nil { elements.append(.spinner("Loading tasks…")) }
    return elements
  }

  /// The task in full.
  private func openTask(_ taskID: Int) {
    navigationController?.push(provider.makeTaskDetailViewController(taskID: taskID))
  }

  /// The form, with this list's project chosen.
  private func openCompose() {
    navigationController?.push(provider.makeTaskComposeViewController(projectID: state.projectID))
  }
}
