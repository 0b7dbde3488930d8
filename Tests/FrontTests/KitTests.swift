import Front
import Testing

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
