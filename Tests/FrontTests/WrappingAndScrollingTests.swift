import Testing
import TrellisFront

/// A screen of the given elements.
@MainActor
private final class ElementsScreen: ViewController {
  var elements: [Element]
  init(_ elements: [Element]) {
    self.elements = elements
    super.init(title: "Screen")
  }
  override func body() -> [Element] { elements }
}

@MainActor
@Suite("Drawing in small windows: rows of buttons, long lists, the footer, toasts")
struct WrappingAndScrollingTests {
  private func rows(_ window: Window) -> [String] {
    window.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// A row of buttons too wide for the window wraps: every button is drawn whole, and Tab
  /// reaches the last one.
  @Test func aRowOfButtonsWraps() {
    var tapped: [String] = []
    let titles = ["Tasks", "New task", "Profile", "Order Detail", "Report"]
    let screen = ElementsScreen(
      titles.map { title in .button(Button(title) { tapped.append(title) }) })
    let window = Window(size: TerminalSize(columns: 30, rows: 12))
    window.setRoot(screen)
    let text = window.text
    for title in titles { #expect(text.contains("[ \(title) ]"), "\(title) is cut:\n\(text)") }
    for row in rows(window) { #expect(row.count <= 30) }
    for _ in 0..<4 { window.handle(.tab) }
    window.handle(.enter)
    #expect(tapped == ["Report"])
  }

  /// "↑ more" and "↓ more" take rows of their own: no list row is hidden under them, and the
  /// row with the cursor is drawn.
  @Test func moreIndicatorsNeverHideARow() {
    let items = (1...20).map { ListItem("Task \($0)") }
    var chosen: [Int] = []
    let screen = ElementsScreen([
      .list(ListBox(id: "tasks", title: "Tasks", items: items) { chosen.append($0) })
    ])
    let window = Window(size: TerminalSize(columns: 40, rows: 10))  // six rows of content
    window.setRoot(screen)
    var content = rows(window)[2..<8]
    #expect(content.last?.contains("↓ more") == true)
    #expect(!content.contains { $0.contains("↓ more") && $0.contains("Task") })
    for _ in 0..<10 { window.handle(.down) }  // the cursor on Task 11
    content = rows(window)[2..<8]
    #expect(content.first?.contains("↑ more") == true)
    #expect(content.last?.contains("↓ more") == true)
    #expect(content.contains { $0.contains("11. Task 11") })
    #expect(!content.contains { $0.contains("more") && $0.contains("Task") })
    window.handle(.enter)
    #expect(chosen == [10])
  }

  /// In the smallest window (two rows of content) the lines are drawn without indicators,
  /// which would not fit: nothing is written over the toast or the footer.
  @Test func theSmallestWindowDrawsNoIndicatorOutsideItsRows() {
    let items = (1...20).map { ListItem("Task \($0)") }
    let screen = ElementsScreen([.list(ListBox(id: "tasks", title: "Tasks", items: items) { _ in })]
    )
    let window = Window(size: TerminalSize(columns: 40, rows: 6))
    window.setRoot(screen)
    for _ in 0..<10 { window.handle(.down) }
    let lines = rows(window)
    #expect(lines.count == 6)
    #expect(!lines[4].contains("more") && !lines[5].contains("more"), "\(lines)")
    #expect(lines[2...3].contains { $0.contains("Task 10") })
  }

  /// Numbers are right-aligned, so the titles keep one column past item 9; typing a number
  /// chooses its item: at once when no longer number could follow, else on Enter.
  @Test func numbersLineUpAndTypingOneChoosesIt() {
    var chosen: [Int] = []
    let screen = ElementsScreen([
      .list(
        ListBox(id: "tasks", title: "Tasks", items: (1...12).map { ListItem("Task \($0)") }) {
          chosen.append($0 + 1)
        })
    ])
    let window = Window(size: TerminalSize(columns: 40, rows: 20))
    window.setRoot(screen)
    let text = window.text
    #expect(text.contains("    1. Task 1\n"))
    #expect(text.contains("   12. Task 12\n"))
    window.handle(.character("3"))  // 30 > 12: no longer number can follow
    window.handle(.character("1"))
    window.handle(.character("2"))
    window.handle(.character("1"))
    window.handle(.enter)
    window.handle(.character("1"))
    window.handle(.character("5"))  // 15 > 12: starts again from 5
    #expect(chosen == [3, 12, 1, 5])

    var few: [Int] = []
    let short = ElementsScreen([
      .list(
        ListBox(id: "p", title: "Projects", items: [ListItem("A"), ListItem("B")]) {
          few.append($0)
        })
    ])
    window.setRoot(short)
    window.handle(.character("2"))
    window.handle(.character("9"))  // no such item: nothing
    #expect(few == [1])
  }

  /// The footer drops the least useful hints first and always keeps "Ctrl-Q quit".
  @Test(arguments: [
    (80, " Tab next · Enter choose · Esc back · Ctrl-Q quit"),
    (40, " Tab next · Esc back · Ctrl-Q quit"),
    (30, " Esc back · Ctrl-Q quit"),
    (20, " Ctrl-Q quit"),
  ])
  func theFooterKeepsCtrlQQuit(columns: Int, footer: String) {
    let window = Window(size: TerminalSize(columns: columns, rows: 8))
    window.setRoot(ElementsScreen([.text("Hello")]))
    #expect(rows(window).last == footer)
  }

  /// A toast shows on the screen it was first drawn over, and goes when another screen is on
  /// top; a form that raises it and closes in the same turn shows it on the screen below.
  @Test func aToastBelongsToTheScreenItWasShownOn() {
    let stack = NavigationController(root: ElementsScreen([.text("List")]))
    let window = Window(size: TerminalSize(columns: 60, rows: 12))
    window.setRoot(stack)
    let form = ElementsScreen([.text("Form")])
    stack.push(form)
    form.presentToast("Task created")
    stack.pop()
    #expect(window.text.contains("✓ Task created"))  // on the list it returned to
    stack.push(ElementsScreen([.text("Detail")]))
    #expect(!window.text.contains("Task created"))
    stack.pop()
    #expect(!window.text.contains("Task created"))  // gone, not back
  }
}
