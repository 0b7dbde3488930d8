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
  /// The trailing words taken off the name because they only repeat its kind (`screen` in
  /// `my screen`, `service` in `billing-service`), as typed; empty when none were.
  public let droppedKindWords: [String]

  /// The longest name the generator accepts, in UpperCamelCase characters: every path it
  /// writes (`Modules/Features/<Name>/Reactor/<Name>ViewServiceProvider.swift`) and every line of
  /// its templates stays well inside file-system and `swift format` limits.
  public static let maximumLength = 35

  /// Standard-library and Foundation types a bare name would shadow.
  static let reservedTypes: Set<String> = [
    "Any", "AnyObject", "Array", "Bool", "Character", "Data", "Date", "Dictionary", "Double",
    "Error", "Float", "Int", "Never", "Optional", "Result", "Self", "Sequence", "Set", "String",
    "Task", "Type", "URL", "UUID", "Void", "Protocol", "Actor", "MainActor", "Duration",
  ]

  /// The words a name may end with that only repeat its kind: `billing-service` is the
  /// service `Billing` (its types are `BillingService` and `BillingServiceImpl`), and
  /// `SettingsViewController` is the screen `Settings`.
  static let kindWords: [String: [[String]]] = [
    "screen": [["view", "controller"], ["view", "reactor"], ["view"], ["screen"]],
    "service": [["service", "impl"], ["service"]],
    "repository": [["repository"], ["repo", "impl"], ["repo"]],
    "feature": [["feature"]],
  ]

  /// Parses `raw`, the name of a `kind` ("screen", "service", "repository", "feature" or
  /// "project").
  ///
  /// A screen's, service's or repository's name is always followed by a suffix in the code
  /// (`NameViewReactor`, `NameService`), so words like `class` or `task` are fine there; a
  /// project's name is used bare (as a module name), so it may not be a standard type.
  ///
  /// - Throws: ``GeneratorError`` when the name is empty (or only its kind's word), is not made
  ///   of ASCII letters and digits (after removing `-`, `_` and spaces), starts with a digit,
  ///   is longer than ``maximumLength``, or, for a project, is a standard type.
  public init(_ raw: String, kind: String) throws(GeneratorError) {
    let trimmed = raw.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty else { throw GeneratorError("the \(kind) needs a name") }
    let separators: Set<Character> = ["-", "_", " "]
    guard
      trimmed.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || separators.contains($0)) })
    else {
      throw GeneratorError(
        "\"\(raw)\" is not a Swift identifier: use ASCII letters and digits (and - or _ between "
          + "words), such as \"UserSettings\" or \"user-settings\"")
    }
    // Split at the separators (all that is not a letter or digit here) and camelCase too, so
    // `userSettings` gives `User Settings` as a title.
    var words = SwiftNames.words(trimmed)
    var dropped: [String] = []
    for suffix in Self.kindWords[kind] ?? [] where words.count >= suffix.count {
      if words.suffix(suffix.count).map({ $0.lowercased() }) == suffix {
        dropped = Array(words.suffix(suffix.count))
        words.removeLast(suffix.count)
        break
      }
    }
    guard !words.isEmpty else {
      throw GeneratorError(
        "\"\(raw)\" only names the kind; say what the \(kind) is for, such as \"billing\"")
    }
    let upper = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    guard let first = upper.first, first.isLetter else {
      throw GeneratorError("\"\(raw)\" is not a Swift identifier: it must start with a letter")
    }
    guard upper.count <= Self.maximumLength else {
      throw GeneratorError(
        "\"\(upper)\" is \(upper.count) characters long; the limit is \(Self.maximumLength), so "
          + "that every generated file name and line stays within bounds")
    }
    if kind == "project" {
      guard !Self.reservedTypes.contains(upper) else {
        throw GeneratorError(
          "\"\(upper)\" would shadow the standard type \(upper) in every file that imports the "
            + "app's module; choose another name")
      }
    }
    self.upper = upper
    lower = upper.prefix(1).lowercased() + upper.dropFirst()
    title = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    kebab = words.map { $0.lowercased() }.joined(separator: "-")
    droppedKindWords = dropped
  }

  /// What a name's dropped kind words did, for the generator to say: `"screen" ends "my screen"
  /// and names the kind: the screen is My (MyViewReactor, ...)`; `nil` when none were dropped.
  func kindNote(raw: String, kind: String, types: [String]) -> String? {
    guard !droppedKindWords.isEmpty else { return nil }
    let words = droppedKindWords.joined(separator: " ")
    return "Note: \"\(words)\" at the end of \"\(raw)\" names the kind, which the generator "
      + "adds: the \(kind) is \(upper) (\(types.joined(separator: ", "))). To keep the word in "
      + "the name, repeat it: \"\(raw) \(words)\"."
  }
}
