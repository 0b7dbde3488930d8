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
  /// Ctrl-O: the slide menu.
  case menu
  /// Ctrl-C or Ctrl-Q: quit.
  case quit
  /// `open <link>`: opens a link (`trellis://tasks/2`) as the system would.
  case open(String)
  /// Ctrl-Z: suspend to the shell (`fg` resumes).
  case suspend
}

/// Decodes terminal input bytes into keys, keeping incomplete sequences for the next bytes.
public struct KeyDecoder: Sendable {
  private var pending: [UInt8] = []

  /// Creates a decoder.
  public init() {}

  /// Decodes `bytes`; a lone Escape is only reported when `flush` is true (no more bytes came).
  public mutating func decode(_ bytes: [UInt8], flush: Bool = false) -> [Key] {
    pending += bytes
    var keys: [Key] = []
    while !pending.isEmpty {
      let byte = pending[0]
      switch byte {
      case 0x1B:
        if pending.count >= 3, pending[1] == UInt8(ascii: "[") {
          let codes: [UInt8: Key] = [
            UInt8(ascii: "A"): .up, UInt8(ascii: "B"): .down, UInt8(ascii: "C"): .right,
            UInt8(ascii: "D"): .left, UInt8(ascii: "Z"): .backTab,
          ]
          if let key = codes[pending[2]] { keys.append(key) }
          pending.removeFirst(3)
        } else if pending.count == 1 || (pending.count == 2 && pending[1] == UInt8(ascii: "[")) {
          guard flush else { return keys }
          keys.append(.escape)
          pending.removeFirst(pending.count)
        } else {
          keys.append(.escape)
          pending.removeFirst()
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
  /// An alert is showing; it must be dismissed first.
  case alertShowing(String)
  /// `expect` or `wait` did not see its text in time, or `expect-not` saw it.
  case expectationFailed(String)

  /// A one-line explanation.
  public var description: String {
    switch self {
    case .syntax(let message), .notFound(let message), .disabled(let message),
      .expectationFailed(let message):
      message
    case .alertShowing(let message):
      "an alert is showing (\(message)); dismiss it with \"tap OK\""
    }
  }
}
