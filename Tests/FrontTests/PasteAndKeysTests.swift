import Testing

@testable import TrellisFront

/// A screen with a field, a list of `rows` rows (paged: it counts its ends reached) and a
/// button, its state in the screen as a reactor's would be.
@MainActor
private final class FormScreen: ViewController {
  var text = ""
  var rows: Int
  var chosen: [Int] = []
  var endsReached = 0
  var limit: Int?
  var warning: String?
  var keepsDraft = false
  /// Rows by name (their keys); when set, the list shows them instead of `rows`.
  var named: [String]?

  init(rows: Int = 0, limit: Int? = nil) {
    self.rows = rows
    self.limit = limit
    super.init(title: "Form")
  }

  override var unsavedChangesWarning: String? { warning }
  override var keepsInputOnQuit: Bool { keepsDraft }

  override func body() -> [Element] {
    [
      .field(
        TextField(
          id: "title", label: "Title", text: text, maximumLength: limit,
          onChange: { [weak self] in self?.text = $0 })),
      .list(
        ListBox(
          id: "rows", title: "Rows",
          items: named.map { $0.map { ListItem("Task \($0)", key: $0) } }
            ?? (1...max(1, rows)).prefix(rows).map { ListItem("Row \($0)") },
          emptyText: "None.", onSelect: { [weak self] in self?.chosen.append($0) },
          onReachEnd: { [weak self] in self?.endsReached += 1 })),
      .button(Button("Save") {}),
    ]
  }
}

@MainActor
@Suite("Paste, paging keys, words and quitting")
struct PasteAndKeysTests {
  private func window(_ screen: ViewController) -> Window {
    let window = Window(size: TerminalSize(columns: 80, rows: 30))
    window.setRoot(screen)
    return window
  }

  // MARK: Decoding

  @Test func aBracketedPasteIsOneKeyOfText() {
    var decoder = KeyDecoder()
    let keys = decoder.decode(Array("\u{1B}[200~Fix the crash\r\n2\u{1B}[201~x".utf8))
    #expect(keys == [.paste("Fix the crash\r\n2"), .character("x")])
  }

  @Test func aPasteSplitAcrossReadsAndPausesIsStillOne() {
    var decoder = KeyDecoder()
    var keys = decoder.decode(Array("\u{1B}[20".utf8), flush: true)  // cut, then a pause
    keys += decoder.decode(Array("0~first ".utf8), flush: true)  // a pause: not the end
    keys += decoder.decode(Array("line\u{1B}[2".utf8), flush: true)
    keys += decoder.decode(Array("01~".utf8))
    #expect(keys == [.paste("first line")])
    // An Escape inside a paste is text, not a key.
    #expect(decoder.decode(Array("\u{1B}[200~a\u{1B}b\u{1B}[201~".utf8)) == [.paste("a\u{1B}b")])
  }

  @Test func aHugePasteIsCutAtTheBound() {
    var decoder = KeyDecoder()
    let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
    var keys = decoder.decode(Array("\u{1B}[200~".utf8))
    for _ in 0..<6 { keys += decoder.decode(chunk) }
    keys += decoder.decode(Array("\u{1B}[201~".utf8))
    guard case .paste(let text) = keys.first else {
      Issue.record("no paste: \(keys)")
      return
    }
    #expect(keys.count == 1)
    #expect(text.utf8.count == KeyDecoder.maximumPasteLength)
  }

  @Test func controlAndAltArrowsMoveByWords() {
    var decoder = KeyDecoder()
    #expect(
      decoder.decode(Array("\u{1B}[1;5D\u{1B}[1;5C\u{1B}[1;3D\u{1B}[1;2C\u{1B}[D".utf8))
        == [.wordLeft, .wordRight, .wordLeft, .right, .left])
  }

  // MARK: Fields

  @Test func aPasteIntoAFieldIsTextOnOneLine() {
    let screen = FormScreen()
    let window = window(screen)
    window.handle(.paste("Fix the crash\r\n2\tnow"))
    #expect(screen.text == "Fix the crash 2 now")
    // The focus did not move (no Enter), and the list chose nothing (no digit key).
    #expect(screen.formState.focusedID == "field:title")
    #expect(screen.chosen.isEmpty)
  }

  @Test func aPasteTakesWhatFitsUnderTheLimit() {
    let screen = FormScreen(limit: 5)
    let window = window(screen)
    window.handle(.character("a"))
    window.handle(.paste("bcdefgh"))
    #expect(screen.text == "abcde")
  }

  @Test func aPasteOutsideAFieldIsDropped() {
    let screen = FormScreen(rows: 9)
    let window = window(screen)
    window.handle(.tab)  // the list
    window.handle(.paste("2\n"))
    #expect(screen.chosen.isEmpty)
    #expect(screen.formState.focusedID == "list:rows")
  }

  @Test func wordsMoveAndAltDDeletesTheNextWord() {
    let screen = FormScreen()
    let window = window(screen)
    window.handle(.paste("one two three"))
    window.handle(.wordLeft)
    window.handle(.wordLeft)
    window.handle(.alt("d"))
    #expect(screen.text == "one  three")
    window.handle(.wordRight)
    window.handle(.character("!"))
    #expect(screen.text == "one  three!")
  }

  // MARK: Lists

  @Test func pageKeysHomeAndEndMoveAListsCursor() {
    let screen = FormScreen(rows: 250)
    let window = window(screen)
    window.handle(.tab)
    window.handle(.pageDown)
    window.handle(.pageDown)
    window.handle(.enter)
    #expect(screen.chosen == [20])
    window.handle(.pageUp)
    window.handle(.enter)
    #expect(screen.chosen.last == 10)
    window.handle(.end)
    window.handle(.enter)
    #expect(screen.chosen.last == 249)
    #expect(screen.endsReached == 1)  // the last loaded row: a paged list loads more
    window.handle(.home)
    window.handle(.enter)
    #expect(screen.chosen.last == 0)
  }

  /// Rows that change under the cursor (a list shown from the device, then the server's with
  /// a new task on top) keep the cursor on the row it was on; a cursor the user moves goes
  /// where they move it; a list emptied while it reloads finds the row when it comes back.
  @Test func aListsCursorStaysOnItsRowWhenTheRowsChange() {
    let screen = FormScreen()
    screen.named = ["1", "2", "3"]
    let window = window(screen)
    window.handle(.tab)
    window.handle(.down)
    _ = window.render()
    screen.named = ["9", "1", "2", "3"]  // a new task on top
    window.handle(.enter)
    #expect(screen.chosen == [2])  // still task 2, now the third row
    window.handle(.up)
    window.handle(.enter)
    #expect(screen.chosen.last == 1)  // moved by the user: task 1
    screen.named = []
    _ = window.render()
    screen.named = ["7", "8", "1"]
    _ = window.render()
    window.handle(.enter)
    #expect(screen.chosen.last == 2)  // task 1 again, wherever it is
  }

  // MARK: Quitting

  @Test func quittingWithUnsavedInputAsksAndASecondQuitQuits() {
    let screen = FormScreen()
    let window = window(screen)
    #expect(window.requestQuit())  // nothing typed: at once
    screen.warning = "The title you are typing will be lost."
    #expect(!window.requestQuit())
    #expect(window.currentConfirmation == "The title you are typing will be lost. Quit anyway?")
    #expect(window.text.contains("[ Keep editing ] [ Quit ]"))
    window.handle(.enter)  // the default keeps editing
    #expect(window.currentConfirmation == nil && !window.isQuitConfirmed)
    #expect(!window.requestQuit())
    #expect(window.requestQuit())  // Ctrl-C again: quit at once
  }

  @Test func choosingQuitInTheQuestionQuits() {
    let screen = FormScreen()
    screen.warning = "The title you are typing will be lost."
    let window = window(screen)
    #expect(!window.requestQuit())
    window.handle(.tab)
    window.handle(.enter)
    #expect(window.isQuitConfirmed)
  }

  /// A screen that keeps its input as a draft loses nothing by a quit: Ctrl-Q quits at once;
  /// leaving it within the app (a menu section) still asks, and so does a quit while another
  /// screen holds input it does not keep.
  @Test func aScreenKeepingADraftQuitsWithoutAskingButLeavingItAsks() {
    let screen = FormScreen()
    screen.warning = "The task you are writing will be lost."
    screen.keepsDraft = true
    let window = window(screen)
    #expect(window.requestQuit())
    var left = false
    window.leaveAfterAsking([screen]) { left = true }
    #expect(!left)
    #expect(window.currentConfirmation?.hasPrefix("The task you are writing will be lost.") == true)
    window.handle(.escape)

    let other = FormScreen()
    other.warning = "The title you are typing will be lost."
    window.present(other)
    #expect(!window.requestQuit())
    #expect(window.currentConfirmation == "The title you are typing will be lost. Quit anyway?")
  }
}
