import Testing
import TrellisCore
import TrellisFront

@MainActor
@Suite("Terminal kit")
struct KitTests {
  @Test func keysAreDecodedIncludingSplitEscapeSequencesAndUTF8() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x61, 0x0D, 0x09]) == [.character("a"), .enter, .tab])
    #expect(decoder.decode([0x1B]).isEmpty)  // maybe the start of an arrow key
    #expect(decoder.decode([0x5B, 0x41]) == [.up])
    #expect(decoder.decode([0x1B], flush: true) == [.escape])
    #expect(decoder.decode(Array("한".utf8).prefix(2).map { $0 }).isEmpty)
    #expect(decoder.decode([Array("한".utf8)[2]]) == [.character("한")])
    #expect(decoder.decode([0x0F, 0x03, 0x7F]) == [.menu, .quit, .backspace])
  }

  /// Full CSI and SS3 sequences, from the raw bytes xterm, tmux and the Linux console send:
  /// none types junk (`5~`, `4~`) into a field, and none is Escape.
  @Test(arguments: [
    ("\u{1B}[H", Key.home), ("\u{1B}[1~", .home), ("\u{1B}OH", .home), ("\u{1B}[7~", .home),
    ("\u{1B}[F", .end), ("\u{1B}[4~", .end), ("\u{1B}OF", .end), ("\u{1B}[3~", .delete),
    ("\u{1B}[2~", .insert), ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown),
    ("\u{1B}OP", .function(1)), ("\u{1B}OS", .function(4)), ("\u{1B}[15~", .function(5)),
    ("\u{1B}[24~", .function(12)), ("\u{1B}[1;5C", .wordRight), ("\u{1B}[1;2A", .up),
    ("\u{1B}[3;5~", .delete), ("\u{1B}x", .alt("x")), ("\u{1B}한", .alt("한")),
  ])
  func escapeSequencesDecodeWhole(bytes: String, key: Key) {
    var decoder = KeyDecoder()
    #expect(decoder.decode(Array(bytes.utf8) + [0x61]) == [key, .character("a")])
  }

  @Test func unknownOrBrokenSequencesAreConsumedAndNeverTyped() {
    var decoder = KeyDecoder()
    // Unknown final bytes and numbers: nothing.
    #expect(decoder.decode(Array("\u{1B}[99~\u{1B}[200z\u{1B}OZb".utf8)) == [.character("b")])
    // Split across reads.
    #expect(decoder.decode(Array("\u{1B}[1".utf8)).isEmpty)
    #expect(decoder.decode(Array("5~c".utf8)) == [.function(5), .character("c")])
    // Parameters without end are bounded: dropped, and typing goes on.
    let runaway = [0x1B, UInt8(ascii: "[")] + Array(repeating: UInt8(ascii: "1"), count: 40)
    #expect(decoder.decode(runaway).isEmpty)
    #expect(decoder.decode(Array("d".utf8)) == [.character("d")])
    // ESC before a control key: Escape, then the key (Esc, Ctrl-C quits).
    #expect(decoder.decode([0x1B, 0x03]) == [.escape, .quit])
    // ESC ESC: Escape, then the next one decides.
    #expect(decoder.decode([0x1B, 0x1B, UInt8(ascii: "["), UInt8(ascii: "A")]) == [.escape, .up])
    // A lone ESC is Escape only when no more bytes came; `ESC [` alone then is nothing.
    #expect(decoder.decode([0x1B]).isEmpty)
    #expect(decoder.decode([], flush: true) == [.escape])
    #expect(decoder.decode([0x1B, UInt8(ascii: "[")], flush: true).isEmpty)
  }

  @Test func scriptCommandsParseWithClearErrors() throws {
    #expect(try ScriptCommand.parse("tap Sign in") == .tap("Sign in"))
    #expect(
      try ScriptCommand.parse("  type username alice smith")
        == .type(field: "username", text: "alice smith"))
    #expect(try ScriptCommand.parse("type bio") == .type(field: "bio", text: ""))
    #expect(try ScriptCommand.parse("select project 2") == .select(list: "project", item: "2"))
    #expect(try ScriptCommand.parse("menu") == .menu(nil))
    #expect(try ScriptCommand.parse("# a comment") == nil)
    #expect(try ScriptCommand.parse("   ") == nil)
    #expect(throws: ScriptError.syntax("usage: select <list> <number or title>")) {
      try ScriptCommand.parse("select project")
    }
    #expect(throws: ScriptError.self) { try ScriptCommand.parse("jump 3") }
  }

  @Test(arguments: ["1e300", "inf", "nan", "-1", "3601", "9223372036854775807", "soon"])
  func anAbsurdSleepIsASyntaxErrorNotATrap(value: String) {
    #expect(throws: ScriptError.syntax("usage: sleep <seconds>, from 0 to 3600")) {
      try ScriptCommand.parse("sleep \(value)")
    }
  }

  @Test func ctrlZIsTheSuspendKey() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x1A]) == [.suspend])
  }

  @Test func framesRenderTextAndANSIAndClipWideCharacters() {
    var frame = FrameBuffer(width: 10, height: 2)
    frame.write("hello", x: 0, y: 0, style: .bold)
    frame.write("안녕하세요", x: 0, y: 1)  // 10 columns: fits exactly
    #expect(frame.text == "hello\n안녕하세요")
    frame.write("toolongtext", x: 6, y: 0)
    #expect(frame.text.split(separator: "\n")[0] == "hello tool")
    #expect(frame.ansi().contains("\u{1B}[0;1mhello"))
  }

  /// A screen with a field above a row of three buttons (the middle one disabled).
  private final class ButtonRowScreen: ViewController {
    var tapped: [String] = []

    init() { super.init(title: "Buttons") }

    override func body() -> [Element] {
      [
        .field(TextField(id: "name", label: "Name", text: "", onChange: { _ in })),
        .button(Button("Save") { [weak self] in self?.tapped.append("Save") }),
        .button(Button("Skip", isEnabled: false) { [weak self] in self?.tapped.append("Skip") }),
        .button(Button("Cancel") { [weak self] in self?.tapped.append("Cancel") }),
      ]
    }
  }

  @Test func leftAndRightMoveAlongARowOfButtons() {
    let screen = ButtonRowScreen()
    let window = Window(size: TerminalSize(columns: 60, rows: 12))
    window.setRoot(screen)
    window.handle(.tab)  // from the field to "Save"
    window.handle(.right)  // over the disabled "Skip" to "Cancel"
    window.handle(.enter)
    window.handle(.right)  // the end of the row: stays on "Cancel"
    window.handle(.enter)
    window.handle(.left)
    window.handle(.enter)
    window.handle(.left)  // the start of the row: stays on "Save"
    window.handle(.enter)
    #expect(screen.tapped == ["Cancel", "Cancel", "Save", "Save"])
  }

  /// A toast belongs to the screens it was raised on: signing out (a new root) drops it.
  @Test func aToastDoesNotOutliveItsScreens() {
    let window = Window(size: TerminalSize(columns: 60, rows: 12))
    window.setRoot(NavigationController(root: ViewController(title: "Home")))
    window.showToast("Profile saved")
    #expect(window.text.contains("✓ Profile saved"))
    window.setRoot(ViewController(title: "Sign in"))
    #expect(!window.text.contains("Profile saved"))
  }

  @Test func popAndDismissReleaseTheScreen() {
    weak var popped: ViewController?
    weak var dismissed: ViewController?
    let stack = NavigationController(root: ViewController(title: "Root"))
    let window = Window()
    window.setRoot(stack)
    do {
      let pushed = ViewController(title: "Pushed")
      let presented = ViewController(title: "Presented")
      stack.push(pushed)
      window.present(presented)
      popped = pushed
      dismissed = presented
    }
    #expect(window.topViewController?.title == "Presented")
    window.handle(.escape)
    #expect(dismissed == nil)
    window.handle(.escape)
    #expect(popped == nil)
    #expect(!window.back())  // the root stays
  }
}

@MainActor
@Suite("Narrow and tiny windows")
struct SmallWindowTests {
  /// A signed-in-like screen: a long title, a status, a menu, a toast and an alert.
  private func busyWindow(_ size: TerminalSize) -> Window {
    let window = Window(size: size, appName: "Trellis")
    let stack = NavigationController(root: ViewController(title: "A rather long screen title"))
    window.setRoot(stack)
    window.slideMenu = SlideMenuNavigator(header: "Alice Kim", items: [MenuItem("Tasks") {}])
    window.showToast("Task created: a long toast message that goes on")
    window.showAlert(title: "Could not load", message: "The server did not answer in time.")
    return window
  }

  /// Every row of every frame fits the window (a longer row would wrap and scroll the
  /// terminal), and no size traps, down to nothing at all.
  @Test(arguments: [
    (0, 0), (1, 1), (3, 2), (8, 4), (12, 5), (19, 6), (20, 6), (30, 10), (39, 12), (40, 12),
  ])
  func everyRowFitsAndNothingTraps(columns: Int, rows: Int) {
    let window = busyWindow(TerminalSize(columns: columns, rows: rows))
    window.slideMenu?.open()
    let frame = window.render()
    let lines = frame.text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == max(0, rows) || (rows == 0 && lines.count <= 1))
    for line in lines { #expect(line.count <= columns, "\(line)") }
    window.handle(.up)
    window.handle(.enter)
    _ = window.render()
  }

  @Test func aWindowTooSmallSaysSoInsteadOfAGarbledFrame() {
    let window = busyWindow(TerminalSize(columns: 16, rows: 5))
    let text = window.text
    #expect(text.contains("Too small"))
    #expect(!text.contains("Tab next"))
  }

  @Test func aNarrowWindowKeepsTheTitleAndHelpOnOneLineEach() {
    let window = Window(size: TerminalSize(columns: 30, rows: 10), appName: "Trellis")
    window.setRoot(ViewController(title: "A rather long screen title"))
    let lines = window.text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.first?.hasPrefix(" Trellis · A rather long") == true)
    // The least useful hints go first; "Ctrl-Q quit" stays.
    #expect(lines.last == " Esc back · Ctrl-Q quit")
    for line in lines { #expect(line.count <= 30, "\(line)") }
  }
}

@MainActor
@Suite("Reactor screens")
struct ReactorScreenTests {
  @MainActor
  final class UserSettingsViewReactor: ReactorProtocol {
    struct State: Sendable, Equatable {}
    let initialState = State()
    let runtime = ReactorRuntime<UserSettingsViewReactor>()
    func mutate(action: Never) -> Effect {}
    func reduce(state: State, mutation: Never) -> State {}
  }

  /// A screen with nothing to add inherits `init(reactor:)` and is titled after its reactor.
  final class UserSettingsViewController: ReactorViewController<UserSettingsViewReactor> {}

  @Test func aScreenIsTitledAfterItsReactorUnlessToldOtherwise() {
    #expect(UserSettingsViewController(reactor: UserSettingsViewReactor()).title == "User Settings")
    #expect(
      UserSettingsViewController(reactor: UserSettingsViewReactor(), title: "Settings").title
        == "Settings")
  }
}
