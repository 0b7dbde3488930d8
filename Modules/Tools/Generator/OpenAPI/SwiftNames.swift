import Foundation

/// Swift spellings of the names an API document uses: `created_at` is `createdAt`, `pet-status`
/// is `PetStatus`, `default` is `` `default` ``.
enum SwiftNames {
  /// Words that need backticks as identifiers.
  static let keywords: Set<String> = [
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import",
    "init", "inout", "internal", "let", "open", "operator", "private", "protocol", "public",
    "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "continue",
    "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat",
    "return", "switch", "where", "while", "as", "catch", "false", "is", "nil", "super", "self",
    "Self", "throw", "throws", "true", "try", "Any", "Protocol", "Type", "await", "async", "some",
    "any",
  ]

  /// Names a generated type may not take: the standard types it would hide from the code
  /// around it, and what generated code itself declares.
  static let reservedTypes: Set<String> = GeneratedName.reservedTypes.union([
    "Codable", "Decodable", "Encodable", "Sendable", "Equatable", "Hashable", "CodingKeys",
    "JSONValue", "Indirect", "Int32", "Int64", "Float", "Decoder", "Encoder", "Foundation",
  ])

  /// The words of `raw`: split at characters that are not ASCII letters or digits, and where
  /// a lowercase letter or digit meets an uppercase one (`userID` is `user`, `ID`).
  static func words(_ raw: String) -> [String] {
    var words: [String] = []
    for part in raw.split(whereSeparator: { !($0.isASCII && ($0.isLetter || $0.isNumber)) }) {
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
    return words
  }

  /// lowerCamelCase, for properties, cases and parameters: `created_at` is `createdAt`, `ID` is
  /// `id`, `2fa` is `value2fa`; a name without letters or digits is `value`. Not escaped.
  static func lowerCamel(_ raw: String) -> String {
    let words = words(raw)
    guard let first = words.first else { return "value" }
    let head =
      first.allSatisfy { $0.isUppercase || $0.isNumber }
      ? first.lowercased()
      : first.prefix(1).lowercased() + first.dropFirst()
    let name = head + words.dropFirst().map(capitalized).joined()
    return name.first?.isNumber == true ? "value" + capitalized(name) : name
  }

  /// UpperCamelCase, for types: `pet-status` is `PetStatus`; a name starting with a digit gets
  /// `Schema` before it.
  static func upperCamel(_ raw: String) -> String {
    let name = words(raw).map(capitalized).joined()
    if name.isEmpty { return "Value" }
    return name.first?.isNumber == true ? "Schema" + name : name
  }

  /// `word` with its first letter uppercase; an initialism all uppercase, as Swift spells
  /// them (`invoice_id` is `invoiceID`, `image-url` is `imageURL`).
  static func capitalized(_ word: String) -> String {
    if let initialism = initialisms[word.lowercased()] { return initialism }
    return word.prefix(1).uppercased() + word.dropFirst()
  }

  /// Initialisms written in capitals after a name's first word.
  static let initialisms: [String: String] = [
    "id": "ID", "ids": "IDs", "url": "URL", "urls": "URLs", "uri": "URI", "uuid": "UUID",
    "api": "API", "http": "HTTP", "https": "HTTPS", "json": "JSON", "html": "HTML", "ip": "IP",
  ]

  /// `identifier`, in backticks when it is a keyword.
  static func escaped(_ identifier: String) -> String {
    keywords.contains(identifier) ? "`\(identifier)`" : identifier
  }

  /// `identifier` as an argument label at a call (`Self(public: true)`): Swift reads every
  /// keyword there but `inout`, `var` and `let` as a label, and warns when one is escaped.
  static func label(_ identifier: String) -> String {
    ["inout", "var", "let"].contains(identifier) || !keywords.contains(identifier)
      ? escaped(identifier) : identifier
  }

  /// `text` as the body of a Swift string literal: quotes, backslashes, control characters and
  /// every character a reader might take for a line break (`U+2028`, `U+2029`, `U+0085`) are
  /// escaped, so the text can never end the literal or start a line of code.
  static func literal(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": result += "\\\\"
      case "\"": result += "\\\""
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      default:
        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
          || isLineSeparator(scalar)
        {
          result += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result
  }

  /// `text` as the text of one comment line: every line break (`\n`, `\r`, `\r\n`,
  /// `U+2028`, `U+2029`, `U+0085`, vertical tab, form feed) and control character is a space,
  /// runs of spaces one, so text from a document can never end the comment and start a line
  /// of code. Every comment the generator writes with text it did not choose goes through
  /// here (``documentation(_:fallback:indent:)`` too).
  static func comment(_ text: String) -> String {
    var result = ""
    var lastWasSpace = false
    for scalar in text.unicodeScalars {
      let blank =
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || isLineSeparator(scalar)
        || scalar == " "
      if blank {
        if !lastWasSpace, !result.isEmpty { result += " " }
        lastWasSpace = true
      } else {
        result.unicodeScalars.append(scalar)
        lastWasSpace = false
      }
    }
    while result.last == " " { result.removeLast() }
    return result
  }

  /// Whether `scalar` breaks a line in some reader's eyes (a compiler, an editor, a diff).
  static func isLineSeparator(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: true
    default: false
    }
  }

  /// `text` as documentation lines at `indent`: one `///` line per line of text (at most 12,
  /// each made safe by ``comment(_:)``), or `fallback` when there is no text. Any line break
  /// separates lines (`\r\n`, a lone `\r`, `U+2028`...).
  static func documentation(_ text: String?, fallback: String, indent: String) -> String {
    var lines: [String] = []
    var line = ""
    var afterCarriageReturn = false
    for scalar in (text ?? "").unicodeScalars {
      defer { afterCarriageReturn = scalar == "\r" }
      guard isLineSeparator(scalar) else {
        line.unicodeScalars.append(scalar)
        continue
      }
      // `\r\n` is one break, not two.
      if scalar == "\n", afterCarriageReturn { continue }
      lines.append(line)
      line = ""
    }
    lines.append(line)
    var kept = Array(lines.map(comment).prefix(12))
    while kept.last?.isEmpty == true { kept.removeLast() }
    while kept.first?.isEmpty == true { kept.removeFirst() }
    if kept.isEmpty { kept = [comment(fallback)] }
    return kept.map { $0.isEmpty ? "\(indent)///" : "\(indent)/// \($0)" }
      .joined(separator: "\n")
  }
}
