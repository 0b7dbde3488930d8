import TrellisReactor

/// One task in full (Enter on a task in the list, or a `trellis://tasks/<id>` link).
@MainActor
public final class TaskDetailViewController: ReactorViewController<TaskDetailViewReactor> {
  /// Creates the screen.
  public init(reactor: TaskDetailViewReactor) {
    super.init(reactor: reactor, title: "Task #\(reactor.currentState.taskID)")
  }

  /// Loads the task.
  public override func viewDidAttach() {
    reactor.send(.load)
  }

  /// The task's fields.
  public override func body() -> [Element] {
    let reactor = reactor
    if let failure = state.failure { return [.text(failure, style: .warning)] }
    guard let detail = state.detail else { return [.spinner("Loading the task…")] }
    func list(_ names: [String]) -> String { names.isEmpty ? "—" : names.joined(separator: ", ") }
    return [
      .heading(detail.title),
      .text("Project: \(detail.project)"),
      .text("Milestone: \(detail.milestone ?? "—")"),
      .text("Tags: \(list(detail.tags))"),
      .text("Assignees: \(list(detail.assignees))"),
      .spacer,
      .list(
        ListBox(
          id: "attachments", title: "Attachments",
          items: detail.attachments.map { ListItem($0.title, detail: $0.detail) },
          emptyText: "No attachments.",
          onSelect: { reactor.send(.openAttachment(detail.attachments[$0].id)) })),
    ]
  }
}
