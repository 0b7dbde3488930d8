/// A plain template file with `{{placeholder}}` values and `{{#list}}...{{/list}}` sections.
///
/// - `{{key}}` is replaced by the value of `key`.
/// - `{{#key}}` ... `{{/key}}` repeats its content for each item of the list `key` (with the
///   item's values added), or once when `key` is true; nothing for an empty list or false.
/// - `{{^key}}` ... `{{/key}}` is kept only for an empty list or false.
///
/// A section tag alone on its line takes the line with it, so templates stay readable.
struct Template {
  /// The values a template can use.
  enum Value {
    case text(String)
    case flag(Bool)
    case list([[String: String]])
  }

  let source: String
  let name: String

  func render(_ values: [String: Value]) throws(GeneratorError) -> String {
    try render(Substring(source), values)
  }

  private func render(_ source: Substring, _ values: [String: Value]) throws(GeneratorError)
    -> String
  {
    var output = ""
    var rest = source
    while let open = rest.range(of: "{{") {
      output += rest[..<open.lowerBound]
      guard let close = rest[open.upperBound...].range(of: "}}") else {
        throw GeneratorError("\(name): a \"{{\" is never closed")
      }
      let tag = String(rest[open.upperBound..<close.lowerBound])
      rest = rest[close.upperBound...]
      if let marker = tag.first, marker == "#" || marker == "^" {
        let key = String(tag.dropFirst())
        guard let end = rest.range(of: "{{/\(key)}}") else {
          throw GeneratorError("\(name): the section \"\(key)\" is never closed")
        }
        var body = rest[..<end.lowerBound]
        rest = rest[end.upperBound...]
        // A tag alone on its line: drop that line's break on both sides.
        if body.hasPrefix("\n") { body = body.dropFirst() }
        if rest.hasPrefix("\n"), output.hasSuffix("\n") || output.isEmpty {
          rest = rest.dropFirst()
        }
        let value = values[key] ?? .flag(false)
        switch (marker, value) {
        case ("#", .list(let items)):
          for item in items {
            var scope = values
            for (itemKey, itemValue) in item { scope[itemKey] = .text(itemValue) }
            output += try render(body, scope)
          }
        case ("#", .flag(true)), ("^", .flag(false)):
          output += try render(body, values)
        case ("^", .list(let items)) where items.isEmpty:
          output += try render(body, values)
        default:
          break
        }
      } else {
        guard case .text(let text) = values[tag] else {
          throw GeneratorError("\(name): unknown placeholder {{\(tag)}} (see Templates/README.md)")
        }
        output += text
      }
    }
    output += rest
    return output
  }
}
