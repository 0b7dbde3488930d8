/// Lays out a screen's elements, draws them, and turns keys and commands into their actions.
///
/// The form is rebuilt from `body()` on every draw; what survives between draws is only the
/// focus (by control id) and each list's cursor, kept in ``FormState``.
@MainActor
struct Form {
  let elements: [Element]

  /// Focusable controls in order.
  var focusIDs: [String] { elements.compactMap(\.focusID) }

  /// The default button's focus id, if one is shown and enabled.
  var defaultFocusID: String? {
    for case .button(let button) in elements where button.isDefault && button.isEnabled {
      return "button:\(button.title)"
    }
    return nil
  }

  /// Every control in order, focusable now or not.
  var controlIDs: [String] { elements.compactMap(\.controlID) }

  /// Each list's rows, by what they stand for (``ListItem/key``, else the title).
  var rowKeys: [String: [String]] {
    var keys: [String: [String]] = [:]
    for case .list(let list) in elements {
      keys["list:\(list.id)"] = list.items.map { $0.key ?? $0.title }
    }
    return keys
  }

  // MARK: Drawing

  /// Draws the form into `frame` within rows `top..<top+height`, scrolled so the focused
  /// control is visible. `spinnerFrame` animates spinners.
  func draw(
    into frame: inout FrameBuffer, top: Int, height: Int, state: FormState, spinnerFrame: Int
  ) {
    let lines = layout(width: frame.width, state: state, spinnerFrame: spinnerFrame)
    let focusedLine =
      lines.firstIndex { $0.focusID != nil && $0.focusID == state.focusedID && $0.isCursor }
      ?? lines.firstIndex { $0.focusID != nil && $0.focusID == state.focusedID }
    // When the form is taller than its rows, "↑ more" and "↓ more" take rows of their own,
    // so they never hide a line; the focused line is always among those drawn.
    // (With fewer than three rows there is no room for them: the lines alone are drawn.)
    let hasIndicators = lines.count > height && height >= 3
    func visibleRows(from offset: Int) -> (first: Int, count: Int) {
      guard hasIndicators else { return (0, min(lines.count, height)) }
      let first = offset > 0 ? 1 : 0
      var count = height - first
      if offset + count < lines.count { count -= 1 }
      return (first, max(1, count))
    }
    var offset = 0
    if let focusedLine {
      while focusedLine >= offset + visibleRows(from: offset).count, offset < lines.count - 1 {
        offset += 1
      }
    }
    let rows = visibleRows(from: offset)
    for (row, line) in lines.dropFirst(offset).prefix(rows.count).enumerated() {
      var x = 1
      for span in line.spans {
        x += frame.write(
          span.text, x: x, y: top + rows.first + row, style: span.style,
          maxWidth: frame.width - x - 1)
      }
    }
    guard hasIndicators else { return }
    if offset > 0 { frame.write(" ↑ more", x: 0, y: top, style: .dim) }
    if offset + rows.count < lines.count {
      frame.write(" ↓ more", x: 0, y: top + rows.first + rows.count, style: .dim)
    }
  }

  struct Span {
    var text: String
    var style: TextStyle
  }

  struct Line {
    var spans: [Span]
    var focusID: String?
    /// The row a list's cursor is on.
    var isCursor = false
  }

  func layout(width: Int, state: FormState, spinnerFrame: Int) -> [Line] {
    var lines: [Line] = []
    var pendingButtons: [Button] = []

    // A run of buttons shares a row, wrapped onto more rows when the window is too narrow:
    // every button is drawn, so Tab never lands on one that is not.
    func flushButtons() {
      guard !pendingButtons.isEmpty else { return }
      var rows: [[Button]] = [[]]
      var rowWidth = 0
      for button in pendingButtons {
        let buttonWidth = "[ \(button.title) ] ".displayWidth
        if rowWidth > 0, rowWidth + buttonWidth > width - 1 {
          rows.append([])
          rowWidth = 0
        }
        rows[rows.count - 1].append(button)
        rowWidth += buttonWidth
      }
      for row in rows {
        var spans: [Span] = []
        var focusID: String?
        for button in row {
          let id = "button:\(button.title)"
          let focused = state.focusedID == id && button.isEnabled
          if focused { focusID = id }
          let style: TextStyle = !button.isEnabled ? .dim : focused ? .inverse : .bold
          spans.append(Span(text: "[ \(button.title) ]", style: style))
          spans.append(Span(text: " ", style: .plain))
        }
        let rowIDs = row.map { "button:\($0.title)" }
        // The row holds the focus when the focused button is on it, even disabled.
        if focusID == nil, let focusedID = state.focusedID, rowIDs.contains(focusedID) {
          focusID = focusedID
        }
        lines.append(Line(spans: spans, focusID: focusID ?? rowIDs.first))
      }
      pendingButtons.removeAll()
    }

    for element in elements {
      if case .button(let button) = element {
        pendingButtons.append(button)
        continue
      }
      flushButtons()
      switch element {
      case .heading(let title):
        lines.append(Line(spans: [Span(text: title, style: .bold)]))
        lines.append(Line(spans: []))
      case .text(let text, let style):
        for row in Self.wrap(text, width: max(10, width - 2)) {
          lines.append(Line(spans: [Span(text: row, style: style)]))
        }
      case .spacer:
        lines.append(Line(spans: []))
      case .field(let field):
        lines.append(fieldLine(field, width: width, state: state))
      case .list(let list):
        let id = "list:\(list.id)"
        lines.append(Line(spans: [Span(text: list.title, style: .bold)]))
        if list.items.isEmpty {
          lines.append(Line(spans: [Span(text: "  " + list.emptyText, style: .dim)]))
        }
        // Numbers right-aligned, so the titles stay in one column past item 9; typing a
        // number chooses its item (see `handle`).
        let numberWidth = String(list.items.count).count
        for (index, item) in list.items.enumerated() {
          let isCursor =
            state.focusedID == id && state.cursor(for: id, count: list.items.count) == index
          let marker = item.isSelected ? "●" : " "
          let number = String(index + 1)
          let padded = String(repeating: " ", count: numberWidth - number.count) + number
          var spans = [
            Span(text: " \(marker) \(padded). \(item.title)", style: isCursor ? .inverse : .plain)
          ]
          if !item.detail.isEmpty { spans.append(Span(text: "  \(item.detail)", style: .dim)) }
          lines.append(Line(spans: spans, focusID: id, isCursor: isCursor))
        }
      case .checklist(let list):
        let id = "checklist:\(list.id)"
        lines.append(Line(spans: [Span(text: list.title, style: .bold)]))
        for (index, item) in list.items.enumerated() {
          let isCursor =
            state.focusedID == id && state.cursor(for: id, count: list.items.count) == index
          let box = item.isSelected ? "[x]" : "[ ]"
          lines.append(
            Line(
              spans: [Span(text: " \(box) \(item.title)", style: isCursor ? .inverse : .plain)],
              focusID: id, isCursor: isCursor))
        }
      case .spinner(let caption):
        let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
        lines.append(
          Line(spans: [
            Span(text: "\(frames[spinnerFrame % frames.count]) \(caption)", style: .warning)
          ]))
      case .button:
        break
      }
    }
    flushButtons()
    return lines
  }

  /// A field's row: its label, its box (at least 24 columns, scrolled sideways so the cursor
  /// stays in view, `«` and `»` where text is hidden), and while focused its count against its
  /// limit.
  private func fieldLine(_ field: TextField, width: Int, state: FormState) -> Line {
    let id = "field:\(field.id)"
    let focused = state.focusedID == id
    let label = "\(field.label): "
    let shown: [Character] =
      field.isSecure ? Array(repeating: "•", count: field.text.count) : Array(field.text)
    let count = field.maximumLength.map { " \(field.text.count)/\($0)" } ?? ""
    // The frame leaves a column at each side.
    let room = max(8, width - 2 - label.displayWidth - (focused ? count.displayWidth : 0))
    let box: String
    if focused {
      let cursor = min(max(0, state.fieldCursors[id] ?? shown.count), shown.count)
      let visible = FieldEditing.visibleWindow(of: shown, cursor: cursor, width: room)
      box =
        (visible.hiddenLeft ? "«" : "") + visible.before + "▏" + visible.after
        + (visible.hiddenRight ? "»" : "")
    } else {
      let visible = FieldEditing.visibleWindow(of: shown, cursor: 0, width: room + 1)
      box = visible.after + (visible.hiddenRight ? "»" : "")
    }
    let padding = String(repeating: " ", count: max(0, min(24, room) - box.displayWidth))
    var spans = [
      Span(text: label, style: focused ? .bold : .plain),
      Span(text: box + padding, style: TextStyle(isInverse: focused, isUnderlined: true)),
    ]
    if focused, !count.isEmpty {
      let isFull = field.text.count >= (field.maximumLength ?? .max)
      spans.append(Span(text: count, style: isFull ? .warning : .dim))
    }
    return Line(spans: spans, focusID: id)
  }

  /// Splits `text` into rows of at most `width` columns, at spaces where possible.
  static func wrap(_ text: String, width: Int) -> [String] {
    var rows: [String] = []
    for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var row = ""
      for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
        let candidate = row.isEmpty ? String(word) : row + " " + word
        if candidate.displayWidth <= width {
          row = candidate
        } else {
          if !row.isEmpty { rows.append(row) }
          row = String(word)
          while row.displayWidth > width {
            rows.append(String(row.prefix(width)))
            row = String(row.dropFirst(width))
          }
        }
      }
      rows.append(row)
    }
    return rows
  }

  // MARK: Keys

  /// How many rows Page Up and Page Down move a list's cursor.
  static let pageSize = 10

  /// Applies a key; returns whether the form used it.
  func handle(_ key: Key, state: inout FormState) -> Bool {
    // A number being typed in a list ends with any other key.
    if !Self.isDigit(key) { state.typedNumber = nil }
    let ids = focusIDs
    let controls = controlIDs
    state.normalizeFocus(ids, controls: controls, preferred: defaultFocusID)
    state.followRows(rowKeys)
    guard let focused = state.focusedID else {
      return false
    }
    if let field = field(focused) {
      var editing = FieldEditing(
        text: field.text, cursor: state.fieldCursors[focused], maximumLength: field.maximumLength)
      if editing.apply(key) {
        state.isFocusAutomatic = false
        state.fieldCursors[focused] = editing.cursor
        if editing.text != field.text { field.onChange(editing.text) }
        return true
      }
    }
    switch key {
    case .paste:
      // A paste is text: outside a field it is dropped, never taken for keys.
      return true
    case .pageUp, .pageDown, .home, .end:
      // In a list: a page up or down, the first or the last row (the last loaded one: a paged
      // list then loads the next page).
      guard let count = itemCount(of: focused), count > 0 else { return false }
      let current = state.cursor(for: focused, count: count)
      let target =
        switch key {
        case .home: 0
        case .end: count - 1
        case .pageUp: max(0, current - Self.pageSize)
        default: min(count - 1, current + Self.pageSize)
        }
      state.cursors[focused] = target
      state.isFocusAutomatic = false
      if target == count - 1 { reachedEnd(of: focused) }
    case .tab:
      state.moveFocus(by: 1, in: ids, controls: controls)
    case .backTab:
      state.moveFocus(by: -1, in: ids, controls: controls)
    case .up, .down:
      let step = key == .up ? -1 : 1
      if let count = itemCount(of: focused) {
        let cursor = state.cursor(for: focused, count: count) + step
        if cursor >= 0, cursor < count {
          state.cursors[focused] = cursor
          state.isFocusAutomatic = false
          if cursor == count - 1 { reachedEnd(of: focused) }
          return true
        }
      }
      state.moveFocus(by: step, in: ids, controls: controls)
    case .left, .right:
      // Along a row of buttons; Left on the first and Right on the last stay put.
      guard let row = buttonRows.first(where: { $0.contains(focused) }),
        let index = row.firstIndex(of: focused)
      else { return false }
      let next = index + (key == .left ? -1 : 1)
      if row.indices.contains(next) {
        state.focusedID = row[next]
        state.isFocusAutomatic = false
      }
    case .enter:
      state.isFocusAutomatic = false
      activate(focused, state: &state)
    case .character(" ") where focused.hasPrefix("checklist:"):
      activate(focused, state: &state)
    case .character(let digit) where digit.isASCII && digit.isNumber:
      guard focused.hasPrefix("list:"), let count = itemCount(of: focused), count > 0 else {
        return false
      }
      choose(digit: digit, in: focused, count: count, state: &state)
      return true
    default:
      return false
    }
    return true
  }

  /// A digit typed in a list: the number typed so far (digits typed one after another) moves
  /// the cursor to its item, and chooses it as soon as no longer number could follow (at
  /// once in a list of nine or fewer); Enter chooses a shorter one. A number past the end
  /// starts again from this digit.
  private func choose(digit: Character, in id: String, count: Int, state: inout FormState) {
    let value = Int(String(digit)) ?? 0
    var number = (state.typedNumber?.id == id ? state.typedNumber?.value ?? 0 : 0) * 10 + value
    if number > count || number == 0 { number = value }
    guard number >= 1, number <= count else {
      state.typedNumber = nil
      return
    }
    state.cursors[id] = number - 1
    state.isFocusAutomatic = false
    if number == count { reachedEnd(of: id) }
    if number * 10 > count {
      state.typedNumber = nil
      activate(id, state: &state)
    } else {
      state.typedNumber = (id, number)
    }
  }

  private static func isDigit(_ key: Key) -> Bool {
    guard case .character(let character) = key else { return false }
    return character.isASCII && character.isNumber
  }

  /// The focus ids of each run of consecutive buttons, which are drawn on one row.
  private var buttonRows: [[String]] {
    var rows: [[String]] = []
    var current: [String] = []
    for element in elements {
      if case .button(let button) = element {
        // A disabled button is on the row but takes no focus.
        if button.isEnabled { current.append("button:\(button.title)") }
      } else if !current.isEmpty {
        rows.append(current)
        current = []
      }
    }
    if !current.isEmpty { rows.append(current) }
    return rows
  }

  private func activate(_ id: String, state: inout FormState) {
    for element in elements where element.focusID == id {
      switch element {
      case .button(let button): button.action()
      case .list(let list): list.onSelect(state.cursor(for: id, count: list.items.count))
      case .checklist(let list): list.onToggle(state.cursor(for: id, count: list.items.count))
      case .field(let field):
        if let submit = field.onSubmit {
          submit()
        } else {
          state.moveFocus(by: 1, in: focusIDs, controls: controlIDs)
        }
      default: break
      }
    }
  }

  /// Tells the list `id` that its cursor is on its last row.
  private func reachedEnd(of id: String) {
    for case .list(let list) in elements where "list:\(list.id)" == id { list.onReachEnd?() }
  }

  private func itemCount(of id: String) -> Int? {
    for element in elements where element.focusID == id {
      if case .list(let list) = element { return list.items.count }
      if case .checklist(let list) = element { return list.items.count }
    }
    return nil
  }

  private func field(_ id: String) -> TextField? {
    for case .field(let field) in elements where "field:\(field.id)" == id { return field }
    return nil
  }

  // MARK: Script commands

  // Each command returns the control it acted on (its focus id, and the row chosen), where the
  // focus goes, as it would for a user who moved there to do it.

  /// Taps the button titled `title` (ignoring case).
  func tap(_ title: String) throws(ScriptError) -> (id: String, row: Int?) {
    let buttons = elements.compactMap { element -> Button? in
      if case .button(let button) = element { return button }
      return nil
    }
    guard let button = buttons.first(where: { $0.title.lowercased() == title.lowercased() }) else {
      throw .notFound("no button \"\(title)\" (buttons: \(Self.names(buttons.map(\.title))))")
    }
    guard button.isEnabled else { throw .disabled("the button \"\(button.title)\" is disabled") }
    button.action()
    return ("button:\(button.title)", nil)
  }

  /// Replaces the text of the field named `name` (its id or label).
  func type(_ name: String, text: String) throws(ScriptError) -> (id: String, row: Int?) {
    let fields = elements.compactMap { element -> TextField? in
      if case .field(let field) = element { return field }
      return nil
    }
    guard
      let field = fields.first(where: {
        $0.id.lowercased() == name.lowercased() || $0.label.lowercased() == name.lowercased()
      })
    else {
      throw .notFound("no field \"\(name)\" (fields: \(Self.names(fields.map(\.id))))")
    }
    if let limit = field.maximumLength, text.count > limit {
      throw .invalid(
        "\(field.label) takes at most \(limit) characters; the text has \(text.count)")
    }
    field.onChange(text)
    return ("field:\(field.id)", nil)
  }

  /// Chooses a row of the list named `name` (its id or title), by 1-based number or title.
  func select(_ name: String, item: String) throws(ScriptError) -> (id: String, row: Int?) {
    let lists = elements.compactMap { element -> ListBox? in
      if case .list(let list) = element { return list }
      return nil
    }
    guard let list = lists.first(where: { Self.matches($0.id, $0.title, name) }) else {
      throw .notFound("no list \"\(name)\" (lists: \(Self.names(lists.map(\.id))))")
    }
    let row = try Self.index(of: item, in: list.items, listName: list.id)
    list.onSelect(row)
    return ("list:\(list.id)", row)
  }

  /// Toggles a row of the checklist named `name`, by 1-based number or title.
  func toggle(_ name: String, item: String) throws(ScriptError) -> (id: String, row: Int?) {
    let lists = elements.compactMap { element -> CheckList? in
      if case .checklist(let list) = element { return list }
      return nil
    }
    guard let list = lists.first(where: { Self.matches($0.id, $0.title, name) }) else {
      throw .notFound("no checklist \"\(name)\" (checklists: \(Self.names(lists.map(\.id))))")
    }
    let row = try Self.index(of: item, in: list.items, listName: list.id)
    list.onToggle(row)
    return ("checklist:\(list.id)", row)
  }

  private static func matches(_ id: String, _ title: String, _ name: String) -> Bool {
    id.lowercased() == name.lowercased() || title.lowercased() == name.lowercased()
  }

  private static func index(of item: String, in items: [ListItem], listName: String)
    throws(ScriptError) -> Int
  {
    if let number = Int(item) {
      guard number >= 1, number <= items.count else {
        throw .notFound("\(listName) has \(items.count) item(s); there is no number \(number)")
      }
      return number - 1
    }
    guard let index = items.firstIndex(where: { $0.title.lowercased() == item.lowercased() }) else {
      throw .notFound("\(listName) has no item \"\(item)\" (items: \(names(items.map(\.title))))")
    }
    return index
  }

  private static func names(_ names: [String]) -> String {
    names.isEmpty ? "none" : names.map { "\"\($0)\"" }.joined(separator: ", ")
  }
}

/// What survives between draws of a form: the focus and the list cursors.
struct FormState {
  var focusedID: String?
  var cursors: [String: Int] = [:]
  /// Each field's cursor, in characters from its start; a field without one has it at the end.
  var fieldCursors: [String: Int] = [:]
  /// The number being typed in a list (its id and the number so far).
  var typedNumber: (id: String, value: Int)?
  /// Whether the focus was placed by the form rather than moved by the user: such a focus
  /// follows the first control (a list that was still loading when the screen first drew).
  var isFocusAutomatic = true

  /// The row each list's cursor was on when last drawn: where the cursor was, and the key of
  /// the row there.
  var cursorRows: [String: (cursor: Int, key: String)] = [:]

  func cursor(for id: String, count: Int) -> Int {
    min(max(0, cursors[id] ?? 0), max(0, count - 1))
  }

  /// Keeps each list's cursor on the row it was on when the rows changed under it (a reload
  /// of a list shown from the device, a row added above): the user's place is kept. A cursor
  /// the user moved since stays where they moved it; a list emptied for a moment (reloading)
  /// keeps the row to find when its rows come back.
  mutating func followRows(_ rowKeys: [String: [String]]) {
    for (id, keys) in rowKeys where !keys.isEmpty {
      if let last = cursorRows[id], last.cursor == (cursors[id] ?? 0),
        keys[cursor(for: id, count: keys.count)] != last.key,
        let moved = keys.firstIndex(of: last.key)
      {
        cursors[id] = moved
      }
      let index = cursor(for: id, count: keys.count)
      cursorRows[id] = (cursors[id] ?? 0, keys[index])
    }
  }

  /// Keeps the focus on a control the user put it on while that control is on the screen,
  /// even while it cannot take input (a button disabled while its work runs: the focus is
  /// there again when it is enabled); otherwise puts it on the first focusable control.
  mutating func normalizeFocus(_ ids: [String], controls: [String], preferred: String? = nil) {
    if let focusedID, !isFocusAutomatic, controls.contains(focusedID) { return }
    focusedID = preferred.flatMap { ids.contains($0) ? $0 : nil } ?? ids.first
    isFocusAutomatic = true
  }

  /// Moves the focus `step` focusable controls along `ids` (wrapping); from a control that
  /// cannot take input now, to the nearest focusable one in that direction.
  mutating func moveFocus(by step: Int, in ids: [String], controls: [String] = []) {
    guard !ids.isEmpty else { return }
    isFocusAutomatic = false
    if let focusedID, !ids.contains(focusedID), let position = controls.firstIndex(of: focusedID) {
      let direction = step < 0 ? -1 : 1
      for offset in 1...controls.count {
        let count = controls.count
        let candidate = controls[((position + direction * offset) % count + count) % count]
        if ids.contains(candidate) {
          self.focusedID = candidate
          return
        }
      }
    }
    let current = focusedID.flatMap { ids.firstIndex(of: $0) } ?? 0
    focusedID = ids[(current + step + ids.count) % ids.count]
  }
}
