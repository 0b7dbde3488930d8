import TasksFeature
import TrellisFront
import TrellisReactor

/// One task in full (Enter on a task in the list, or a `trellis://tasks/<id>` link), with its
/// buttons: mark done, rename (a title field opens), delete (after a question).
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

  /// Shows alerts and toasts; closes once the task is deleted.
  public override func handle(event: TaskDetailViewReactor.Event) {
    switch event {
    case .alert(let title, let message): presentAlert(title: title, message: message)
    case .toast(let message): presentToast(message)
    case .deleted: navigationController?.pop()
    }
  }

  /// A title typed and not saved asks before Esc throws it away.
  public override var unsavedChangesWarning: String? {
    reactor.currentState.hasUnsavedTitle ? "The new title you typed will be lost." : nil
  }

  /// A title being typed is kept as a draft (the field opens again at the next launch):
  /// quitting loses nothing.
  public override var keepsInputOnQuit: Bool { true }

  /// Left within the app (back after the window asked, deleted, signed out): a title being
  /// typed goes with the screen.
  public override func didLeave() {
    if reactor.currentState.titleDraft != nil { reactor.send(.cancelRename) }
    super.didLeave()
  }

  /// The task's fields and what can be done to it.
  public override func body() -> [Element] {
    let reactor = reactor
    guard let detail = state.detail else {
      guard let failure = state.failure else { return [.spinner("Loading the task…")] }
      // Not loaded: what the list showed of it, why, and a way to try again.
      var elements: [Element] = []
      if let preview = state.preview {
        elements += [
          .heading(preview.title), .text("Status: \(preview.isDone ? "Done" : "Open")"), .spacer,
        ]
      }
      elements.append(.text(failure, style: .warning))
      if state.isOffline {
        elements.append(
          .button(
            Button("Retry", isEnabled: !state.isLoading, isDefault: true) { reactor.send(.load) }))
      }
      if state.isLoading { elements.append(.spinner("Loading the task…")) }
      return elements
    }
    func list(_ names: [String]) -> String { names.isEmpty ? "—" : names.joined(separator: ", ") }
    // A task kept from an earlier launch says so (no spinner over it), and, when it could not
    // be loaded, offers to try again.
    var notice: [Element] =
      state.storedNotice.map {
        [.text($0, style: state.failure == nil ? .dim : .warning)]
      } ?? []
    if state.storedAge != nil, state.failure != nil {
      notice.append(
        .button(Button("Retry", isEnabled: !state.isLoading) { reactor.send(.load) }))
    }
    if let pending = state.pendingNotice { notice.append(.text(pending, style: .dim)) }
    var elements: [Element] =
      notice + [
        .heading(detail.title),
        .text("Status: \(detail.isDone ? "Done" : "Open")"),
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
        .spacer,
      ]
    let isIdle = !state.isSaving
    if let draft = state.titleDraft {
      elements.append(
        .field(
          TextField(
            id: "title", label: "New title", text: draft,
            maximumLength: TaskDetailViewReactor.titleLimit.maximumLength,
            onChange: { reactor.send(.editTitle($0)) }, onSubmit: { reactor.send(.saveTitle) })))
      if let problem = state.titleProblem { elements.append(.text(problem, style: .warning)) }
      elements += [
        .button(Button("Save title", isEnabled: isIdle) { reactor.send(.saveTitle) }),
        .button(Button("Cancel") { reactor.send(.cancelRename) }),
      ]
    } else if state.isConfirmingDelete {
      elements += [
        .text("Delete \"\(detail.title)\"? This cannot be undone.", style: .warning),
        .button(Button("Delete task", isEnabled: isIdle) { reactor.send(.confirmDelete) }),
        // The safe answer has the focus: Enter pressed twice does not delete.
        .button(Button("Keep it", isDefault: true) { reactor.send(.cancelDelete) }),
      ]
    } else {
      elements += [
        .button(
          Button(detail.isDone ? "Mark not done" : "Mark done", isEnabled: isIdle) {
            reactor.send(.toggleDone)
          }),
        .button(Button("Rename", isEnabled: isIdle) { reactor.send(.startRename) }),
        .button(Button("Delete", isEnabled: isIdle) { reactor.send(.delete) }),
      ]
    }
    if state.isSaving { elements.append(.spinner("Saving…")) }
    return elements
  }
}
