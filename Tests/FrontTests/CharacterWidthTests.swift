import Testing

@testable import TrellisFront

@Suite("Character width: East Asian Wide and Fullwidth, and emoji")
struct CharacterWidthTests {
  /// Characters from across the blocks, with the columns xterm, tmux and the macOS Terminal
  /// give them.
  @Test(arguments: [
    ("a", 1), ("é", 1), ("Ж", 1), ("→", 1), ("─", 1), ("⠋", 1), ("•", 1), ("▏", 1), ("«", 1),
    ("✓", 1), ("✕", 1), ("⚠", 1), ("●", 1), ("♥", 1), ("❤", 1), ("ｱ", 1),
    ("ᄀ", 2), ("ㄱ", 2), ("한", 2), ("中", 2), ("あ", 2), ("ア", 2), ("〜", 2), ("Ａ", 2),
    ("𠀀", 2), ("⌚", 2), ("☕", 2), ("✅", 2), ("🚀", 2), ("😀", 2), ("🦀", 2), ("🧑", 2),
    ("🫨", 2), ("❤️", 2), ("©️", 2), ("1️⃣", 2), ("©", 1), ("1", 1), ("🇰🇷", 2), ("👍🏽", 2), ("👩‍💻", 2),
  ])
  func columns(of text: String, width: Int) throws {
    let character = try #require(text.first)
    #expect(text.count == 1)
    #expect(
      character.displayWidth == width,
      "U+\(String(character.unicodeScalars.first!.value, radix: 16))")
  }

  /// The table is sorted and its ranges do not overlap (the binary search depends on it).
  @Test func theTableIsSortedWithoutOverlaps() {
    let ranges = CharacterWidth.wideRanges
    #expect(ranges.count > 100)
    for (earlier, later) in zip(ranges, ranges.dropFirst()) {
      #expect(earlier.upperBound < later.lowerBound)
    }
  }

  /// A row with an emoji is as wide on screen as the frame counts it: nothing after it shifts.
  @Test func aRocketTakesTwoColumnsInAFrame() {
    var frame = FrameBuffer(width: 10, height: 1)
    #expect(frame.write("🚀ab", x: 0, y: 0) == 4)
    #expect(frame.text == "🚀ab")
  }
}
