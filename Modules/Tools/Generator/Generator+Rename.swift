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
  /// package's, product's and app target's name (not in the list of generated features), and
  /// in lowercase as the data folder and log file (`trellis`, `trellis.log`; not
  /// `trellis-gen` or the `trellis:` markers). So it works at any time, not only right after
  /// cloning. The layers keep their names.
  public func planRename(_ rawName: String) throws(GeneratorError) -> ChangeSet {
    let name = try GeneratedName(rawName, kind: "project")
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
    let oldLower = old.lowercased()
    let newLower = name.kebab
    // The project's modules carry its name (`TrellisCore`): they are renamed with it, wherever
    // they are named. Feature modules keep the names the team gave them (`TrellisSettings`).
    let prefixed = Set(
      manifest.targets.filter { target in
        target.name.count > old.count && target.name.hasPrefix(old)
          && target.name.dropFirst(old.count).first?.isUppercase == true
          && !(target.path ?? "").hasPrefix(Self.featuresFolder + "/")
      }.map(\.name))
    let renamedModules = Dictionary(
      uniqueKeysWithValues: prefixed.map { ($0, name.upper + $0.dropFirst(old.count)) })
    if let taken = renamedModules.values.first(where: { modules.contains($0) }) {
      throw GeneratorError(
        "renaming would make a module \(taken), which the project already has; choose another name")
    }
    /// The project's modules, as whole tokens.
    func renamingModules(_ text: String) -> String {
      Self.replacingTokens(in: text) { token, _ in renamedModules[String(token)] }
    }
    /// `old` as a whole identifier, and its lowercase form unless it starts `trellis-gen`, a
    /// `trellis:name` marker or a `trellis://` link, or is part of a longer word. (A
    /// declaration `trellis: URL` is an identifier and is renamed with its uses.)
    func renamingIdentity(_ text: String) -> String {
      Self.replacingTokens(in: text) { token, following in
        if token == old { return name.upper }
        if let module = renamedModules[String(token)] { return module }
        guard token == oldLower, following.first != "-" else { return nil }
        if following.first == ":", let after = following.dropFirst().first,
          after.isLetter || after == "/"
        {
          return nil
        }
        return newLower
      }
    }
    var targets: [(String, (String) -> String)] = [
      (
        "Package.swift",
        { renamingModules(Self.renamingPackage(in: $0, from: old, to: name.upper)) }
      ),
      (
        "README.md",
        {
          renamingModules(
            $0.replacingOccurrences(of: "# \(old)\n", with: "# \(name.upper)\n")
              .replacingOccurrences(of: "swift run \(old)", with: "swift run \(name.upper)")
              .replacingOccurrences(of: "--product \(old)", with: "--product \(name.upper)")
              .replacingOccurrences(
                of: ".build/release/\(old)", with: ".build/release/\(name.upper)"))
        }
      ),
      (
        ".ci/run",
        {
          renamingModules(
            $0.replacingOccurrences(of: "--product \(old)", with: "--product \(name.upper)")
              .replacingOccurrences(
                of: ".build/release/\(old)", with: ".build/release/\(name.upper)"
              )
              .replacingOccurrences(of: ".build/debug/\(old)", with: ".build/debug/\(name.upper)")
              .replacingOccurrences(of: "swift run \(old)", with: "swift run \(name.upper)"))
        }
      ),
      (
        "Tests/Benchmarks/GeneratorBenchmark/scale-benchmark.sh",
        {
          renamingModules(
            $0.replacingOccurrences(of: "--product \(old)", with: "--product \(name.upper)"))
        }
      ),
      (
        "Tests/Benchmarks/AppBenchmark/app-benchmark.py",
        {
          $0.replacingOccurrences(of: "--product \(old)", with: "--product \(name.upper)")
            .replacingOccurrences(of: ".build/release/\(old)", with: ".build/release/\(name.upper)")
        }
      ),
    ]
    // Other files that name the modules: the CI checks and the docs.
    for path in [
      ".ci/check-layers", ".ci/check-generator", ".ci/check-portability", "Templates/README.md",
      "Modules/Core/README.md", "Modules/Repository/README.md",
    ] {
      targets.append((path, renamingModules))
    }
    // In Swift files the renamed imports are sorted again, as `swift format` wants them
    // (`import Testing` now sorts after `import AcmeCore`).
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
        targets.append((relative, { Self.sortingImports(renamingModules($0)) }))
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
      let updated = transform(original)
      if updated != original {
        changes.edits.append(.init(path: path, original: original, updated: updated))
      }
    }
    return changes
  }

  /// `manifest` with the string `"old"` replaced by `"new"` (the package, the product, the
  /// app's target and the tests' dependency on it), except in the list of generated features:
  /// a feature the team named like the project keeps its name.
  static func renamingPackage(in manifest: String, from old: String, to new: String) -> String {
    var result = ""
    var rest = Substring(manifest)
    if let list = manifest.range(of: "let generatedFeatures"),
      let end = manifest[list.upperBound...].range(of: "\n]")
    {
      result += manifest[..<list.lowerBound].replacingOccurrences(
        of: "\"\(old)\"", with: "\"\(new)\"")
      result += manifest[list.lowerBound..<end.upperBound]
      rest = manifest[end.upperBound...]
    }
    return result + rest.replacingOccurrences(of: "\"\(old)\"", with: "\"\(new)\"")
  }

  /// `text` with each identifier-like token (letters, digits, `_`) for which `replacement`,
  /// given the token and the text after it, returns a value replaced by that value.
  static func replacingTokens(
    in text: String, _ replacement: (Substring, Substring) -> String?
  ) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    var index = text.startIndex
    func isTokenCharacter(_ character: Character) -> Bool {
      character.isASCII && (character.isLetter || character.isNumber || character == "_")
    }
    while index < text.endIndex {
      guard isTokenCharacter(text[index]) else {
        result.append(text[index])
        index = text.index(after: index)
        continue
      }
      var end = index
      while end < text.endIndex, isTokenCharacter(text[end]) { end = text.index(after: end) }
      let token = text[index..<end]
      result += replacement(token, text[end...]) ?? String(token)
      index = end
    }
    return result
  }
}
