/// One piece of a screen, described from the current state each time the screen is drawn:
/// text, a text field, a button, a list, a checklist, a spinner. View controllers return their
/// elements from `body()`; the kit lays them out, draws them, moves the focus and turns keys
/// and script commands into the elements' actions.
@MainActor
public enum Element {
  /// A heading.
  case heading(String)
  /// Text, wrapped to the width.
  case text(String, style: TextStyle = .plain)
  /// An empty line.
  case spacer
  /// A one-line text input.
  case field(TextField)
  /// A button. Consecutive buttons share a row.
  case button(Button)
  /// A list to choose one item from.
  case list(ListBox)
  /// A list of items to check and uncheck.
  case checklist(CheckList)
  /// A loading indicator with a caption.
  case spinner(String)

  /// The id of the control this element is, focusable now or not (a disabled button, an empty
  /// list): the focus stays on it while it cannot take input, instead of jumping away.
  var controlID: String? {
    switch self {
    case .field(let field): "field:\(field.id)"
    case .button(let button): "button:\(button.title)"
    case .list(let list): "list:\(list.id)"
    case .checklist(let list): "checklist:\(list.id)"
    case .heading, .text, .spacer, .spinner: nil
    }
  }

  /// The id of the focusable control this element is, if it is one.
  var focusID: String? {
    switch self {
    case .field(let field): "field:\(field.id)"
    case .button(let button): button.isEnabled ? "button:\(button.title)" : nil
    case .list(let list): list.items.isEmpty ? nil : "list:\(list.id)"
    case .checklist(let list): list.items.isEmpty ? nil : "checklist:\(list.id)"
    case .heading, .text, .spacer, .spinner: nil
    }
  }
}

/// A one-line text input.
@MainActor
public struct TextField {
  /// The field's name in script commands: `type <id> <text>`.
  public var id: String
  /// The label shown before it.
  public var label: String
  /// The current text (from the reactor's state).
  public var text: String
  /// Whether to show bullets instead of the text.
  public var isSecure: Bool
  /// Called with the new text on every edit.
  public var onChange: (String) -> Void
  /// Called when Enter is pressed in the field.
  public var onSubmit: (() -> Void)?
  /// The most characters the field takes (typing stops there; a script's `type` with more is
  /// refused), shown as a count while the field has the focus; `nil` for no limit.
  public var maximumLength: Int?

  /// Creates a field.
  public init(
    id: String, label: String, text: String, isSecure: Bool = false, maximumLength: Int? = nil,
    onChange: @escaping (String) -> Void, onSubmit: (() -> Void)? = nil
  ) {
    self.id = id
    self.label = label
    self.text = text
    self.isSecure = isSecure
    self.maximumLength = maximumLength
    self.onChange = onChange
    self.onSubmit = onSubmit
  }
}

/// A button.
@MainActor
public struct Button {
  /// The title, also its name in script commands: `tap <title>`.
  public var title: String
  /// Whether it can be tapped.
  public var isEnabled: Bool
  /// Called when it is tapped.
  public var action: () -> Void
  /// Whether the focus goes here when it is placed anew (the control that had it went): a
  /// question's safe answer, so that Enter pressed once more does no harm.
  public var isDefault: Bool

  /// Creates a button.
  public init(
    _ title: String, isEnabled: Bool = true, isDefault: Bool = false,
    action: @escaping () -> Void
  ) {
    self.title = title
    self.isEnabled = isEnabled
    self.isDefault = isDefault
    self.action = action
  }
}

/// A row of a list.
public struct ListItem: Sendable, Equatable {
  /// The row's title, also its name in script commands.
  public var title: String
  /// Text shown after the title, dimmed.
  public var detail: String
  /// Whether the row is the chosen one (marked with a dot) or checked.
  public var isSelected: Bool
  /// What the row stands for (a task's id): a list whose rows change under the cursor (a
  /// reload, a new row above) keeps the cursor on the row with the same key. `nil`: the title.
  public var key: String?

  /// Creates a row; `key` names what it stands for, when titles may repeat or change.
  public init(_ title: String, detail: String = "", isSelected: Bool = false, key: String? = nil) {
    self.title = title
    self.detail = detail
    self.isSelected = isSelected
    self.key = key
  }
}

/// A list to choose one item from: `select <id> <number or title>`.
@MainActor
public struct ListBox {
  /// The list's name in script commands.
  public var id: String
  /// The title shown above it.
  public var title: String
  /// The rows.
  public var items: [ListItem]
  /// Shown when there are no rows.
  public var emptyText: String
  /// Called with the index of the chosen row.
  public var onSelect: (Int) -> Void
  /// Called when the cursor moves onto the last row: a paged list loads its next page here.
  public var onReachEnd: (() -> Void)?

  /// Creates a list.
  public init(
    id: String, title: String, items: [ListItem], emptyText: String = "Nothing here yet.",
    onSelect: @escaping (Int) -> Void, onReachEnd: (() -> Void)? = nil
  ) {
    self.id = id
    self.title = title
    self.items = items
    self.emptyText = emptyText
    self.onSelect = onSelect
    self.onReachEnd = onReachEnd
  }
}

/// A list of items to check and uncheck: `toggle <id> <number or title>`.
@MainActor
public struct CheckList {
  /// The list's name in script commands.
  public var id: String
  /// The title shown above it.
  public var title: String
  /// The rows; `isSelected` is checked.
  public var items: [ListItem]
  /// Called with the index of the toggled row.
  public var onToggle: (Int) -> Void

  /// Creates a checklist.
  public init(
    id: String, title: String, items: [ListItem], onToggle: @escaping (Int) -> Void
  ) {
    self.id = id
    self.title = title
    self.items = items
    self.onToggle = onToggle
  }
}
