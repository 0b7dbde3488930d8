import TasksFeature
import TrellisFront
import TrellisReactor

/// The task form (seed 000): choose a project (its milestones, tags and members follow), type a
/// title, attach files, save.
@MainActor
public final class TaskComposeViewController: ReactorViewController<TaskComposeViewReactor> {
  /// Creates the screen.
  public init(reactor: TaskComposeViewReactor) {
    super.init(reactor: reactor, title: "New task")
  }

  /// Shows alerts and toasts; closes when saved.
  public override func handle(event: TaskComposeViewReactor.Event) {
    switch event {
    case .alert(let title, let message): presentAlert(title: title, message: message)
    case .toast(let message): presentToast(message)
    case .saved: navigationController?.pop()
    }
  }

  /// A form with input asks before Esc throws it away.
  public override var unsavedChangesWarning: String? {
    reactor.currentState.hasUnsavedInput ? "The task you are writing will be lost." : nil
  }

  /// Kept as a draft as it is typed (restored at the next launch): quitting loses nothing.
  public override var keepsInputOnQuit: Bool { true }

  /// Loads the projects (and the draft a quit or a crash left).
  public override func viewDidAttach() {
    reactor.send(.load)
  }

  /// Left within the app (saved, or discarded after the window asked): the draft goes.
  public override func didLeave() {
    reactor.send(.discardDraft)
    super.didLeave()
  }

  /// The form.
  public override func body() -> [Element] {
    let reactor = reactor
    let state = state
    var elements: [Element] = [
      .list(
        ListBox(
          id: "project", title: "Project",
          items: state.projects.map {
            ListItem($0.title, detail: $0.detail, isSelected: $0.id == state.projectID)
          },
          emptyText: "Loading projects…",
          onSelect: { reactor.send(.selectProject(state.projects[$0].id)) }))
    ]
    if state.isLoadingContext {
      elements.append(.spinner("Loading milestones, tags, members and permissions…"))
    } else if state.hasContext && !state.mayCreate {
      elements.append(
        .text("You can view this project but not create tasks in it.", style: .warning))
    }
    elements += [
      .spacer,
      .field(
        TextField(
          id: "title", label: "Title", text: state.title,
          maximumLength: TaskComposeViewReactor.titleLimit.maximumLength,
          onChange: { reactor.send(.setTitle($0)) })),
    ]
    elements += problem(with: "title")
    if state.hasContext {
      let milestones = state.milestones
      elements += [
        .list(
          ListBox(
            id: "milestone", title: "Milestone",
            items: milestones.map { ListItem($0.title, isSelected: $0.id == state.milestoneID) },
            emptyText: "No milestones.",
            onSelect: { index in
              let id = milestones[index].id
              reactor.send(.selectMilestone(state.milestoneID == id ? nil : id))
            })),
        .checklist(
          CheckList(
            id: "tags", title: "Tags",
            items: state.tags.map { ListItem($0.title, isSelected: state.tagIDs.contains($0.id)) },
            onToggle: { reactor.send(.toggleTag(state.tags[$0].id)) })),
        .checklist(
          CheckList(
            id: "assignees", title: "Assignees",
            items: state.members.map {
              ListItem($0.title, detail: $0.detail, isSelected: state.assigneeIDs.contains($0.id))
            },
            onToggle: { reactor.send(.toggleAssignee(state.members[$0].id)) })),
      ]
      elements += ["milestoneID", "tagIDs", "assigneeIDs"].flatMap(problem)
    }
    elements += [
      .spacer,
      .text(
        "Attachments: "
          + (state.attachments.isEmpty
            ? "none" : state.attachments.map(\.title).joined(separator: ", "))),
      .field(
        TextField(
          id: "file", label: "File path", text: state.attachmentPath,
          onChange: { reactor.send(.setAttachmentPath($0)) }, onSubmit: { reactor.send(.attach) })),
      .button(
        Button("Attach", isEnabled: !state.isUploading && !state.attachmentPath.isEmpty) {
          reactor.send(.attach)
        }),
    ]
    if !state.attachments.isEmpty {
      // Enter on one takes it off the draft (`select remove <name>` in scripts).
      let attachments = state.attachments
      elements.append(
        .list(
          ListBox(
            id: "remove", title: "Remove an attachment",
            items: attachments.map { ListItem($0.title, detail: $0.detail) },
            onSelect: { reactor.send(.removeAttachment(attachments[$0].id)) })))
    }
    elements += problem(with: "attachmentIDs")
    if state.isUploading { elements.append(.spinner("Uploading…")) }
    elements += [
      .spacer,
      .button(Button("Save", isEnabled: state.canSave) { reactor.send(.save) }),
    ]
    if state.isSaving { elements.append(.spinner("Saving…")) }
    return elements
  }

  /// What a refused save said about `field`, under it: the field the alert names, marked.
  private func problem(with field: String) -> [Element] {
    guard let problem = state.fieldProblems[field] else { return [] }
    let label = TaskComposeViewReactor.fieldLabels[field] ?? field
    return [.text("  ⚠ \(label): \(problem)", style: .warning)]
  }
}
