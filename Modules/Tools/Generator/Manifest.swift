/// What the generator needs to know of `Package.swift`: its targets, where their sources are,
/// and what each depends on; read from the text (the generator cannot run the manifest).
///
/// It understands the shapes SwiftPM manifests use: `.target(name:dependencies:path:)`
/// calls (also `.executableTarget`, `.testTarget`, `.plugin`) with string dependencies, and
/// lists built with `features.map { ... "\($0)..." ... }` as Trellis's manifest does
/// for the generated feature modules. Sources of a target without a `path:` are in
/// `Sources/<name>` (`Tests/<name>` for a test target).
struct PackageManifest {
  /// One target.
  struct Target: Equatable {
    /// Its module name.
    var name: String
    /// Its sources folder, relative to the package root (none for a plugin).
    var path: String?
    /// The names of the targets and products it depends on.
    var dependencies: [String]
  }

  /// Every target, the generated feature modules included.
  private(set) var targets: [Target] = []
  /// The entries of `features`.
  private(set) var features: [String] = []
  /// The entries of `featuresWithTests`: the features whose tests are a module of their own.
  private(set) var featuresWithTests: [String] = []

  private let source: String

  /// Reads `source`, the text of a `Package.swift`.
  init(source: String) {
    self.source = Self.strippingComments(source)
    features = Self.quotedStrings(in: definition(of: "features") ?? "")
    featuresWithTests = Self.quotedStrings(in: definition(of: "featuresWithTests") ?? "")
    // A plugin's usage (`.plugin(name: "LayerRule")`) is not a plugin target.
    let calls = targetCalls(in: self.source).filter {
      $0.kind != "plugin" || $0.arguments.contains("capability:")
    }
    targets = calls.compactMap { target(from: $0) }
    // A list of targets built from the generated features (`] + featureTargets`), or from the
    // features with a test module (`+ featureTestTargets`).
    for (name, body) in listDefinitions()
    where body.contains("features.map") || body.contains("featuresWithTests.map") {
      guard source.contains("+ \(name)"), body.contains(".target(") || body.contains(".testTarget(")
      else { continue }
      let mapped = body.contains("featuresWithTests.map") ? featuresWithTests : features
      for feature in mapped {
        let expanded = Self.substituting(feature, in: body)
        targets += targetCalls(in: expanded).compactMap { target(from: $0) }
      }
    }
    // One target per name: a `.target(name: "X")` dependency listed outside any target reads
    // like a target with nothing but a name; the definition with more wins.
    var indices: [String: Int] = [:]
    var unique: [Target] = []
    for target in targets {
      if let index = indices[target.name] {
        if unique[index].dependencies.isEmpty, !target.dependencies.isEmpty {
          unique[index] = target
        }
      } else {
        indices[target.name] = unique.count
        unique.append(target)
      }
    }
    targets = unique
  }

  /// The target whose sources folder holds `path` (relative to the root): the deepest one.
  func owner(of path: String) -> Target? {
    targets.filter { target in
      guard let folder = target.path else { return false }
      return path == folder || path.hasPrefix(folder + "/")
    }.max { ($0.path?.count ?? 0) < ($1.path?.count ?? 0) }
  }

  /// `names` and every target they depend on, directly or not.
  func closure(of names: [String]) -> Set<String> {
    var seen: Set<String> = []
    var pending = names
    while let name = pending.popLast() {
      guard seen.insert(name).inserted else { continue }
      pending += targets.first { $0.name == name }?.dependencies ?? []
    }
    return seen
  }

  // MARK: Parsing

  private func target(from call: (kind: String, arguments: String)) -> Target? {
    // The template of `features.map { .target(name: "\($0)Feature", ...) }` is
    // expanded for each feature, not read as a target.
    guard let name = Self.stringArgument("name", in: call.arguments), !name.contains("\\(")
    else { return nil }
    let folder = call.kind == "testTarget" ? "Tests" : "Sources"
    let path: String? =
      call.kind == "plugin"
      ? Self.stringArgument("path", in: call.arguments)
      : Self.stringArgument("path", in: call.arguments) ?? "\(folder)/\(name)"
    var dependencies: [String] = []
    if let list = Self.bracketedArgument("dependencies", in: call.arguments) {
      dependencies = Self.quotedStrings(in: list.literal)
      // `[...] + featureModules`: a list defined elsewhere in the manifest.
      for identifier in list.appended {
        guard let body = definition(of: identifier) else { continue }
        if body.contains("features.map") {
          for feature in features {
            dependencies += Self.quotedStrings(in: Self.substituting(feature, in: body))
          }
        } else {
          dependencies += Self.quotedStrings(in: body)
        }
      }
    }
    return Target(name: name, path: path, dependencies: dependencies)
  }

  /// The calls `.target(...)`, `.executableTarget(...)`, `.testTarget(...)`, `.plugin(...)`,
  /// each with the text between its parentheses; not those nested in another (a dependency
  /// written `.target(name: "X")`).
  private func targetCalls(in text: String) -> [(kind: String, arguments: String)] {
    var calls: [(String, String)] = []
    var end = text.startIndex
    for match in text.matches(of: #/\.(target|executableTarget|testTarget|plugin)\(/#)
    where match.range.lowerBound >= end {
      guard let arguments = Self.balanced(text, from: match.range.upperBound, close: ")") else {
        continue
      }
      calls.append((String(match.output.1), arguments))
      end = text.index(match.range.upperBound, offsetBy: arguments.count)
    }
    return calls
  }

  /// The text after `let <name>... =` up to the end of its expression (a blank line or the
  /// next top-level `let`).
  private func definition(of name: String) -> String? {
    guard let pattern = try? Regex("(?m)^let \(name)\\b[^=]*="),
      let start = source.firstMatch(of: pattern)
    else { return nil }
    let rest = source[start.range.upperBound...]
    let end = rest.firstMatch(of: #/\n(?:\n|let |import )/#)?.range.lowerBound ?? rest.endIndex
    return String(rest[..<end])
  }

  /// Every top-level `let name ... = body`.
  private func listDefinitions() -> [(String, String)] {
    source.matches(of: #/(?m)^let (\w+)/#).compactMap { match in
      let name = String(match.output.1)
      return definition(of: name).map { (name, $0) }
    }
  }

  // MARK: Text helpers

  /// `text` without `//` comments (outside string literals).
  static func strippingComments(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
      var inString = false
      var previous: Character = " "
      for index in line.indices {
        let character = line[index]
        if character == "\"" && previous != "\\" { inString.toggle() }
        if !inString, character == "/", previous == "/" {
          return line[..<line.index(before: index)]
        }
        previous = character
      }
      return line
    }.joined(separator: "\n")
  }

  /// The text from `start` to the `close` (`)` or `]`) that balances it, not included;
  /// brackets inside string literals do not count.
  static func balanced(_ text: String, from start: String.Index, close: Character) -> String? {
    var depth = 1
    var inString = false
    var previous: Character = " "
    var index = start
    while index < text.endIndex {
      let character = text[index]
      if character == "\"" && previous != "\\" {
        inString.toggle()
      } else if !inString {
        if character == "(" || character == "[" { depth += 1 }
        if character == ")" || character == "]" {
          depth -= 1
          if depth == 0 { return character == close ? String(text[start..<index]) : nil }
        }
      }
      previous = character
      index = text.index(after: index)
    }
    return nil
  }

  /// The string given for `label:` among `arguments` (not inside a nested call).
  static func stringArgument(_ label: String, in arguments: String) -> String? {
    var depth = 0
    var inString = false
    var index = arguments.startIndex
    let prefix = "\(label): \""
    while index < arguments.endIndex {
      let character = arguments[index]
      if !inString, depth == 0, arguments[index...].hasPrefix(prefix),
        index == arguments.startIndex
          || !(arguments[arguments.index(before: index)].isLetter)
      {
        let valueStart = arguments.index(index, offsetBy: prefix.count)
        guard let end = arguments[valueStart...].firstIndex(of: "\"") else { return nil }
        return String(arguments[valueStart..<end])
      }
      if character == "\"" {
        inString.toggle()
      } else if !inString {
        if character == "(" || character == "[" { depth += 1 }
        if character == ")" || character == "]" { depth -= 1 }
      }
      index = arguments.index(after: index)
    }
    return nil
  }

  /// The `[...]` given for `label:`, and the identifiers added to it with `+`.
  static func bracketedArgument(_ label: String, in arguments: String) -> (
    literal: String, appended: [String]
  )? {
    guard let labelRange = arguments.range(of: "\(label):"),
      let open = arguments[labelRange.upperBound...].firstIndex(of: "["),
      let literal = balanced(arguments, from: arguments.index(after: open), close: "]")
    else { return nil }
    var rest = arguments[arguments.index(open, offsetBy: literal.count + 2)...]
    var appended: [String] = []
    while let match = rest.prefixMatch(of: #/\s*\+\s*(\w+)/#) {
      appended.append(String(match.output.1))
      rest = rest[match.range.upperBound...]
    }
    return (literal, appended)
  }

  /// The contents of every string literal in `text`.
  static func quotedStrings(in text: String) -> [String] {
    text.matches(of: #/"((?:[^"\\]|\\.)*)"/#).map { String($0.output.1) }
  }

  /// `text` with `\($0)` and `\(feature)`-style interpolations replaced by `value`.
  static func substituting(_ value: String, in text: String) -> String {
    text.replacing(#/\\\(\s*[$\w]+\s*\)/#, with: value)
  }
}
