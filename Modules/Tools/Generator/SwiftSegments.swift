/// Splits Swift source into code and the rest (comments and string literals), so that a rename
/// can treat an identifier in code (`let trellis: URL`, renamed as an identifier, `myApp`)
/// apart from the same word in a string or comment (`"trellis.log"`, renamed as text,
/// `my-app.log`). Interpolations inside strings (`"\(trellis)"`) are code again.
enum SwiftSegments {
  /// One run of the source.
  struct Segment: Equatable {
    /// Whether it is code (not a comment or string literal).
    var isCode: Bool
    /// Its text.
    var text: String
  }

  private enum Mode {
    case code
    case lineComment
    case blockComment(depth: Int)
    /// A string literal: `"`, `"""`, or raw (`#"`, `##"""`...).
    case string(isMultiline: Bool, hashes: Int)
  }

  /// The segments of `source`, in order; joined they are `source` again.
  static func split(_ source: String) -> [Segment] {
    let characters = Array(source)
    var segments: [Segment] = []
    var current = ""
    var mode = Mode.code
    // The strings an interpolation is inside, and its parentheses' depth.
    var interpolations: [(mode: Mode, depth: Int)] = []
    var index = 0

    func isCode(_ mode: Mode) -> Bool {
      if case .code = mode { return true }
      return false
    }
    func switchTo(_ next: Mode) {
      if isCode(next) != isCode(mode), !current.isEmpty {
        segments.append(Segment(isCode: isCode(mode), text: current))
        current = ""
      }
      mode = next
    }
    func starts(_ text: String, at position: Int) -> Bool {
      let pattern = Array(text)
      guard position + pattern.count <= characters.count else { return false }
      return Array(characters[position..<(position + pattern.count)]) == pattern
    }

    while index < characters.count {
      let character = characters[index]
      switch mode {
      case .code:
        if starts("//", at: index) {
          switchTo(.lineComment)
        } else if starts("/*", at: index) {
          switchTo(.blockComment(depth: 1))
          current += "/*"
          index += 2
          continue
        } else if character == "#" || character == "\"" {
          var hashes = 0
          while index + hashes < characters.count, characters[index + hashes] == "#" {
            hashes += 1
          }
          if starts("\"", at: index + hashes) {
            let isMultiline = starts("\"\"\"", at: index + hashes)
            let opening = hashes + (isMultiline ? 3 : 1)
            switchTo(.string(isMultiline: isMultiline, hashes: hashes))
            current += String(characters[index..<(index + opening)])
            index += opening
            continue
          }
        } else if !interpolations.isEmpty {
          if character == "(" {
            interpolations[interpolations.count - 1].depth += 1
          } else if character == ")" {
            interpolations[interpolations.count - 1].depth -= 1
            if interpolations[interpolations.count - 1].depth == 0 {
              let outer = interpolations.removeLast().mode
              switchTo(outer)
            }
          }
        }
      case .lineComment:
        if character.isNewline { switchTo(.code) }  // `\r\n` is one Character
      case .blockComment(let depth):
        if starts("*/", at: index) {
          current += "*/"
          index += 2
          if depth == 1 { switchTo(.code) } else { mode = .blockComment(depth: depth - 1) }
          continue
        } else if starts("/*", at: index) {
          mode = .blockComment(depth: depth + 1)
        }
      case .string(let isMultiline, let hashes):
        let escape = "\\" + String(repeating: "#", count: hashes)
        if starts(escape + "(", at: index) {
          current += escape + "("
          index += escape.count + 1
          interpolations.append((mode, 1))
          switchTo(.code)
          continue
        }
        if starts(escape, at: index), index + escape.count < characters.count {
          current += escape + String(characters[index + escape.count])
          index += escape.count + 1
          continue
        }
        let closing = (isMultiline ? "\"\"\"" : "\"") + String(repeating: "#", count: hashes)
        if starts(closing, at: index) {
          current += closing
          index += closing.count
          switchTo(.code)
          continue
        }
      }
      current.append(character)
      index += 1
    }
    if !current.isEmpty { segments.append(Segment(isCode: isCode(mode), text: current)) }
    return segments
  }
}
