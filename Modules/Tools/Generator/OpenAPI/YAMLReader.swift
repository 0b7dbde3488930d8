/// Reads the YAML that API descriptions are written in, and JSON (which YAML 1.2 reads as
/// well), into a ``DocumentValue``, with no dependency.
///
/// It reads one document: block mappings and sequences (a sequence may sit at its key's
/// indentation), flow collections (`[a, b]`, `{a: b}`, over several lines too), plain, single-
/// and double-quoted scalars (escapes, and text over several lines), literal and folded block
/// scalars (`|`, `>`, with `-`/`+` and an indentation digit), comments, anchors and aliases
/// (`&a`, `*a`) and merge keys (`<<: *a`). Plain scalars resolve as YAML 1.2's core schema
/// does (`null`, `true`, `12`, `1.5`; keys stay text). What it does not read is refused with
/// its line and column: tags (`!`), directives (`%`), complex keys (`? ` with a collection;
/// `? key` with a scalar reads), a second document,
/// a tab in the indentation, an alias to no anchor, a key twice in one mapping, and anything
/// nested deeper than ``maximumDepth``, with more than ``maximumAliases`` aliases, or whose
/// aliases copy more than ``maximumExpandedValues`` values in all (a "billion laughs").
public enum YAMLReader {
  /// The deepest nesting it reads.
  public static let maximumDepth = 128
  /// The most aliases it expands in one document (each is a copy of its anchor's value).
  public static let maximumAliases = 10_000
  /// The most values all aliases together may copy.
  public static let maximumExpandedValues = 1_000_000
  /// The longest document it reads, in characters.
  public static let maximumLength = 32 * 1024 * 1024

  /// The document `text` holds.
  public static func read(_ text: String) throws(DocumentError) -> DocumentValue {
    var parser = try YAMLParser(text)
    return try parser.parseDocument()
  }

  /// The document `text` holds, and where each of its keys and elements is written.
  public static func readWithPositions(_ text: String) throws(DocumentError)
    -> (DocumentValue, DocumentPositions)
  {
    var parser = try YAMLParser(text, recordsPositions: true)
    let value = try parser.parseDocument()
    return (value, parser.documentPositions)
  }
}

/// Where each key and element of a document is written, by its path as messages name it
/// (`components.schemas.Pet.properties.tag`, `paths./pets.get.parameters[0]`).
public struct DocumentPositions: Sendable {
  fileprivate var offsets: [String: Int] = [:]
  fileprivate var lineStarts: [Int] = []

  /// The line and column (1-based) of `location`, or of the nearest value holding it that the
  /// document writes (a value copied by an alias is found at its anchor's holder).
  public func position(of location: String) -> (line: Int, column: Int)? {
    var path = Substring(location)
    while !path.isEmpty {
      if let offset = offsets[String(path)] {
        // The last line starting at or before the offset.
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
          let middle = (low + high + 1) / 2
          if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return (low + 1, offset - (lineStarts.isEmpty ? 0 : lineStarts[low]) + 1)
      }
      // The holder: drop the last `[index]` or `.key`.
      if path.hasSuffix("]"), let open = path.lastIndex(of: "[") {
        path = path[..<open]
      } else if let dot = path.lastIndex(of: ".") {
        path = path[..<dot]
      } else {
        return nil
      }
    }
    return nil
  }
}

/// The reader's state: the text as Unicode scalars, its lines, the anchors seen, and the first
/// line not read yet.
struct YAMLParser {
  private let text: [Unicode.Scalar]
  /// Each line's first offset in `text` and the offset of its end (its line break, or the end).
  private let lines: [(start: Int, end: Int)]
  private var anchors: [String: DocumentValue] = [:]
  private var aliases = 0
  /// The values the aliases so far copied.
  private var expandedValues = 0
  private var depth = 0
  /// The first line not consumed yet.
  private var next = 0
  /// Whether each key's and element's offset is kept, by its path.
  private let recordsPositions: Bool
  /// The path of the value being read (`paths./pets.get.parameters[0]`).
  private var path = ""
  /// The offset of each key and element read, by path.
  private var offsets: [String: Int] = [:]

  /// Where each key and element read is, when `recordsPositions`.
  var documentPositions: DocumentPositions {
    DocumentPositions(offsets: offsets, lineStarts: lines.map(\.start))
  }

  /// Enters the value of `key` (or `[index]`) written at `offset`; returns the path to go
  /// back to.
  private mutating func enter(_ component: String, isIndex: Bool, at offset: Int) -> String {
    let saved = path
    guard recordsPositions else { return saved }
    path = isIndex ? path + component : (path.isEmpty ? component : path + "." + component)
    if offsets[path] == nil { offsets[path] = offset }
    return saved
  }

  init(_ source: String, recordsPositions: Bool = false) throws(DocumentError) {
    self.recordsPositions = recordsPositions
    var scalars: [Unicode.Scalar] = []
    scalars.reserveCapacity(source.unicodeScalars.count)
    var previous: Unicode.Scalar?
    for scalar in source.unicodeScalars {
      // Line breaks as "\n" (a "\r\n" is one).
      if scalar == "\n", previous == "\r" {
        previous = scalar
        continue
      }
      scalars.append(scalar == "\r" ? "\n" : scalar)
      previous = scalar
      guard scalars.count <= YAMLReader.maximumLength else {
        throw DocumentError(
          line: 1, column: 1, "the document is longer than \(YAMLReader.maximumLength) characters")
      }
    }
    if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
    text = scalars
    var lines: [(Int, Int)] = []
    var start = 0
    for (offset, scalar) in scalars.enumerated() where scalar == "\n" {
      lines.append((start, offset))
      start = offset + 1
    }
    if start < scalars.count { lines.append((start, scalars.count)) }
    self.lines = lines
  }

  // MARK: The document

  mutating func parseDocument() throws(DocumentError) -> DocumentValue {
    guard var line = nextContentLine(from: 0) else { return .null }
    if text[lines[line].start] == "%" {
      throw error(lines[line].start, "directives (%YAML, %TAG) are not read")
    }
    var column = try indentation(of: line)
    if isMarker(line, "---") {
      let after = lines[line].start + 3
      if isRestEmpty(from: after, line: line) {
        guard let first = nextContentLine(from: line + 1) else { return .null }
        line = first
        column = try indentation(of: line)
      } else {
        column = skipSpaces(from: after, line: line) - lines[line].start
      }
    }
    if isMarker(line, "...") { return .null }
    let value = try parseNode(line: line, column: column, parentIndent: -1)
    if let rest = nextContentLine(from: next) {
      if isMarker(rest, "...") {
        if let more = nextContentLine(from: rest + 1) {
          throw error(lines[more].start, "a second document: one document is read")
        }
      } else if isMarker(rest, "---") {
        throw error(lines[rest].start, "a second document: one document is read")
      } else {
        let column = try indentation(of: rest)
        throw error(
          lines[rest].start + column,
          "unexpected content here: check the indentation of this line and the one above")
      }
    }
    return value
  }

  // MARK: Block nodes

  /// The node whose first character is at `column` of `line`; its continuation lines are
  /// indented more than `parentIndent`.
  private mutating func parseNode(line: Int, column: Int, parentIndent: Int)
    throws(DocumentError) -> DocumentValue
  {
    let offset = lines[line].start + column
    depth += 1
    defer { depth -= 1 }
    guard depth <= YAMLReader.maximumDepth else {
      throw error(offset, "nested deeper than \(YAMLReader.maximumDepth) levels")
    }
    switch text[offset] {
    case "-" where isIndicator(at: offset):
      return try parseBlockSequence(line: line, column: column)
    case "?" where isIndicator(at: offset):
      return try parseBlockMapping(line: line, column: column)
    case "!":
      throw error(offset, "tags (!name) are not read")
    case "%", "@", "`":
      throw error(offset, "a plain text cannot start with \(text[offset]): quote it")
    case "&":
      return try parseAnchored(at: offset, line: line, parentIndent: parentIndent)
    case "*":
      let (value, end) = try alias(at: offset)
      try finishLine(after: end, line: line)
      return value
    case "|", ">":
      return try parseBlockScalar(at: offset, line: line, parentIndent: parentIndent)
    case "[", "{":
      let (value, end) = try parseFlowNode(at: offset)
      try finishLine(after: end)
      return value
    default:
      if try mappingColon(line: line, from: offset) != nil {
        return try parseBlockMapping(line: line, column: column)
      }
      if text[offset] == "\"" || text[offset] == "'" {
        let (string, end) = try quoted(at: offset)
        try finishLine(after: end)
        return .string(string)
      }
      return try parsePlain(at: offset, line: line, parentIndent: parentIndent)
    }
  }

  /// A value that starts on its key's line, after `key: `.
  private mutating func parseInlineValue(at offset: Int, line: Int, parentIndent: Int)
    throws(DocumentError) -> DocumentValue
  {
    if text[offset] == "-", isIndicator(at: offset) {
      throw error(offset, "a sequence cannot start on its key's line: start it on the next line")
    }
    if !["[", "{", "&", "*", "|", ">", "!"].contains(text[offset]),
      try mappingColon(line: line, from: offset) != nil
    {
      throw error(
        offset, "a mapping cannot start on its key's line: start it on the next line, indented")
    }
    return try parseNode(
      line: line, column: offset - lines[line].start, parentIndent: parentIndent)
  }

  /// The value of a key or an entry that ends its line: the lines below, indented more than
  /// `indent` (or a sequence at `indent`, under a key); nothing there is `null`.
  private mutating func parseValueBelow(line: Int, indent: Int, allowsSequenceAtIndent: Bool)
    throws(DocumentError) -> DocumentValue
  {
    next = line + 1
    guard let below = nextContentLine(from: line + 1) else { return .null }
    let column = try indentation(of: below)
    if column > indent {
      return try parseNode(line: below, column: column, parentIndent: indent)
    }
    if column == indent, allowsSequenceAtIndent, isSequenceEntry(line: below, column: column) {
      return try parseBlockSequence(line: below, column: column)
    }
    return .null
  }

  private mutating func parseBlockMapping(line first: Int, column indent: Int)
    throws(DocumentError) -> DocumentValue
  {
    var object = DocumentObject()
    var merges: [(offset: Int, value: DocumentValue)] = []
    var line = first
    while true {
      let keyOffset = lines[line].start + indent
      let key: String
      let colon: Int
      let isPlain: Bool
      let isExplicit = text[keyOffset] == "?" && isIndicator(at: keyOffset)
      if isExplicit {
        // An explicit key (`? key`, then `: value` below it), as long keys are written.
        (key, colon, line) = try explicitKey(at: keyOffset, line: line, indent: indent)
        isPlain = false
      } else {
        guard let read = try readKey(line: line, at: keyOffset) else {
          throw error(keyOffset, "expected a key (\"name: value\")")
        }
        (key, colon, isPlain) = read
      }
      let valueOffset = skipSpaces(from: colon + 1, line: line)
      let value: DocumentValue
      let holder = enter(key, isIndex: false, at: keyOffset)
      defer { path = holder }
      if isRestEmpty(from: colon + 1, line: line) {
        value = try parseValueBelow(line: line, indent: indent, allowsSequenceAtIndent: true)
      } else if isExplicit {
        // After an explicit key's `: `, a mapping or a sequence may start on the line, as
        // after a sequence's `- `: its column is where its entries go.
        value = try parseNode(
          line: line, column: valueOffset - lines[line].start, parentIndent: indent)
      } else {
        value = try parseInlineValue(at: valueOffset, line: line, parentIndent: indent)
      }
      if isPlain, key == "<<" {
        merges.append((keyOffset, value))
      } else {
        guard object[key] == nil else {
          throw error(keyOffset, "the key \"\(key)\" appears twice in this mapping")
        }
        object[key] = value
      }
      guard let following = nextContentLine(from: next) else { break }
      let column = try indentation(of: following)
      if column < indent || (column == 0 && isDocumentMarker(following)) { break }
      if column > indent {
        throw error(
          lines[following].start + column,
          "unexpected indentation: a key of this mapping goes at column \(indent + 1)")
      }
      if isSequenceEntry(line: following, column: column) {
        throw error(
          lines[following].start + column,
          "a sequence entry where a key of the mapping above was expected")
      }
      line = following
    }
    for merge in merges {
      let sources: [DocumentValue]
      switch merge.value {
      case .object: sources = [merge.value]
      case .array(let elements): sources = elements
      default: sources = []
      }
      for source in sources {
        guard case .object(let merged) = source else {
          throw error(merge.offset, "a merge (<<) takes a mapping or a list of mappings")
        }
        for entry in merged.entries where object[entry.key] == nil {
          object[entry.key] = entry.value
        }
      }
      if sources.isEmpty {
        throw error(merge.offset, "a merge (<<) takes a mapping or a list of mappings")
      }
    }
    return .object(object)
  }

  private mutating func parseBlockSequence(line first: Int, column indent: Int)
    throws(DocumentError) -> DocumentValue
  {
    var elements: [DocumentValue] = []
    var line = first
    while true {
      let dash = lines[line].start + indent
      let holder = enter("[\(elements.count)]", isIndex: true, at: dash)
      defer { path = holder }
      if isRestEmpty(from: dash + 1, line: line) {
        elements.append(
          try parseValueBelow(line: line, indent: indent, allowsSequenceAtIndent: false))
      } else {
        let start = skipSpaces(from: dash + 1, line: line)
        elements.append(
          try parseNode(line: line, column: start - lines[line].start, parentIndent: indent))
      }
      guard let following = nextContentLine(from: next) else { break }
      let column = try indentation(of: following)
      if column < indent { break }
      if column > indent {
        throw error(
          lines[following].start + column,
          "unexpected indentation: an entry of this sequence starts with \"- \" at column "
            + "\(indent + 1)")
      }
      guard isSequenceEntry(line: following, column: column) else { break }
      line = following
    }
    return .array(elements)
  }

  private mutating func parseAnchored(at offset: Int, line: Int, parentIndent: Int)
    throws(DocumentError) -> DocumentValue
  {
    let (name, end) = try anchorName(at: offset)
    let value: DocumentValue
    if isRestEmpty(from: end, line: line) {
      value = try parseValueBelow(line: line, indent: parentIndent, allowsSequenceAtIndent: false)
    } else {
      let start = skipSpaces(from: end, line: line)
      value = try parseNode(
        line: line, column: start - lines[line].start, parentIndent: parentIndent)
    }
    anchors[name] = value
    return value
  }

  /// A plain scalar, with the lines below it that continue it (indented more than
  /// `parentIndent`): one line break between two lines is a space, an empty line a line break.
  private mutating func parsePlain(at offset: Int, line: Int, parentIndent: Int)
    throws(DocumentError) -> DocumentValue
  {
    var string = plainText(from: offset, line: line)
    next = line + 1
    var breaks = 0
    var following = line + 1
    while following < lines.count {
      if isBlank(following) && !isComment(following) {
        breaks += 1
        following += 1
        continue
      }
      let column = try indentation(of: following)
      let start = lines[following].start + column
      if column <= parentIndent || text[start] == "#" || isDocumentMarker(following) { break }
      if try mappingColon(line: following, from: start) != nil {
        throw error(
          start, "this line continues a text above but reads as a key: quote the text above")
      }
      let piece = plainText(from: start, line: following)
      string += breaks == 0 ? " " + piece : String(repeating: "\n", count: breaks) + piece
      breaks = 0
      following += 1
      next = following
    }
    return Self.resolve(string)
  }

  /// `|` or `>` and the lines below it.
  private mutating func parseBlockScalar(at offset: Int, line: Int, parentIndent: Int)
    throws(DocumentError) -> DocumentValue
  {
    let isLiteral = text[offset] == "|"
    var chomping = 0  // -1 strip, 0 clip, +1 keep
    var explicitIndent: Int?
    var index = offset + 1
    while index < lines[line].end {
      switch text[index] {
      case "-" where chomping == 0: chomping = -1
      case "+" where chomping == 0: chomping = 1
      case "1"..."9" where explicitIndent == nil:
        explicitIndent = Int(text[index].value - ("0" as Unicode.Scalar).value)
      default:
        guard isRestEmpty(from: index, line: line) else {
          throw error(
            index,
            "a block scalar's header holds |, >, - or + and an indentation digit, then a comment")
        }
        index = lines[line].end
        continue
      }
      index += 1
    }
    var contentIndent = explicitIndent.map { max(parentIndent, 0) + $0 }
    var contents: [String] = []
    var current = line + 1
    while current < lines.count {
      let (start, end) = lines[current]
      var spaces = 0
      while start + spaces < end, text[start + spaces] == " " { spaces += 1 }
      let isEmpty = start + spaces == end
      if contentIndent == nil, !isEmpty {
        guard spaces > parentIndent else { break }
        contentIndent = spaces
      }
      guard let indent = contentIndent else {
        contents.append("")  // an empty line before the first one with text
        current += 1
        continue
      }
      if isEmpty {
        contents.append(spaces > indent ? string(from: start + indent, to: end) : "")
      } else {
        guard spaces >= indent else { break }
        contents.append(string(from: start + indent, to: end))
      }
      current += 1
    }
    next = current
    return .string(Self.blockText(contents, isLiteral: isLiteral, chomping: chomping))
  }

  /// A block scalar's text from its lines (their indentation removed).
  static func blockText(_ contents: [String], isLiteral: Bool, chomping: Int) -> String {
    var text = ""
    var breaks = 0
    var hasText = false
    var previousIsNormal = false
    for content in contents {
      if content.isEmpty {
        breaks += 1
        continue
      }
      let isNormal = !(content.hasPrefix(" ") || content.hasPrefix("\t"))
      if !hasText {
        text += String(repeating: "\n", count: breaks)
      } else if !isLiteral, previousIsNormal, isNormal {
        text += breaks == 0 ? " " : String(repeating: "\n", count: breaks)
      } else {
        text += String(repeating: "\n", count: breaks + 1)
      }
      text += content
      hasText = true
      breaks = 0
      previousIsNormal = isNormal
    }
    switch chomping {
    case -1: return text
    case 1: return text + String(repeating: "\n", count: breaks + (hasText ? 1 : 0))
    default: return hasText ? text + "\n" : ""
    }
  }

  // MARK: Keys

  /// The offset of the `:` that makes the text at `offset` a key, if it is one.
  private func mappingColon(line: Int, from offset: Int) throws(DocumentError) -> Int? {
    let end = lines[line].end
    var index = offset
    if text[index] == "\"" || text[index] == "'" {
      let quote = text[index]
      index += 1
      while index < end {
        if text[index] == "\\", quote == "\"" {
          index += 2
          continue
        }
        if text[index] == quote {
          if quote == "'", index + 1 < end, text[index + 1] == "'" {
            index += 2
            continue
          }
          break
        }
        index += 1
      }
      guard index < end else { return nil }  // a text over several lines: not a key
      index = skipSpaces(from: index + 1, line: line)
      return index < end && text[index] == ":" && isIndicator(at: index) ? index : nil
    }
    while index < end {
      if text[index] == ":", isIndicator(at: index) { return index }
      if text[index] == "#", index > offset, text[index - 1] == " " || text[index - 1] == "\t" {
        return nil
      }
      index += 1
    }
    return nil
  }

  /// The text of the explicit key `? key` at `offset` (a scalar on that line; a complex key,
  /// a collection, is not read), the offset of the `:` that starts its value on a line below at
  /// the same indentation, and that line.
  private func explicitKey(at offset: Int, line: Int, indent: Int) throws(DocumentError)
    -> (String, Int, Int)
  {
    let start = skipSpaces(from: offset + 1, line: line)
    guard start < lines[line].end,
      !["[", "{", "-", "?", "&", "*", "!", "|", ">"].contains(text[start])
    else {
      throw error(offset, "complex keys (\"? key\" with a collection) are not read")
    }
    let key: String
    if text[start] == "\"" || text[start] == "'" {
      let (quotedKey, end) = try quoted(at: start)
      guard isRestEmpty(from: end, line: line) else {
        throw error(end, "unexpected text after the key")
      }
      key = quotedKey
    } else {
      key = plainText(from: start, line: line)
    }
    guard let valueLine = nextContentLine(from: line + 1),
      try indentation(of: valueLine) == indent,
      text[lines[valueLine].start + indent] == ":", isIndicator(at: lines[valueLine].start + indent)
    else {
      throw error(offset, "an explicit key (\"? key\") needs \": value\" on the next line")
    }
    return (key, lines[valueLine].start + indent, valueLine)
  }

  /// The key at `offset`, the offset of its `:`, and whether it was plain (a merge `<<` is).
  private func readKey(line: Int, at offset: Int) throws(DocumentError) -> (String, Int, Bool)? {
    guard let colon = try mappingColon(line: line, from: offset) else { return nil }
    if text[offset] == "\"" || text[offset] == "'" {
      let (key, _) = try quoted(at: offset)
      return (key, colon, false)
    }
    if text[offset] == "?" && isIndicator(at: offset) {
      throw error(offset, "complex keys (\"? key\") are not read")
    }
    if text[offset] == "&" || text[offset] == "*" || text[offset] == "!" {
      throw error(offset, "an anchor, alias or tag on a key is not read")
    }
    var end = colon
    while end > offset, text[end - 1] == " " || text[end - 1] == "\t" { end -= 1 }
    return (string(from: offset, to: end), colon, true)
  }

  // MARK: Flow nodes

  /// A flow node at `offset` and the offset after it; it may run over several lines.
  private mutating func parseFlowNode(at offset: Int) throws(DocumentError)
    -> (DocumentValue, Int)
  {
    depth += 1
    defer { depth -= 1 }
    guard depth <= YAMLReader.maximumDepth else {
      throw error(offset, "nested deeper than \(YAMLReader.maximumDepth) levels")
    }
    switch text[offset] {
    case "[":
      var elements: [DocumentValue] = []
      var index = try skipFlowSpace(from: offset + 1, opening: offset)
      while text[index] != "]" {
        let holder = enter("[\(elements.count)]", isIndex: true, at: index)
        let (element, end) = try parseFlowNode(at: index)
        path = holder
        elements.append(element)
        index = try skipFlowSpace(from: end, opening: offset)
        if text[index] == "," {
          index = try skipFlowSpace(from: index + 1, opening: offset)
        } else if text[index] != "]" {
          throw error(index, "expected , or ] in this sequence")
        }
      }
      return (.array(elements), index + 1)
    case "{":
      var object = DocumentObject()
      var index = try skipFlowSpace(from: offset + 1, opening: offset)
      while text[index] != "}" {
        let keyOffset = index
        let (key, afterKey) =
          text[index] == "\"" || text[index] == "'"
          ? try quoted(at: index) : try flowPlain(at: index)
        index = afterKey
        guard object[key] == nil else {
          throw error(keyOffset, "the key \"\(key)\" appears twice in this mapping")
        }
        index = try skipFlowSpace(from: index, opening: offset)
        var value = DocumentValue.null
        if text[index] == ":" {
          index = try skipFlowSpace(from: index + 1, opening: offset)
          if text[index] != "," && text[index] != "}" {
            let holder = enter(key, isIndex: false, at: keyOffset)
            defer { path = holder }
            let (parsed, end) = try parseFlowNode(at: index)
            value = parsed
            index = try skipFlowSpace(from: end, opening: offset)
          }
        }
        object[key] = value
        if text[index] == "," {
          index = try skipFlowSpace(from: index + 1, opening: offset)
        } else if text[index] != "}" {
          throw error(index, "expected , or } in this mapping")
        }
      }
      return (.object(object), index + 1)
    case "\"", "'":
      let (string, end) = try quoted(at: offset)
      return (.string(string), end)
    case "*":
      return try alias(at: offset)
    case "&":
      let (name, end) = try anchorName(at: offset)
      let start = try skipFlowSpace(from: end, opening: offset)
      let (value, after) = try parseFlowNode(at: start)
      anchors[name] = value
      return (value, after)
    case "!":
      throw error(offset, "tags (!name) are not read")
    case "]", "}", ",":
      throw error(offset, "expected a value before \(text[offset])")
    default:
      let (string, end) = try flowPlain(at: offset)
      return (Self.resolve(string), end)
    }
  }

  /// A plain scalar in a flow collection: up to `,`, a bracket, `: `, or a comment; its line
  /// breaks are spaces.
  private func flowPlain(at offset: Int) throws(DocumentError) -> (String, Int) {
    var index = offset
    var string = ""
    while index < text.count {
      let scalar = text[index]
      if [",", "[", "]", "{", "}"].contains(scalar) { break }
      if scalar == ":" {
        let after = index + 1 < text.count ? text[index + 1] : " "
        if [" ", "\t", "\n", ",", "]", "}"].contains(after) { break }
      }
      if scalar == "#", index > offset, [" ", "\t"].contains(text[index - 1]) { break }
      if scalar == "\n" {
        while let last = string.unicodeScalars.last, last == " " || last == "\t" {
          string.unicodeScalars.removeLast()
        }
        string += " "
        index += 1
        while index < text.count, text[index] == " " || text[index] == "\t" { index += 1 }
        continue
      }
      string.unicodeScalars.append(scalar)
      index += 1
    }
    let trimmed = String(string.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    guard !trimmed.isEmpty else { throw error(offset, "expected a value") }
    return (trimmed, index)
  }

  /// The offset of the next character that is not a space, a line break or a comment; the
  /// collection opened at `opening` is never closed if the text ends first.
  private func skipFlowSpace(from offset: Int, opening: Int) throws(DocumentError) -> Int {
    var index = offset
    while index < text.count {
      switch text[index] {
      case " ", "\t", "\n":
        index += 1
      case "#" where index == 0 || [" ", "\t", "\n"].contains(text[index - 1]):
        while index < text.count, text[index] != "\n" { index += 1 }
      default:
        return index
      }
    }
    throw error(opening, "this \(text[opening]) is never closed")
  }

  // MARK: Scalars, anchors, aliases

  /// A quoted scalar at `offset` and the offset after its closing quote.
  private func quoted(at offset: Int) throws(DocumentError) -> (String, Int) {
    let quote = text[offset]
    var string = String.UnicodeScalarView()
    var index = offset + 1
    while true {
      guard index < text.count else { throw error(offset, "this quoted text is never closed") }
      let scalar = text[index]
      if scalar == quote {
        if quote == "'", index + 1 < text.count, text[index + 1] == "'" {
          string.append("'")
          index += 2
          continue
        }
        return (String(string), index + 1)
      }
      if scalar == "\\", quote == "\"" {
        index += 1
        guard index < text.count else { throw error(offset, "this quoted text is never closed") }
        if text[index] == "\n" {
          // An escaped line break: the text goes on at the next line's first character.
          index += 1
          while index < text.count, text[index] == " " || text[index] == "\t" { index += 1 }
          continue
        }
        let (escaped, after) = try escape(at: index)
        string.append(escaped)
        index = after
        continue
      }
      if scalar == "\n" {
        // A line break is a space; each empty line after it, a line break.
        while let last = string.last, last == " " || last == "\t" { string.removeLast() }
        var breaks = 0
        index += 1
        while true {
          while index < text.count, text[index] == " " || text[index] == "\t" { index += 1 }
          guard index < text.count, text[index] == "\n" else { break }
          breaks += 1
          index += 1
        }
        if breaks == 0 {
          string.append(" ")
        } else {
          for _ in 0..<breaks { string.append("\n") }
        }
        continue
      }
      string.append(scalar)
      index += 1
    }
  }

  /// The character a `\` escape at `offset` (after the backslash) stands for.
  private func escape(at offset: Int) throws(DocumentError) -> (Unicode.Scalar, Int) {
    let simple: [Unicode.Scalar: Unicode.Scalar] = [
      "0": "\0", "a": "\u{07}", "b": "\u{08}", "t": "\t", "\t": "\t", "n": "\n", "v": "\u{0B}",
      "f": "\u{0C}", "r": "\r", "e": "\u{1B}", " ": " ", "\"": "\"", "/": "/", "\\": "\\",
      "N": "\u{85}", "_": "\u{A0}", "L": "\u{2028}", "P": "\u{2029}",
    ]
    if let scalar = simple[text[offset]] { return (scalar, offset + 1) }
    let digits: Int
    switch text[offset] {
    case "x": digits = 2
    case "u": digits = 4
    case "U": digits = 8
    default: throw error(offset - 1, "an unknown escape \\\(text[offset])")
    }
    guard offset + digits < text.count,
      let value = UInt32(string(from: offset + 1, to: offset + 1 + digits), radix: 16)
    else {
      throw error(offset - 1, "\\\(text[offset]) takes \(digits) hexadecimal digits")
    }
    // JSON writes a character beyond U+FFFF as two escapes, a UTF-16 surrogate pair.
    if digits == 4, (0xD800...0xDBFF).contains(value) {
      let low = offset + 1 + digits
      guard low + 6 <= text.count, text[low] == "\\", text[low + 1] == "u",
        let second = UInt32(string(from: low + 2, to: low + 6), radix: 16),
        (0xDC00...0xDFFF).contains(second),
        let scalar = Unicode.Scalar(0x10000 + ((value - 0xD800) << 10) + (second - 0xDC00))
      else {
        throw error(offset - 1, "a \\u surrogate without its pair")
      }
      return (scalar, low + 6)
    }
    guard let scalar = Unicode.Scalar(value) else {
      throw error(offset - 1, "\\\(text[offset]) names no character (a lone surrogate)")
    }
    return (scalar, offset + 1 + digits)
  }

  /// The name of the anchor `&name` at `offset`, and the offset after it.
  private func anchorName(at offset: Int) throws(DocumentError) -> (String, Int) {
    var end = offset + 1
    while end < text.count, ![" ", "\t", "\n", ",", "[", "]", "{", "}"].contains(text[end]) {
      end += 1
    }
    guard end > offset + 1 else { throw error(offset, "an anchor (&) without a name") }
    return (string(from: offset + 1, to: end), end)
  }

  /// The value of the alias `*name` at `offset`, and the offset after it.
  private mutating func alias(at offset: Int) throws(DocumentError) -> (DocumentValue, Int) {
    let (name, end) = try anchorName(at: offset)
    guard let value = anchors[name] else {
      throw error(offset, "no anchor &\(name) above this alias")
    }
    aliases += 1
    guard aliases <= YAMLReader.maximumAliases else {
      throw error(offset, "more than \(YAMLReader.maximumAliases) aliases")
    }
    // Aliases of anchors holding aliases grow the document exponentially ("a billion
    // laughs"): what the copies hold counts against a bound, as if written out.
    let budget = YAMLReader.maximumExpandedValues - expandedValues
    let size = value.count(upTo: budget + 1)
    guard size <= budget else {
      throw error(
        offset,
        "the aliases expand to more than \(YAMLReader.maximumExpandedValues) values")
    }
    expandedValues += size
    return (value, end)
  }

  /// A plain scalar's text from `offset` to its line's end or comment, trailing spaces dropped.
  private func plainText(from offset: Int, line: Int) -> String {
    var end = offset
    let lineEnd = lines[line].end
    while end < lineEnd {
      if text[end] == "#", end > offset, text[end - 1] == " " || text[end - 1] == "\t" { break }
      end += 1
    }
    while end > offset, text[end - 1] == " " || text[end - 1] == "\t" { end -= 1 }
    return string(from: offset, to: end)
  }

  /// A plain scalar's value under YAML 1.2's core schema.
  static func resolve(_ string: String) -> DocumentValue {
    switch string {
    case "", "~", "null", "Null", "NULL": return .null
    case "true", "True", "TRUE": return .bool(true)
    case "false", "False", "FALSE": return .bool(false)
    case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .double(.infinity)
    case "-.inf", "-.Inf", "-.INF": return .double(-.infinity)
    case ".nan", ".NaN", ".NAN": return .double(.nan)
    default: break
    }
    let scalars = Array(string.unicodeScalars)
    func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
    if string.hasPrefix("0x"), scalars.count > 2, let value = Int(string.dropFirst(2), radix: 16) {
      return .int(value)
    }
    if string.hasPrefix("0o"), scalars.count > 2, let value = Int(string.dropFirst(2), radix: 8) {
      return .int(value)
    }
    var index = 0
    if index < scalars.count, scalars[index] == "-" || scalars[index] == "+" { index += 1 }
    let integerStart = index
    while index < scalars.count, isDigit(scalars[index]) { index += 1 }
    let integerDigits = index - integerStart
    if index == scalars.count, integerDigits > 0 {
      if let value = Int(string) { return .int(value) }
      return Double(string).map(DocumentValue.double) ?? .string(string)
    }
    var fractionDigits = 0
    if index < scalars.count, scalars[index] == "." {
      index += 1
      let fractionStart = index
      while index < scalars.count, isDigit(scalars[index]) { index += 1 }
      fractionDigits = index - fractionStart
    }
    guard integerDigits + fractionDigits > 0 else { return .string(string) }
    if index < scalars.count, scalars[index] == "e" || scalars[index] == "E" {
      index += 1
      if index < scalars.count, scalars[index] == "-" || scalars[index] == "+" { index += 1 }
      let exponentStart = index
      while index < scalars.count, isDigit(scalars[index]) { index += 1 }
      guard index > exponentStart else { return .string(string) }
    }
    guard index == scalars.count, let value = Double(string) else { return .string(string) }
    return .double(value)
  }

  // MARK: Lines

  /// The leading spaces of `line`; a tab among them is refused.
  private func indentation(of line: Int) throws(DocumentError) -> Int {
    let (start, end) = lines[line]
    var index = start
    while index < end, text[index] == " " { index += 1 }
    if index < end, text[index] == "\t" {
      throw error(index, "a tab in the indentation: YAML indents with spaces")
    }
    return index - start
  }

  /// Whether `line` holds nothing but spaces, tabs, or a comment.
  private func isBlank(_ line: Int) -> Bool {
    let (start, end) = lines[line]
    var index = start
    while index < end, text[index] == " " || text[index] == "\t" { index += 1 }
    return index == end || text[index] == "#"
  }

  /// Whether `line` holds a comment (after spaces).
  private func isComment(_ line: Int) -> Bool {
    let (start, end) = lines[line]
    var index = start
    while index < end, text[index] == " " || text[index] == "\t" { index += 1 }
    return index < end && text[index] == "#"
  }

  /// The first line from `line` on that holds more than spaces and a comment.
  private func nextContentLine(from line: Int) -> Int? {
    var line = line
    while line < lines.count {
      if !isBlank(line) { return line }
      line += 1
    }
    return nil
  }

  /// Whether `line` starts with the marker `---` or `...` alone or before a space.
  private func isMarker(_ line: Int, _ marker: String) -> Bool {
    let (start, end) = lines[line]
    let scalars = Array(marker.unicodeScalars)
    guard end - start >= 3, text[start..<start + 3].elementsEqual(scalars) else { return false }
    return end - start == 3 || text[start + 3] == " " || text[start + 3] == "\t"
  }

  private func isDocumentMarker(_ line: Int) -> Bool {
    isMarker(line, "---") || isMarker(line, "...")
  }

  /// Whether `line` has a sequence entry (`- `) at `column`.
  private func isSequenceEntry(line: Int, column: Int) -> Bool {
    let offset = lines[line].start + column
    return offset < lines[line].end && text[offset] == "-" && isIndicator(at: offset)
  }

  /// Whether the character at `offset` is followed by a space, a tab or the line's end.
  private func isIndicator(at offset: Int) -> Bool {
    offset + 1 >= text.count || [" ", "\t", "\n"].contains(text[offset + 1])
  }

  /// The first offset from `offset` on `line` that is not a space or a tab.
  private func skipSpaces(from offset: Int, line: Int) -> Int {
    var index = offset
    while index < lines[line].end, text[index] == " " || text[index] == "\t" { index += 1 }
    return index
  }

  /// Whether only spaces and a comment follow `offset` on `line`.
  private func isRestEmpty(from offset: Int, line: Int) -> Bool {
    let index = skipSpaces(from: offset, line: line)
    return index == lines[line].end || (text[index] == "#" && index > offset)
      || (text[index] == "#" && index == lines[line].start)
  }

  /// Checks that only spaces and a comment follow `offset` on its line, and moves on to the
  /// next line.
  private mutating func finishLine(after offset: Int, line: Int? = nil) throws(DocumentError) {
    let line = line ?? self.line(of: offset)
    guard offset >= lines[line].end || isRestEmpty(from: offset, line: line) else {
      let index = skipSpaces(from: offset, line: line)
      throw error(index, "unexpected text after the value")
    }
    next = line + 1
  }

  /// The line `offset` is on.
  private func line(of offset: Int) -> Int {
    var low = 0
    var high = lines.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if lines[middle].start <= offset { low = middle } else { high = middle - 1 }
    }
    return low
  }

  private func string(from start: Int, to end: Int) -> String {
    var view = String.UnicodeScalarView()
    view.append(contentsOf: text[start..<min(end, text.count)])
    return String(view)
  }

  /// An error at `offset`.
  private func error(_ offset: Int, _ reason: String) -> DocumentError {
    guard !lines.isEmpty else { return DocumentError(line: 1, column: 1, reason) }
    let line = line(of: min(offset, max(text.count - 1, 0)))
    return DocumentError(line: line + 1, column: offset - lines[line].start + 1, reason)
  }
}
