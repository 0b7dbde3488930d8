/// A text field's text and cursor, edited as readline edits a line: characters go in at the
/// cursor, Left/Right/Home/End (and Ctrl-A/Ctrl-E; by word Ctrl-Left/Ctrl-Right and
/// Alt-B/Alt-F) move it, Backspace and Delete remove one character, Ctrl-U and Ctrl-K remove
/// everything before or after it, Ctrl-W the word before it and Alt-D the word after it. A
/// paste goes in at the cursor as text, its line breaks and tabs as spaces (the field is one
/// line). A field with a limit takes no character beyond it.
struct FieldEditing: Equatable {
  /// The text, as characters (a cursor position counts characters, not bytes or columns).
  private(set) var characters: [Character]
  /// Where the cursor is: `0` before the first character, `characters.count` after the last.
  private(set) var cursor: Int
  /// The most characters the field holds, if it has a limit.
  let maximumLength: Int?

  /// The text with the cursor at `cursor` (clamped to the text; `nil` is the end).
  init(text: String, cursor: Int?, maximumLength: Int? = nil) {
    characters = Array(text)
    self.cursor = min(max(0, cursor ?? characters.count), characters.count)
    self.maximumLength = maximumLength
  }

  /// The text.
  var text: String { String(characters) }

  /// Applies `key`; returns whether it is an editing key (used even when it changes nothing,
  /// such as Left at the start).
  mutating func apply(_ key: Key) -> Bool {
    switch key {
    case .character(let character):
      if let maximumLength, characters.count >= maximumLength { return true }
      characters.insert(character, at: cursor)
      cursor += 1
    case .backspace:
      guard cursor > 0 else { return true }
      characters.remove(at: cursor - 1)
      cursor -= 1
    case .delete, .control("d"):
      guard cursor < characters.count else { return true }
      characters.remove(at: cursor)
    case .left, .control("b"): cursor = max(0, cursor - 1)
    case .right, .control("f"): cursor = min(characters.count, cursor + 1)
    case .home, .control("a"): cursor = 0
    case .end, .control("e"): cursor = characters.count
    case .control("u"):
      characters.removeSubrange(0..<cursor)
      cursor = 0
    case .control("k"):
      characters.removeSubrange(cursor...)
    case .control("w"):
      let start = wordStart(before: cursor)
      characters.removeSubrange(start..<cursor)
      cursor = start
    case .alt("b"), .wordLeft: cursor = wordStart(before: cursor)
    case .alt("f"), .wordRight: cursor = wordEnd(after: cursor)
    case .alt("d"):
      characters.removeSubrange(cursor..<wordEnd(after: cursor))
    case .paste(let text):
      var pasted = Self.oneLine(text)
      if let maximumLength {
        pasted = Array(pasted.prefix(max(0, maximumLength - characters.count)))
      }
      characters.insert(contentsOf: pasted, at: cursor)
      cursor += pasted.count
    default:
      return false
    }
    return true
  }

  /// `text` as one line: each line break (`\r\n` counts as one) and tab a space, other control
  /// characters dropped.
  static func oneLine(_ text: String) -> [Character] {
    text.compactMap { character -> Character? in
      if character.isNewline || character == "\t" { return " " }
      if character.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control }) {
        return nil
      }
      return character
    }
  }

  /// Where the word before `index` starts: back over spaces, then over the word.
  private func wordStart(before index: Int) -> Int {
    var start = index
    while start > 0, characters[start - 1].isWhitespace { start -= 1 }
    while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
    return start
  }

  /// Where the word after `index` ends: forward over spaces, then over the word.
  private func wordEnd(after index: Int) -> Int {
    var end = index
    while end < characters.count, characters[end].isWhitespace { end += 1 }
    while end < characters.count, !characters[end].isWhitespace { end += 1 }
    return end
  }

  /// The part of `shown` (the text as drawn, one character per character of the text) that fits
  /// in `width` columns with the cursor mark, scrolled so the cursor is visible: the text
  /// before the cursor, the text after it, and whether text is hidden on the left or right
  /// (each hidden side takes a column for its arrow, counted in `width`).
  static func visibleWindow(
    of shown: [Character], cursor: Int, width: Int
  ) -> (before: String, after: String, hiddenLeft: Bool, hiddenRight: Bool) {
    let width = max(4, width)
    func columns(_ range: Range<Int>) -> Int {
      shown[range].reduce(0) { $0 + $1.displayWidth }
    }
    let afterColumns = columns(cursor..<shown.count)
    let nextColumns = cursor < shown.count ? shown[cursor].displayWidth : 0
    // Columns needed with the window starting at `start`: the left arrow, the text up to the
    // cursor, the mark, and then either all the rest or the character under the cursor and
    // the right arrow.
    func used(from start: Int) -> Int {
      let head = (start > 0 ? 1 : 0) + columns(start..<cursor) + 1
      return head + afterColumns <= width ? head + afterColumns : head + nextColumns + 1
    }
    var start = 0
    while start < cursor, used(from: start) > width { start += 1 }
    var room = width - (start > 0 ? 1 : 0) - columns(start..<cursor) - 1
    if afterColumns > room { room -= 1 }  // the right arrow's column
    var end = cursor
    while end < shown.count, columns(cursor..<(end + 1)) <= room { end += 1 }
    return (
      String(shown[start..<cursor]), String(shown[cursor..<end]), start > 0, end < shown.count
    )
  }
}
