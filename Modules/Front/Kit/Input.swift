/// A key press, decoded from the terminal's bytes.
public enum Key: Sendable, Equatable {
  /// A printable character.
  case character(Character)
  /// Enter or Return.
  case enter
  /// Tab: the next control.
  case tab
  /// Shift-Tab: the previous control.
  case backTab
  /// Backspace.
  case backspace
  /// Escape: back.
  case escape
  /// Arrow up.
  case up
  /// Arrow down.
  case down
  /// Arrow left.
  case left
  /// Arrow right.
  case right
  /// Ctrl-Left (or Alt-Left): a word back.
  case wordLeft
  /// Ctrl-Right (or Alt-Right): a word forward.
  case wordRight
  /// Text pasted while the terminal's bracketed paste mode is on: text to insert, never keys
  /// (its newlines press no Enter, its digits choose no list row).
  case paste(String)
  /// Ctrl-O: the slide menu.
  case menu
  /// Ctrl-C or Ctrl-Q: quit.
  case quit
  /// `open <link>`: opens a link (`trellis://tasks/2`) as the system would.
  case open(String)
  /// Ctrl-Z: suspend to the shell (`fg` resumes).
  case suspend
  /// Home.
  case home
  /// End.
  case end
  /// Delete (forward).
  case delete
  /// Insert.
  case insert
  /// Page Up.
  case pageUp
  /// Page Down.
  case pageDown
  /// A function key: F1 is `function(1)`.
  case function(Int)
  /// Alt (Meta) with a character: `ESC x` as terminals send it.
  case alt(Character)
  /// Control with a letter the app has no other name for: Ctrl-A is `control("a")` (Ctrl-C,
  /// Ctrl-Q, Ctrl-O, Ctrl-Z, Tab, Enter and Backspace are keys of their own).
  case control(Character)
}

/// Decodes terminal input bytes into keys, keeping incomplete sequences for the next bytes.
///
/// Escape sequences are read whole: CSI (`ESC [`, parameters, a final byte from `@` to `~`, as
/// in `ESC [ 3 ~` for Delete or `ESC [ 1 ; 5 C` for Ctrl-Right) and SS3 (`ESC O P` for F1). One
/// it does not know is consumed and ignored, never typed. `ESC` followed by another character is
/// Alt with that character; a lone `ESC` is Escape only once no more bytes came (`flush`), as
/// terminals and readline decide it.
///
/// A bracketed paste (`ESC [ 200 ~`, the text, `ESC [ 201 ~`) is one ``Key/paste(_:)``, however
/// many reads it takes; at most ``maximumPasteLength`` bytes of it are kept (the rest is
/// dropped, never typed).
public struct KeyDecoder: Sendable {
  private var pending: [UInt8] = []
  /// The text of a paste under way, while one is.
  private var paste: [UInt8]?
  /// The longest CSI sequence kept while it is incomplete; a longer one is dropped.
  static let maximumSequenceLength = 32
  /// The most bytes of one paste kept: 256 KiB.
  public static let maximumPasteLength = 256 * 1024
  private static let pasteStart: [UInt8] = Array("\u{1B}[200~".utf8)
  private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

  /// Creates a decoder.
  public init() {}

  /// Decodes `bytes`; a lone Escape is only reported when `flush` is true (no more bytes came).
  public mutating func decode(_ bytes: [UInt8], flush: Bool = false) -> [Key] {
    pending += bytes
    var keys: [Key] = []
    while !pending.isEmpty {
      if paste != nil {
        // A paste ends only at its end marker, however long the pause (no flush ends it).
        guard let key = continuePaste() else { return keys }
        keys.append(key)
        continue
      }
      let byte = pending[0]
      switch byte {
      case 0x1B:
        if pending.starts(with: Self.pasteStart) {
          pending.removeFirst(Self.pasteStart.count)
          paste = []
          continue
        }
        // The start of a paste's marker, cut by a pause in the bytes: wait for the rest, even
        // on a flush (dropped, the paste's text would be taken for keys).
        if pending.count >= 3, pending.count < Self.pasteStart.count,
          Self.pasteStart.starts(with: pending)
        {
          return keys
        }
        switch escapeSequence(flush: flush) {
        case .incomplete: return keys
        case .key(let key, let length):
          if let key { keys.append(key) }
          pending.removeFirst(length)
        }
      case 0x0D, 0x0A:
        keys.append(.enter)
        pending.removeFirst()
      case 0x09:
        keys.append(.tab)
        pending.removeFirst()
      case 0x7F, 0x08:
        keys.append(.backspace)
        pending.removeFirst()
      case 0x0F:
        keys.append(.menu)
        pending.removeFirst()
      case 0x03, 0x11:
        keys.append(.quit)
        pending.removeFirst()
      case 0x1A:
        keys.append(.suspend)
        pending.removeFirst()
      case 0x01...0x1A:
        // Ctrl-A to Ctrl-Z not taken above: readline's editing keys among them.
        keys.append(.control(Character(UnicodeScalar(byte + 0x60))))
        pending.removeFirst()
      case 0x00..<0x20:
        pending.removeFirst()
      default:
        // A UTF-8 sequence: its length comes from the first byte.
        let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
        guard pending.count >= length else { return keys }
        let text = String(decoding: pending.prefix(length), as: UTF8.self)
        pending.removeFirst(length)
        if let character = text.first { keys.append(.character(character)) }
      }
    }
    return keys
  }

  /// Takes the paste's text from `pending`: the paste once its end marker came, else `nil`
  /// (everything but what may be the start of the marker is kept for it).
  private mutating func continuePaste() -> Key? {
    let end = Self.pasteEnd
    var index = 0
    var found: Int?
    while index < pending.count {
      if pending[index] == end[0], pending[index...].starts(with: end) {
        found = index
        break
      }
      index += 1
    }
    let takeCount: Int
    if let found {
      takeCount = found
    } else {
      // Keep a tail that may be the start of the end marker for the next bytes.
      var keep = 0
      for length in stride(from: min(end.count - 1, pending.count), to: 0, by: -1)
      where Array(pending.suffix(length)) == Array(end.prefix(length)) {
        keep = length
        break
      }
      takeCount = pending.count - keep
    }
    let room = max(0, Self.maximumPasteLength - (paste?.count ?? 0))
    paste?.append(contentsOf: pending.prefix(min(takeCount, room)))
    pending.removeFirst(takeCount)
    guard found != nil else { return nil }
    pending.removeFirst(end.count)
    let text = String(decoding: paste ?? [], as: UTF8.self)
    paste = nil
    return .paste(text)
  }

  private enum Sequence {
    /// More bytes are needed.
    case incomplete
    /// The key (`nil`: none, ignored) and how many bytes it took.
    case key(Key?, length: Int)
  }

  /// Reads the escape sequence at the start of `pending`.
  private func escapeSequence(flush: Bool) -> Sequence {
    guard pending.count >= 2 else { return flush ? .key(.escape, length: 1) : .incomplete }
    switch pending[1] {
    case UInt8(ascii: "["):
      // Parameters and intermediates (0x20-0x3F), then one final byte (0x40-0x7E).
      var index = 2
      while index < pending.count, (0x20...0x3F).contains(pending[index]) { index += 1 }
      guard index < pending.count else {
        if pending.count > Self.maximumSequenceLength { return .key(nil, length: pending.count) }
        return flush ? .key(nil, length: pending.count) : .incomplete
      }
      let final = pending[index]
      guard (0x40...0x7E).contains(final) else { return .key(nil, length: index) }
      let parameters = String(decoding: pending[2..<index], as: UTF8.self)
      return .key(Self.csiKey(final: final, parameters: parameters), length: index + 1)
    case UInt8(ascii: "O"):
      guard pending.count >= 3 else { return flush ? .key(nil, length: 2) : .incomplete }
      return .key(Self.ss3Key(pending[2]), length: 3)
    case 0x1B:
      return .key(.escape, length: 1)  // Escape, then whatever the next one starts
    default:
      // Alt with a character (its UTF-8 bytes); before a control key (Ctrl-C, Enter), Escape,
      // and the control key decoded after it.
      let byte = pending[1]
      guard byte >= 0x20, byte != 0x7F else { return .key(.escape, length: 1) }
      let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
      guard pending.count >= 1 + length else {
        return flush ? .key(nil, length: pending.count) : .incomplete
      }
      let text = String(decoding: pending[1..<(1 + length)], as: UTF8.self)
      return .key(text.first.map(Key.alt), length: 1 + length)
    }
  }

  /// The key of `ESC [ parameters final`, or nil for one this app does not use.
  private static func csiKey(final: UInt8, parameters: String) -> Key? {
    // `1;5` is Ctrl, `1;3` Alt, `1;7` both (xterm's modifier parameter, less one, is a bit
    // set: 1 Shift, 2 Alt, 4 Ctrl).
    let modifiers = parameters.split(separator: ";").dropFirst().first.flatMap { Int($0) } ?? 1
    let byWord = modifiers > 1 && (modifiers - 1) & 0b110 != 0
    switch final {
    case UInt8(ascii: "A"): return .up
    case UInt8(ascii: "B"): return .down
    case UInt8(ascii: "C"): return byWord ? .wordRight : .right
    case UInt8(ascii: "D"): return byWord ? .wordLeft : .left
    case UInt8(ascii: "H"): return .home
    case UInt8(ascii: "F"): return .end
    case UInt8(ascii: "Z"): return .backTab
    case UInt8(ascii: "~"):
      // `ESC [ n ~` or `ESC [ n ; modifiers ~`: the key is the first number.
      guard let number = Int(parameters.split(separator: ";").first ?? "") else { return nil }
      switch number {
      case 1, 7: return .home
      case 2: return .insert
      case 3: return .delete
      case 4, 8: return .end
      case 5: return .pageUp
      case 6: return .pageDown
      case 11...15: return .function(number - 10)
      case 17...21: return .function(number - 11)
      case 23, 24: return .function(number - 12)
      default: return nil
      }
    default: return nil
    }
  }

  /// The key of `ESC O final`, or nil for one this app does not use.
  private static func ss3Key(_ final: UInt8) -> Key? {
    switch final {
    case UInt8(ascii: "A"): .up
    case UInt8(ascii: "B"): .down
    case UInt8(ascii: "C"): .right
    case UInt8(ascii: "D"): .left
    case UInt8(ascii: "H"): .home
    case UInt8(ascii: "F"): .end
    case UInt8(ascii: "P"): .function(1)
    case UInt8(ascii: "Q"): .function(2)
    case UInt8(ascii: "R"): .function(3)
    case UInt8(ascii: "S"): .function(4)
    default: nil
    }
  }
}

/// A line of a script: what a user would do, by name instead of by key.
public enum ScriptCommand: Sendable, Equatable {
  /// `tap <button>`.
  case tap(String)
  /// `type <field> <text>` (the text may be empty).
  case type(field: String, text: String)
  /// `select <list> <number or title>`.
  case select(list: String, item: String)
  /// `toggle <checklist> <number or title>`.
  case toggle(list: String, item: String)
  /// `back`: pop the screen (or close the menu, or dismiss the alert).
  case back
  /// `menu [item]`: open the slide menu, and choose `item` if given.
  case menu(String?)
  /// `wait <text>`: wait until the screen shows `text`.
  case wait(String)
  /// `expect <text>`: like `wait`, but the script fails if the text does not appear.
  case expect(String)
  /// `expect-not <text>`: the script fails if the screen shows `text`.
  case expectNot(String)
  /// `wait-gone <text>`: wait until the screen no longer shows `text`; the script fails if
  /// it is still there at the timeout.
  case waitGone(String)
  /// `dump`: print the screen.
  case dump
  /// `print <text>`: print a line (a marker for tools reading the output).
  case print(String)
  /// `sleep <seconds>`: pause (for demos), at most ``longestSleep`` seconds.
  case sleep(Double)
  /// `quit`.
  case quit
  /// `open <link>`: opens a link (`trellis://tasks/2`) as the system would.
  case open(String)

  /// The longest `sleep` a script may ask for: an hour.
  public static let longestSleep: Double = 3600

  /// Parses one line; `nil` for blank lines and `#` comments.
  ///
  /// - Throws: ``ScriptError/syntax(_:)`` with a usage hint.
  public static func parse(_ line: String) throws(ScriptError) -> ScriptCommand? {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
    let parts = trimmed.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    let verb = parts[0].lowercased()
    let rest = parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : ""
    func twoWords(_ usage: String) throws(ScriptError) -> (String, String) {
      let words = rest.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
      guard words.count == 2 else { throw .syntax("usage: \(usage)") }
      return (String(words[0]), String(words[1]).trimmingCharacters(in: .whitespaces))
    }
    switch verb {
    case "tap":
      guard !rest.isEmpty else { throw .syntax("usage: tap <button title>") }
      return .tap(rest)
    case "type":
      let words = rest.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
      guard let field = words.first else { throw .syntax("usage: type <field> <text>") }
      return .type(field: String(field), text: words.count > 1 ? String(words[1]) : "")
    case "select":
      let (list, item) = try twoWords("select <list> <number or title>")
      return .select(list: list, item: item)
    case "toggle":
      let (list, item) = try twoWords("toggle <checklist> <number or title>")
      return .toggle(list: list, item: item)
    case "back": return .back
    case "menu": return .menu(rest.isEmpty ? nil : rest)
    case "wait":
      guard !rest.isEmpty else { throw .syntax("usage: wait <text on screen>") }
      return .wait(rest)
    case "expect":
      guard !rest.isEmpty else { throw .syntax("usage: expect <text on screen>") }
      return .expect(rest)
    case "expect-not":
      guard !rest.isEmpty else { throw .syntax("usage: expect-not <text>") }
      return .expectNot(rest)
    case "wait-gone":
      guard !rest.isEmpty else { throw .syntax("usage: wait-gone <text on screen>") }
      return .waitGone(rest)
    case "dump": return .dump
    case "print", "echo": return .print(rest)
    case "sleep":
      guard let seconds = Double(rest), seconds.isFinite, (0...Self.longestSleep).contains(seconds)
      else {
        throw .syntax("usage: sleep <seconds>, from 0 to \(Int(Self.longestSleep))")
      }
      return .sleep(seconds)
    case "quit", "exit": return .quit
    case "open":
      guard !rest.isEmpty else { throw .syntax("usage: open <link>, such as trellis://tasks/2") }
      return .open(rest)
    default:
      throw .syntax(
        "unknown command \"\(verb)\"; commands: tap, type, select, toggle, back, menu, wait, "
          + "expect, expect-not, wait-gone, dump, print, sleep, open, quit")
    }
  }
}

/// Why a script command failed.
public enum ScriptError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The line is not a command.
  case syntax(String)
  /// The named control or item is not on the screen.
  case notFound(String)
  /// The control exists but cannot be used now.
  case disabled(String)
  /// The control does not take what the command gives it (a text over a field's limit).
  case invalid(String)
  /// An alert is showing; it must be dismissed first.
  case alertShowing(String)
  /// `expect` or `wait` did not see its text in time, or `expect-not` saw it.
  case expectationFailed(String)

  /// A one-line explanation.
  public var description: String {
    switch self {
    case .syntax(let message), .notFound(let message), .disabled(let message),
      .invalid(let message), .expectationFailed(let message):
      message
    case .alertShowing(let message):
      "an alert is showing (\(message)); dismiss it with \"tap OK\""
    }
  }
}
