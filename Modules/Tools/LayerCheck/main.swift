// LayerCheck: the tool behind the `LayerRule` build plugin.
//
// Usage: LayerCheck --target NAME [--folder LAYER] --allowed A,B --modules X,Y,Z --output STAMP
//          [--cache FILE] -- FILE... [--features FILE...] [--unplaced FILE...]
//
// Reports every `import` of a package module (one of --modules) that is not an allowed direct
// dependency (--allowed) of the target, as `file:line:column: error: ...` so that SwiftPM and
// editors show it at the offending line, and exits with status 1. The files after `--` are the
// target's; those after `--features` are feature modules' files in the folder named after the
// target's layer (`Modules/Features/<Name>/Reactor/` for the reactor layer), held to the same
// rule, except that they may also import their own feature's `<Name>Feature` (its view
// controllers use its reactors); those after `--unplaced` are files in a feature's folder
// outside any layer folder, each an error. On success
// it writes STAMP, an empty Swift file that the build compiles into the target (SwiftPM only
// runs build commands whose outputs are used).
//
// With --cache, the imports found in each file are kept with its size and modification time,
// and a file whose size and time are unchanged is not read again: the check of a layer and its
// folders in 200 feature modules reads only the file that was edited.
import Foundation

struct Options {
  var target = ""
  /// The name of the layer's folder (`Reactor` for `TrellisReactor`), which features' folders
  /// of that layer are named after; the target's name if not given.
  var folder = ""
  var allowed: Set<String> = []
  var modules: Set<String> = []
  var output = ""
  var cache: String?
  var files: [String] = []
  var featureFiles: [String] = []
  var unplacedFiles: [String] = []

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
      case "--folder": folder = try value()
      case "--allowed": allowed = Self.names(try value())
      case "--modules": modules = Self.names(try value())
      case "--output": output = try value()
      case "--cache": cache = try value()
      case "--":
        var list = \Options.files
        for argument in arguments[(index + 1)...] {
          switch argument {
          case "--features": list = \Options.featureFiles
          case "--unplaced": list = \Options.unplacedFiles
          default: self[keyPath: list].append(argument)
          }
        }
        index = arguments.count
        continue
      default: throw UsageError("unknown argument \(arguments[index])")
      }
      index += 1
    }
    guard !target.isEmpty, !output.isEmpty else {
      throw UsageError("--target and --output are required")
    }
    if folder.isEmpty { folder = target }
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

/// The imports found in files, remembered by each file's size and modification time.
struct ImportCache {
  private struct Entry {
    var stamp: String
    var imports: [ImportDeclaration]
  }

  private var entries: [String: Entry] = [:]
  /// Whether an entry was added or replaced since the cache was read.
  private(set) var changed = false

  /// Reads the cache at `path`; a missing or unreadable cache is an empty one.
  init(path: String?) {
    guard let path, let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
    // One line per file: `<stamp>\t<path>\t<module>:<line>:<column>,...`.
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard fields.count == 3 else { continue }
      var imports: [ImportDeclaration] = []
      var valid = true
      for item in fields[2].split(separator: ",") {
        let parts = item.split(separator: ":")
        guard parts.count == 3, let line = Int(parts[1]), let column = Int(parts[2]) else {
          valid = false
          break
        }
        imports.append(ImportDeclaration(module: String(parts[0]), line: line, column: column))
      }
      if valid { entries[String(fields[1])] = Entry(stamp: String(fields[0]), imports: imports) }
    }
  }

  /// The imports of `file`: remembered if its size and modification time are unchanged, read
  /// otherwise; nil if it cannot be read.
  mutating func imports(of file: String) -> [ImportDeclaration]? {
    let stamp = Self.stamp(of: file)
    if let stamp, let entry = entries[file], entry.stamp == stamp { return entry.imports }
    guard let source = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
    let found = LayerCheck.imports(in: source)
    // A path with a tab or a line break cannot be stored; it is read again next time.
    if let stamp, !file.contains("\t"), !file.contains("\n") {
      entries[file] = Entry(stamp: stamp, imports: found)
      changed = true
    }
    return found
  }

  /// Writes the cache to `path`, keeping only `files` (the others were renamed or removed).
  func write(to path: String, keeping files: [String]) throws {
    let text = files.compactMap { file -> String? in
      guard let entry = entries[file] else { return nil }
      let imports = entry.imports.map { "\($0.module):\($0.line):\($0.column)" }
      return "\(entry.stamp)\t\(file)\t\(imports.joined(separator: ","))\n"
    }.joined()
    try text.write(toFile: path, atomically: true, encoding: .utf8)
  }

  /// `<size>-<seconds>.<nanoseconds>` of the file's modification time, or nil.
  private static func stamp(of file: String) -> String? {
    var status = stat()
    guard stat(file, &status) == 0 else { return nil }
    let time = status.st_mtim
    return "\(status.st_size)-\(time.tv_sec).\(time.tv_nsec)"
  }
}

/// The reactor module of the feature whose folder holds `file`:
/// `.../Features/Orders/Front/A.swift` -> `OrdersFeature`.
func featureModule(of file: String) -> String? {
  let components = file.split(separator: "/")
  guard let index = components.lastIndex(of: "Features"), index + 2 < components.count else {
    return nil
  }
  return "\(components[index + 1])Feature"
}

func run() -> Int32 {
  let options: Options
  do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
  } catch {
    try? FileHandle.standardError.write(contentsOf: Data("LayerCheck: \(error)\n".utf8))
    return 2
  }
  var cache = ImportCache(path: options.cache)
  var violations = 0
  let allowedList = options.allowed.sorted().joined(separator: ", ")
  let checked = options.files.map { ($0, false) } + options.featureFiles.map { ($0, true) }
  for (file, inFeature) in checked {
    guard let found = cache.imports(of: file) else {
      print("\(file):1:1: error: LayerCheck could not read this file")
      violations += 1
      continue
    }
    let ownFeature = inFeature ? featureModule(of: file) : nil
    for declaration in found
    where options.modules.contains(declaration.module)
      && !options.allowed.contains(declaration.module)
      && declaration.module != options.target && declaration.module != ownFeature
    {
      let subject =
        inFeature
        ? "a feature module's '\(options.folder)/' folder follows '\(options.target)', which"
        : "'\(options.target)'"
      print(
        "\(file):\(declaration.line):\(declaration.column): error: layer rule: \(subject) "
          + "may import only its direct dependencies (\(allowedList.isEmpty ? "none" : allowedList)), "
          + "not '\(declaration.module)'. Move the code down a layer, or go through the layer in "
          + "between (see \"The layers\" in README.md)."
      )
      violations += 1
    }
  }
  // A build plan made before the file was removed may still list it: only files still there.
  for file in options.unplacedFiles where FileManager.default.fileExists(atPath: file) {
    print(
      "\(file):1:1: error: layer rule: a feature module's file belongs in a folder named after "
        + "its layer (Front/, Reactor/), where that layer's import rule applies."
    )
    violations += 1
  }
  if let path = options.cache, cache.changed {
    // A cache that cannot be written only costs the next run the reading it saves.
    try? cache.write(to: path, keeping: options.files + options.featureFiles)
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
