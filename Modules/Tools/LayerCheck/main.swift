// LayerCheck: the tool behind the `LayerRule` build plugin.
//
// Usage: LayerCheck --target NAME --allowed A,B --modules X,Y,Z --output STAMP -- FILE...
//
// Reports every `import` of a package module (one of --modules) that is not an allowed direct
// dependency (--allowed) of the target, as `file:line:column: error: ...` so that SwiftPM and
// editors show it at the offending line, and exits with status 1. On success it writes STAMP,
// an empty Swift file that the build compiles into the target (SwiftPM only runs build
// commands whose outputs are used).
import Foundation

struct Options {
  var target = ""
  var allowed: Set<String> = []
  var modules: Set<String> = []
  var output = ""
  var files: [String] = []

  init(arguments: [String]) throws {
    var index = 0
    func value() throws -> String {
      index += 1
      guard index < arguments.count else {
        throw UsageError("missing value for \(arguments[index - 1])")
      }
      return arguments[index]
    }
    while index < arguments.count {
      switch arguments[index] {
      case "--target": target = try value()
      case "--allowed": allowed = Self.names(try value())
      case "--modules": modules = Self.names(try value())
      case "--output": output = try value()
      case "--":
        files = Array(arguments[(index + 1)...])
        index = arguments.count
        continue
      default: throw UsageError("unknown argument \(arguments[index])")
      }
      index += 1
    }
    guard !target.isEmpty, !output.isEmpty else {
      throw UsageError("--target and --output are required")
    }
  }

  private static func names(_ list: String) -> Set<String> {
    Set(list.split(separator: ",").map { String($0) })
  }
}

struct UsageError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// One `import` declaration found in a source file.
struct ImportDeclaration: Equatable {
  var module: String
  var line: Int
  var column: Int
}

/// Finds import declarations, skipping comments and multi-line string literals.
func imports(in source: String) -> [ImportDeclaration] {
  var found: [ImportDeclaration] = []
  var inBlockComment = false
  var inMultilineString = false
  for (offset, rawLine) in source.split(separator: "\n", omittingEmptySubsequences: false)
    .enumerated()
  {
    var line = Substring(rawLine)
    if inBlockComment {
      guard let end = line.range(of: "*/") else { continue }
      line = line[end.upperBound...]
      inBlockComment = false
    }
    if line.components(separatedBy: "\"\"\"").count % 2 == 0 {
      inMultilineString.toggle()
      continue
    }
    if inMultilineString { continue }
    let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
    if trimmed.hasPrefix("/*") {
      if trimmed.range(of: "*/") == nil { inBlockComment = true }
      continue
    }
    var words = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    // Attributes (`@testable`, `@_spi(X)`, `@preconcurrency`) and access modifiers come first.
    while let first = words.first,
      first.hasPrefix("@")
        || ["public", "package", "internal", "fileprivate", "private"].contains(first)
    {
      words.removeFirst()
    }
    guard words.first == "import", words.count >= 2 else { continue }
    let kinds: Set<String> = [
      "typealias", "struct", "class", "enum", "protocol", "let", "var", "func",
    ]
    let path = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
    let module = String(path.prefix(while: { $0 != "." && $0 != ";" && $0 != "/" }))
    let column = line.distance(from: line.startIndex, to: trimmed.startIndex) + 1
    found.append(ImportDeclaration(module: module, line: offset + 1, column: column))
  }
  return found
}

func run() -> Int32 {
  let options: Options
  do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
  } catch {
    try? FileHandle.standardError.write(contentsOf: Data("LayerCheck: \(error)\n".utf8))
    return 2
  }
  var violations = 0
  for file in options.files {
    guard let source = try? String(contentsOfFile: file, encoding: .utf8) else {
      print("\(file):1:1: error: LayerCheck could not read this file")
      violations += 1
      continue
    }
    for declaration in imports(in: source)
    where options.modules.contains(declaration.module)
      && !options.allowed.contains(declaration.module)
      && declaration.module != options.target
    {
      let allowedList = options.allowed.sorted().joined(separator: ", ")
      print(
        "\(file):\(declaration.line):\(declaration.column): error: layer rule: '\(options.target)' "
          + "may import only its direct dependencies (\(allowedList.isEmpty ? "none" : allowedList)), "
          + "not '\(declaration.module)'. Move the code down a layer, or go through the layer in "
          + "between (see ARCHITECTURE in README.md)."
      )
      violations += 1
    }
  }
  if violations > 0 { return 1 }
  let stamp =
    "// Generated by LayerCheck: the imports of \(options.target) follow the layer rule.\n"
  // Rewritten only when it differs: a stamp with a new modification time is a changed source
  // to the compiler, so rewriting it on every run would rebuild every layer whenever the
  // check runs again (after any edit in the target, or after SwiftPM rebuilds this tool).
  if (try? String(contentsOfFile: options.output, encoding: .utf8)) == stamp { return 0 }
  do {
    try stamp.write(toFile: options.output, atomically: true, encoding: .utf8)
  } catch {
    try? FileHandle.standardError.write(
      contentsOf: Data("LayerCheck: cannot write \(options.output): \(error)\n".utf8))
    return 2
  }
  return 0
}

exit(run())
