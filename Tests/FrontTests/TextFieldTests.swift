import Testing

@testable import TrellisFront

/// A screen with one field whose text lives in the screen, as a reactor's state would.
@MainActor
private final class FieldScreen: ViewController {
  var text = ""
  var limit: Int?
  var changes = 0

  init(text: String = "", limit: Int? = nil) {
    self.text = text
    self.limit = limit
    super.init(title: "Field")
  }

  override func body() -> [Element] {
    [
      .field(
        TextField(
          id: "title", label: "Title", text: text, maximumLength: limit,
          onChange: { [weak self] text in
            self?.text = text
            self?.changes += 1
          })),
      .button(Button("Save") {}),
    ]
  }
}

@MainActor
@Suite("Text fields: editing as readline does, limits, scrolling")
struct TextFieldTests {
  private func window(_ screen: ViewController, columns: Int = 60) -> Window {
    let window = Window(size: TerminalSize(columns: columns, rows: 10))
    window.setRoot(screen)
    return window
  }

  private func type(_ text: String, into window: Window) {
    for character in text { window.handle(.character(character)) }
  }

  /// Ctrl-A to Ctrl-Z reach the screen as control keys, from the raw bytes; Ctrl-C, Ctrl-Q,
  /// Ctrl-O, Ctrl-Z, Tab, Enter and Backspace keep their own keys.
  @Test func controlKeysAreDecoded() {
    var decoder = KeyDecoder()
    let editing = decoder.decode([0x01, 0x05, 0x15, 0x0B, 0x17, 0x04])
    #expect(
      editing == [
        .control("a"), .control("e"), .control("u"), .control("k"), .control("w"), .control("d"),
      ])
    let named = decoder.decode([0x03, 0x11, 0x0F, 0x1A, 0x09, 0x0D, 0x08])
    #expect(named == [.quit, .quit, .menu, .suspend, .tab, .enter, .backspace])
  }

  @Test func leftRightHomeEndMoveTheCursorAndTypingGoesInThere() {
    let screen = FieldScreen()
    let window = window(screen)
    type("helo", into: window)
    window.handle(.left)
    type("l", into: window)
    #expect(screen.text == "hello")
    window.handle(.home)
    type(">", into: window)
    window.handle(.end)
    type("!", into: window)
    #expect(screen.text == ">hello!")
    window.handle(.control("a"))
    window.handle(.delete)
    window.handle(.control("e"))
    window.handle(.backspace)
    #expect(screen.text == "hello")
    window.handle(.left)  // between "hell" and "o"
    #expect(window.text.contains("Title: hell▏o"))
    window.handle(.control("k"))
    #expect(screen.text == "hell")
    window.handle(.left)
    window.handle(.left)
    window.handle(.control("u"))
    #expect(screen.text == "ll")
    window.handle(.left)  // at the start: stays, and is still the field's key
    window.handle(.right)
    window.handle(.right)
    window.handle(.right)  // at the end: stays
    type(" and more words", into: window)
    window.handle(.control("w"))
    #expect(screen.text == "ll and more ")
    window.handle(.alt("b"))
    window.handle(.alt("b"))
    type("no ", into: window)
    #expect(screen.text == "ll no and more ")
  }

  /// Each key is a plain function of text and cursor: the edits readline makes.
  @Test(arguments: [
    ("one two three", 13, Key.control("w"), "one two ", 8),
    ("one two  ", 9, Key.control("w"), "one ", 4),
    ("one two", 3, Key.control("w"), " two", 0),
    ("one two", 0, Key.control("w"), "one two", 0),
    ("one two", 3, Key.control("k"), "one", 3),
    ("one two", 3, Key.control("u"), " two", 0),
    ("one two", 7, Key.delete, "one two", 7),
    ("one two", 0, Key.backspace, "one two", 0),
    ("one two", 0, Key.alt("f"), "one two", 3),
    ("한글 입력", 5, Key.alt("b"), "한글 입력", 3),
    ("한글", 1, Key.character("x"), "한x글", 2),
  ])
  func editsAsReadlineDoes(text: String, cursor: Int, key: Key, after: String, cursorAfter: Int) {
    var editing = FieldEditing(text: text, cursor: cursor)
    let used = editing.apply(key)
    #expect(used)
    #expect(editing.text == after)
    #expect(editing.cursor == cursorAfter)
  }

  /// A field with a limit takes no character beyond it, shows its count while focused, and a
  /// script's `type` over it is refused, naming the field and the limit.
  @Test func aLimitIsShownAndEnforced() throws {
    let screen = FieldScreen(limit: 5)
    let window = window(screen)
    type("abcdefg", into: window)
    #expect(screen.text == "abcde")
    #expect(window.text.contains("5/5"))
    window.handle(.home)
    type("x", into: window)
    #expect(screen.text == "abcde")
    #expect(throws: ScriptError.invalid("Title takes at most 5 characters; the text has 6")) {
      try window.perform(.type(field: "title", text: "abcdef"))
    }
    try window.perform(.type(field: "title", text: "abc"))
    #expect(screen.text == "abc")
  }

  /// Wherever the cursor is in a long text, the box (arrows, text, mark) never takes more
  /// columns than it has, and the character after the cursor, if any, is shown.
  @Test(arguments: [6, 10, 17])
  func theVisibleWindowNeverOverflows(width: Int) {
    let text = Array("0123456789한글abcdefghij🚀xyz0123456789")
    for cursor in 0...text.count {
      let window = FieldEditing.visibleWindow(of: text, cursor: cursor, width: width)
      let total =
        (window.hiddenLeft ? 1 : 0) + window.before.displayWidth + 1 + window.after.displayWidth
        + (window.hiddenRight ? 1 : 0)
      #expect(total <= width, "cursor \(cursor): \(total) columns in \(width)")
      #expect(window.before.count + (window.hiddenLeft ? 1 : 0) > 0 || cursor == 0)
      if cursor < text.count, width >= 6 {
        #expect(window.after.first == text[cursor], "cursor \(cursor)")
      }
    }
  }

  /// Text wider than the window scrolls sideways so the cursor stays in view, with « and » on
  /// the sides where text is hidden; unfocused, the field shows its start.
  @Test func aLongTextScrollsToKeepTheCursorInView() {
    let long = (1...40).map { String($0 % 10) }.joined()  // 40 digits
    let screen = FieldScreen(text: long)
    let window = window(screen, columns: 30)
    var row = window.text.split(separator: "\n").first { $0.contains("Title:") } ?? ""
    #expect(row.contains("«"))
    #expect(row.contains("890▏"))  // the end, where the cursor is
    #expect(String(row).displayWidth <= 30)
    window.handle(.home)
    row = window.text.split(separator: "\n").first { $0.contains("Title:") } ?? ""
    #expect(row.contains("Title: ▏1234"))
    #expect(row.contains("»"))
    #expect(!row.contains("«"))
    window.handle(.tab)  // away: the start shows, cut with »
    row = window.text.split(separator: "\n").first { $0.contains("Title:") } ?? ""
    #expect(row.contains("Title: 1234"))
    #expect(row.contains("»"))
    #expect(String(row).displayWidth <= 30)
  }
}
