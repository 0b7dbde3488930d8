import Foundation

/// A name the user typed, normalised: `user-settings`, `user_settings`, `userSettings` and
/// `UserSettings` all become `UserSettings`.
public struct GeneratedName: Equatable, Sendable {
  /// UpperCamelCase: `UserSettings` (types).
  public let upper: String
  /// lowerCamelCase: `userSettings` (properties).
  public let lower: String
  /// Words: `User Settings` (titles and messages).
  public let title: String
  /// kebab-case: `user-settings` (URL paths).
  public let kebab: String

  /// Swift's keywords, which no generated name may be (in any case).
  static let keywords: Set<String> = [
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import",
    "init", "inout", "internal", "let", "open", "operator", "private", "precedencegroup",
    "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
    "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for",
    "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "as", "any",
    "false", "is", "nil", "self", "super", "throws", "true", "try", "await", "async", "some",
    "type", "protocol", "actor", "consume", "copy", "borrowing", "consuming", "sending",
  ]

  /// Standard-library and Foundation types a generated name must not shadow.
  static let reservedTypes: Set<String> = [
    "Any", "AnyObject", "Array", "Bool", "Character", "Data", "Date", "Dictionary", "Double",
    "Error", "Float", "Int", "Never", "Optional", "Result", "Self", "Sequence", "Set", "String",
    "Task", "Type", "URL", "UUID", "Void", "Protocol", "Actor", "MainActor", "Duration",
  ]

  /// Parses `raw`.
  ///
  /// - Throws: ``GeneratorError`` when the name is empty, is not made of ASCII letters and
  ///   digits (after removing `-`, `_` and spaces), starts with a digit, or is a keyword.
  public init(_ raw: String, kind: String, checksReservedTypes: Bool = true) throws(GeneratorError)
  {
    let trimmed = raw.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty else { throw GeneratorError("the \(kind) needs a name") }
    let separators: Set<Character> = ["-", "_", " "]
    var words: [String] = []
    for part in trimmed.split(whereSeparator: { separators.contains($0) }) {
      // Split camelCase too, so `userSettings` gives `User Settings` as a title.
      var word = ""
      for character in part {
        if character.isUppercase, let last = word.last, last.isLowercase || last.isNumber {
          words.append(word)
          word = ""
        }
        word.append(character)
      }
      if !word.isEmpty { words.append(word) }
    }
    guard
      trimmed.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || separators.contains($0)) })
    else {
      throw GeneratorError(
        "\"\(raw)\" is not a Swift identifier: use ASCII letters and digits (and - or _ between "
          + "words), such as \"UserSettings\" or \"user-settings\"")
    }
    let upper = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    guard let first = upper.first, first.isLetter else {
      throw GeneratorError("\"\(raw)\" is not a Swift identifier: it must start with a letter")
    }
    guard !Self.keywords.contains(trimmed.lowercased()), !Self.keywords.contains(upper.lowercased())
    else {
      throw GeneratorError("\"\(raw)\" is a Swift keyword; choose another name")
    }
    guard !checksReservedTypes || !Self.reservedTypes.contains(upper) else {
      throw GeneratorError(
        "\"\(upper)\" is already a Swift or Foundation type; choose a name that says what the "
          + "\(kind) is for")
    }
    self.upper = upper
    lower = upper.prefix(1).lowercased() + upper.dropFirst()
    title = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    kebab = words.map { $0.lowercased() }.joined(separator: "-")
  }
}
