import Foundation

extension Generator {
  /// The project's current name: the `name:` of the package in `manifest`.
  func currentProjectName(in manifest: String) throws(GeneratorError) -> String {
    guard let package = manifest.range(of: "Package("),
      let nameStart = manifest[package.upperBound...].range(of: "name: \""),
      let nameEnd = manifest[nameStart.upperBound...].firstIndex(of: "\"")
    else {
      throw GeneratorError("Package.swift has no `Package(name: \"...\")`")
    }
    return String(manifest[nameStart.upperBound..<nameEnd])
  }

  /// The modules the Swift toolchain ships on Linux and Apple platforms: a project named like
  /// one of them would not build (its module would hide the toolchain's).
  static let toolchainModules: Set<String> = [
    "Swift", "_Concurrency", "_StringProcessing", "_RegexParser", "_Differentiation", "_Volatile",
    "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "FoundationXML", "CoreFoundation", "Dispatch", "Synchronization", "Observation",
    "RegexBuilder", "Distributed", "Cxx", "CxxStdlib", "SwiftShims", "SwiftOnoneSupport", "Glibc",
    "SwiftGlibc", "Musl", "Android", "Darwin", "os", "ObjectiveC", "WinSDK", "WASILibc", "XCTest",
    "Testing", "PackageDescription", "PackagePlugin", "BlocksRuntime", "Combine", "SwiftUI",
    "UIKit",
    "AppKit",
  ]

  /// The edits that rename the package, the app's executable and product, and the app's
  /// identity (its window title, data folder and help text) from the current name to `rawName`.
  ///
  /// The old name is replaced where it is the identity only: as a whole identifier
  /// (`Trellis`, not `TrellisSettings`, the screen a team named), in `Package.swift` as the
  /// package's, product's and app target's name (not in the lists of features, `features` and
  /// `featuresWithTests`), and
  /// in lowercase as the data folder and log file (`trellis`, `trellis.log`; not
  /// `trellis-gen` or the `trellis:` markers). So it works at any time, not only right after
  /// cloning. The layers keep their names.
  public func planRename(_ rawName: String) throws(GeneratorError) -> ChangeSet {
    // Spelled from its UpperCamelCase form, as the next rename will read it back from
    // Package.swift (`a-team` is `ATeam`, so its word is `ateam`, not `a-team`).
    let name = try GeneratedName(
      try GeneratedName(rawName, kind: "project").upper, kind: "project")
    if Self.swiftKeywords.contains(name.lower) {
      throw GeneratorError(
        "\"\(name.lower)\" is a Swift keyword, and the app's code names the project in lowercase "
          + "as an identifier; choose another name")
    }
    let manifestText = try read(Self.manifestPath)
    let old = try currentProjectName(in: manifestText)
    guard name.upper != old else { throw GeneratorError("the project is already named \(old)") }
    if let module = Self.toolchainModules.first(where: {
      $0.lowercased() == name.upper.lowercased()
    }) {
      throw GeneratorError(
        "\"\(name.upper)\" is the name of a module the Swift toolchain ships (\(module)); the app's "
          + "module would hide it and the project would not build; choose another name")
    }
    let manifest = PackageManifest(source: manifestText)
    let modules = manifest.targets.map(\.name).filter { $0 != old }
    if let module = modules.first(where: { $0.lowercased() == name.upper.lowercased() })
      ?? (name.upper.hasSuffix("Tests") ? name.upper : nil)
    {
      throw GeneratorError(
        "\"\(name.upper)\" is the name of a module of the project (\(module)); choose another")
    }
    // Executables and libraries are named like the project's: a new name may not collide with
    // one (`trellis-gen` would make `TrellisGen` beside it), however it is spelled.
    func normalized(_ text: String) -> String {
      String(text.lowercased().filter { $0.isLetter || $0.isNumber })
    }
    if let product = Self.productNames(in: manifestText).first(where: {
      $0 != old && normalized($0) == normalized(name.upper)
    }) {
      throw GeneratorError(
        "\"\(name.upper)\" is the name of a product of the package (\(product)); choose another")
    }
    // The old name in each spelling a rename writes, found again by the next rename: in code
    // the identifier (`trellis`, `myApp`), in strings, comments and docs the word (`trellis`,
    // `my-app`: the data folder, the log file, the link scheme, the embedded host).
    let oldName = try GeneratedName(old, kind: "project")
    let oldIdentifier = oldName.lower
    let oldWord = oldName.kebab
    // The project's modules carry its name (`TrellisCore`): they are renamed with it, wherever
    // they are named. Feature modules keep the names the team gave them (`TrellisSettings`).
    let prefixed = Set(
      manifest.targets.filter { target in
        target.name.count > old.count && target.name.hasPrefix(old)
          && target.name.dropFirst(old.count).first?.isUppercase == true
          && !Self.isFeatureModule(target)
      }.map(\.name))
    let renamedModules = Dictionary(
      uniqueKeysWithValues: prefixed.map { ($0, name.upper + $0.dropFirst(old.count)) })
    if let taken = renamedModules.values.first(where: { modules.contains($0) }) {
      throw GeneratorError(
        "renaming would make a module \(taken), which the project already has; choose another name")
    }
    // A module that is not the project's but would read as one after the rename (`Demo` and
    // `DemoServer`): the next rename would rename it too.
    // (Generated features keep their names through any rename: `TrellisSettings` is a screen.)
    let tools = manifest.targets.filter { !Self.isFeatureModule($0) }
    if let lookalike = (tools.map(\.name) + Self.productNames(in: manifestText))
      .first(where: { other in
        !prefixed.contains(other) && other != old && other.count > name.upper.count
          && other.hasPrefix(name.upper)
          && other.dropFirst(name.upper.count).first?.isUppercase == true
      })
    {
      throw GeneratorError(
        "\"\(name.upper)\" starts the name of \(lookalike), which is not one of the project's "
          + "modules: after the rename it would read as one; choose another name")
    }
    /// The project's modules, as whole tokens.
    func renamingModules(_ text: String) -> String {
      Self.replacingTokens(in: text) { token, _ in renamedModules[String(token)] }
    }
    /// In code: `old` and the project's modules as whole identifiers, and its lowercase
    /// identifier (a declaration `trellis: URL` is renamed with its uses). In comments and
    /// strings: those too, and the lowercase word (`trellis.log`, `trellis://tasks`), except
    /// where it starts `trellis-gen` or a `trellis:name` marker.
    func renamingIdentity(_ text: String) -> String {
      SwiftSegments.split(text).map { segment in
        segment.isCode ? renamingCode(segment.text) : renamingText(segment.text)
      }.joined()
    }
    func renamingCode(_ text: String) -> String {
      Self.replacingTokens(in: text) { token, _ in
        if token == old { return name.upper }
        if let module = renamedModules[String(token)] { return module }
        return token == oldIdentifier ? name.lower : nil
      }
    }
    func renamingText(_ text: String) -> String {
      Self.replacingWord(
        oldWord, with: name.kebab,
        in: Self.replacingTokens(in: text) { token, _ in
          if token == old { return name.upper }
          return renamedModules[String(token)]
        })
    }
    /// The commands that name the app's product.
    func renamingCommands(_ text: String) -> String {
      var text = text
      for (before, after) in [
        ("swift run \(old)", "swift run \(name.upper)"),
        ("--product \(old)", "--product \(name.upper)"),
        (".build/release/\(old)", ".build/release/\(name.upper)"),
        (".build/debug/\(old)", ".build/debug/\(name.upper)"),
      ] where Self.occurs(before, in: text) {
        text = text.replacingOccurrences(of: before, with: after)
      }
      return text
    }
    // The new name's spellings may not be in the files renamed by them already: they would be
    // taken for the project's by the next rename, and renaming back would change them too.
    func refuse(_ found: String, in file: String) -> GeneratorError {
      GeneratorError(
        "\"\(found)\" already appears in \(file): after a rename to it, the next rename could "
          + "not tell it from the project's name; choose another name")
    }
    // README and the guides in docs/ are renamed by word (links, data folder).
    let guides = fileSystem.entries(in: root + "/docs").sorted().filter { $0.hasSuffix(".md") }
      .map { "docs/" + $0 }
    for path in ["README.md"] + guides {
      if let text = try? fileSystem.read(root + "/" + path),
        Self.replacingWord(name.kebab, with: "\u{0}", in: text) != text
      {
        throw refuse(name.kebab, in: path)
      }
    }
    for folder in ["App", "Tests/AppTests"] {
      for file in fileSystem.swiftFiles(under: root + "/" + folder).sorted() {
        guard let text = try? fileSystem.read(file) else { continue }
        var found: String?
        for segment in SwiftSegments.split(text) {
          // The identifier counts in code only (`trellis:name` markers are comments).
          _ = Self.replacingTokens(in: segment.text) { token, _ in
            if found == nil, token == name.upper || (segment.isCode && token == name.lower) {
              found = String(token)
            }
            return nil
          }
        }
        if found == nil, Self.replacingWord(name.kebab, with: "\u{0}", in: text) != text {
          found = name.kebab
        }
        if let found { throw refuse(found, in: String(file.dropFirst(root.count + 1))) }
      }
    }
    // A file that already names a module the rename makes (a type `<Name>Service` of the app
    // package on the products, a script that checks `<Name>Core`) could not be renamed back: the
    // next rename would take that name for the project's module.
    let newModules = Set(renamedModules.values)
    var targets: [(String, (String) -> String)] = [
      (
        "Package.swift",
        {
          Self.renamingPackage(in: $0, from: old, to: name.upper, alsoRenaming: renamingModules)
        }
      ),
      (
        // README describes the starter: its name in prose stays; the heading, the commands,
        // the modules and the app's words (links, data folder, log file) follow the rename.
        "README.md",
        {
          Self.replacingWord(
            oldWord, with: name.kebab,
            in: renamingModules(
              renamingCommands($0.replacingOccurrences(of: "# \(old)\n", with: "# \(name.upper)\n"))
            ))
        }
      ),
    ]
    // Other files that name the modules or the app's product: the CI checks, benchmarks and
    // docs.
    for path in [
      ".ci/run", ".ci/check-layers", ".ci/check-generator", ".ci/check-portability",
      ".ci/check-terminal", "Templates/README.md", "Modules/Core/README.md",
      "Modules/Repository/README.md", "Tests/Benchmarks/GeneratorBenchmark/scale-benchmark.sh",
      "Tests/Benchmarks/AppBenchmark/app-benchmark.py", "Tests/Scripts/tour.txt",
    ] {
      targets.append((path, { renamingModules(renamingCommands($0)) }))
    }
    // The app package check-portability builds on the library products (docs/apple.md quotes
    // it): its manifest names the package and the products, its sources import the modules.
    targets.append(
      (
        ".ci/consumer/Package.swift.in",
        { renamingModules(Self.renamingPackage(in: $0, from: old, to: name.upper)) }
      ))
    for file in fileSystem.swiftFiles(under: root + "/.ci/consumer").sorted() {
      targets.append(
        (String(file.dropFirst(root.count + 1)), { Self.sortingImports(renamingModules($0)) }))
    }
    // The guides in docs/ name the modules, show the commands and the app's words, as README
    // does.
    for path in guides {
      targets.append(
        (
          path,
          {
            Self.replacingWord(oldWord, with: name.kebab, in: renamingModules(renamingCommands($0)))
          }
        )
      )
    }
    // In Swift files the renamed imports are sorted again, as `swift format` wants them
    // (`import Testing` now sorts after `import <Name>Core` when the name sorts first).
    for folder in ["App", "Tests/AppTests"] {
      for file in fileSystem.swiftFiles(under: root + "/" + folder).sorted() {
        targets.append(
          (String(file.dropFirst(root.count + 1)), { Self.sortingImports(renamingIdentity($0)) }))
      }
    }
    for folder in ["Modules", "Tests"] {
      for file in fileSystem.swiftFiles(under: root + "/" + folder).sorted() {
        let relative = String(file.dropFirst(root.count + 1))
        if relative.hasPrefix("Tests/AppTests/") { continue }
        targets.append(
          (relative, { Self.sortingImports(renamingModules(renamingCommands($0))) }))
      }
    }
    var changes = ChangeSet()
    for (path, transform) in targets where fileSystem.exists(root + "/" + path) {
      let original: String
      do {
        original = try fileSystem.read(root + "/" + path)
      } catch {
        throw GeneratorError("cannot read \(path)")
      }
      var taken: String?
      _ = Self.replacingTokens(in: original) { token, _ in
        if taken == nil, newModules.contains(String(token)) { taken = String(token) }
        return nil
      }
      if let taken { throw refuse(taken, in: path) }
      let updated = transform(original)
      if updated != original {
        changes.edits.append(.init(path: path, original: original, updated: updated))
      }
    }
    return changes
  }

  /// `manifest` with the string `"old"` replaced by `"new"` (the package, the product, the
  /// app's target and the tests' dependency on it) and `renaming` applied (the project's
  /// modules), except in the lists of features (`features` and `featuresWithTests`): a feature
  /// the team named like the project, or like one of its modules, keeps its name (its folders
  /// keep theirs).
  static func renamingPackage(
    in manifest: String, from old: String, to new: String,
    alsoRenaming renaming: (String) -> String = { $0 }
  ) -> String {
    var kept: [Range<String.Index>] = []
    for list in ["features", "featuresWithTests"] {
      guard let pattern = try? Regex("(?m)^let \(list)\\b"),
        let start = manifest.firstMatch(of: pattern)?.range,
        let end = manifest[start.upperBound...].range(of: "\n]")
      else { continue }
      kept.append(start.lowerBound..<end.upperBound)
    }
    var result = ""
    var position = manifest.startIndex
    for range in kept.sorted(by: { $0.lowerBound < $1.lowerBound })
    where range.lowerBound >= position {
      result += renaming(
        manifest[position..<range.lowerBound].replacingOccurrences(
          of: "\"\(old)\"", with: "\"\(new)\""))
      result += manifest[range]
      position = range.upperBound
    }
    return result
      + renaming(
        manifest[position...].replacingOccurrences(of: "\"\(old)\"", with: "\"\(new)\""))
  }

  /// Swift's reserved words: the app's code uses the project's lowercase name as an
  /// identifier, which may not be one of them.
  static let swiftKeywords: Set<String> = [
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import",
    "init", "inout", "internal", "let", "open", "operator", "private", "precedencegroup",
    "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
    "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for",
    "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "as", "await",
    "false", "is", "nil", "self", "super", "throws", "true", "try", "any", "some",
  ]

  /// The names of the package's executable products in `manifest` (`.executable(name:`); its
  /// libraries are named like their targets, which the rename checks already.
  static func productNames(in manifest: String) -> [String] {
    var names: [String] = []
    var rest = Substring(manifest)
    while let call = rest.range(of: ".executable(name: \"") {
      let tail = rest[call.upperBound...]
      guard let end = tail.firstIndex(of: "\"") else { break }
      names.append(String(tail[..<end]))
      rest = tail[end...]
    }
    return names
  }

  /// `text` with each occurrence of the word `old` (`trellis`, `my-app`) that stands alone
  /// replaced by `new`: not inside a longer word or name (`trellisExecutable`, `x-trellis`),
  /// not followed by `-` (`trellis-gen`), and not before a colon (`trellis:name` markers),
  /// except in a link (`trellis://`, renamed).
  static func replacingWord(_ old: String, with new: String, in text: String) -> String {
    guard !old.isEmpty, text.contains(old) else { return text }
    func isWordCharacter(_ character: Character?) -> Bool {
      guard let character else { return false }
      return character.isASCII
        && (character.isLetter || character.isNumber || character == "_" || character == "-")
    }
    var result = ""
    var rest = Substring(text)
    while let found = rest.range(of: old) {
      let before =
        found.lowerBound > text.startIndex ? text[text.index(before: found.lowerBound)] : nil
      let after = rest[found.upperBound...]
      // `trellis:name` and `// trellis:` (prose about the markers) stay; `trellis://` goes.
      let isMarker = after.first == ":" && after.dropFirst().first != "/"
      result += rest[..<found.lowerBound]
      if isWordCharacter(before) || isWordCharacter(after.first) || isMarker {
        result += old
      } else {
        result += new
      }
      rest = after
    }
    return result + rest
  }

  /// Whether `needle` occurs in `text`, byte for byte (the check before a Foundation
  /// replacement, which copies the text whether or not it finds anything).
  static func occurs(_ needle: String, in text: String) -> Bool {
    let needle = Array(needle.utf8)
    guard let first = needle.first else { return true }
    let found = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
      guard bytes.count >= needle.count else { return false }
      var index = 0
      let last = bytes.count - needle.count
      while index <= last {
        if bytes[index] == first {
          var matched = 1
          while matched < needle.count, bytes[index + matched] == needle[matched] { matched += 1 }
          if matched == needle.count { return true }
        }
        index += 1
      }
      return false
    }
    return found ?? text.contains(String(decoding: needle, as: UTF8.self))
  }

  /// `text` with each identifier-like token (ASCII letters, digits, `_`) for which
  /// `replacement`, given the token and the text after it, returns a value replaced by that
  /// value.
  ///
  /// A token is a run of characters that are each one of those: a letter with an accent joined
  /// to it (a combining mark after it) is a character of its own, not part of a token. The
  /// scan reads bytes (a byte under 0x80 is an ASCII character, and those are never part of
  /// another character, except where a run meets a non-ASCII scalar: checked there), and copies
  /// the text between replaced tokens whole.
  static func replacingTokens(
    in text: String, _ replacement: (Substring, Substring) -> String?
  ) -> String {
    let bytes = text.utf8
    func isTokenByte(_ byte: UInt8) -> Bool {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
        true
      default: false
      }
    }
    // Whether the run's edge at `index` is between two characters (a scalar beside it may join
    // the ASCII one at the edge into a character of its own).
    func isCharacterBoundary(_ index: String.Index) -> Bool {
      index.samePosition(in: text) != nil
    }
    var result = ""
    var copied = bytes.startIndex
    var index = bytes.startIndex
    while index < bytes.endIndex {
      guard isTokenByte(bytes[index]) else {
        index = bytes.index(after: index)
        continue
      }
      var start = index
      var end = bytes.index(after: index)
      while end < bytes.endIndex, isTokenByte(bytes[end]) { end = bytes.index(after: end) }
      index = end
      // At a non-ASCII neighbour: the edge letter joined to it is not part of the token.
      if start > bytes.startIndex, bytes[bytes.index(before: start)] >= 0x80,
        !isCharacterBoundary(start)
      {
        start = bytes.index(after: start)
      }
      if start < end, end < bytes.endIndex, bytes[end] >= 0x80, !isCharacterBoundary(end) {
        end = bytes.index(before: end)
      }
      guard start < end, let replaced = replacement(text[start..<end], text[end...]) else {
        continue
      }
      if result.isEmpty { result.reserveCapacity(bytes.count) }
      result += text[copied..<start]
      result += replaced
      copied = end
    }
    guard copied > bytes.startIndex else { return text }
    result += text[copied...]
    return result
  }

  /// Whether `target` is one of a feature's modules (its reactors, its views, its tests), which
  /// keep the names the team gave them through a rename.
  static func isFeatureModule(_ target: PackageManifest.Target) -> Bool {
    let path = target.path ?? ""
    return path.hasPrefix(featuresFolder + "/") || path.hasPrefix(featureTestsFolder + "/")
  }
}
