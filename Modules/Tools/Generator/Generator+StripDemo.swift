import Foundation

extension Generator {
  /// Where `strip-demo`'s map and templates are.
  static let stripDemoFolder = "Templates/StripDemo"

  /// What `strip-demo` deletes and writes, as `Templates/StripDemo/strip.map` lists it:
  /// `remove PATH` deletes a file, or a folder and everything in it; `write TEMPLATE PATH`
  /// writes the rendered template at `PATH`, replacing the file there.
  ///
  /// - Throws: ``GeneratorError`` when the demo is gone already, when screens were generated
  ///   (they may use the demo's services: strip first, then generate), when a test the map
  ///   keeps imports a demo feature it removes (a screen generated into one), when the map
  ///   names a path that is not there or a symbolic link, or when a file cannot be read.
  public func planStripDemo() throws(GeneratorError) -> ChangeSet {
    let manifest = try read(Self.manifestPath)
    guard fileSystem.exists(root + "/" + Self.stripDemoFolder + "/strip.map") else {
      throw GeneratorError(
        "there is no demo to strip (\(Self.stripDemoFolder)/strip.map is gone: it was stripped "
          + "already); nothing was changed")
    }
    let project = try GeneratedName(try currentProjectName(in: manifest), kind: "project")
    let values: [String: Template.Value] = [
      "Project": .text(project.upper), "projectWord": .text(project.kebab),
    ]
    let mapPath = Self.stripDemoFolder + "/strip.map"
    var removals: [String: String] = [:]
    var removalOrder: [String] = []
    var writes: [(path: String, contents: String)] = []
    var removedPaths: Set<String> = []
    for (number, rawLine) in try read(mapPath).components(separatedBy: "\n").enumerated() {
      let line = rawLine.trimmingCharacters(in: .whitespaces)
      guard !line.isEmpty, !line.hasPrefix("#") else { continue }
      let words = line.split(separator: " ").map(String.init)
      switch (words.first, words.count) {
      case ("remove", 2):
        removedPaths.insert(words[1])
        for file in try filesToRemove(words[1], in: mapPath, line: number + 1)
        where removals[file] == nil {
          do {
            removals[file] = try fileSystem.read(root + "/" + file)
          } catch {
            // (A file git ignores, such as `.DS_Store`, can be binary.)
            throw GeneratorError(
              "\(file) cannot be read as text (\(error)); strip-demo deletes only files it can "
                + "put back: move it out of the way and run it again; nothing was changed")
          }
          removalOrder.append(file)
        }
      case ("write", 3):
        try checkedRelativePath(words[2], in: mapPath, line: number + 1)
        writes.append(
          (words[2], try render("StripDemo/\(words[1])", values)))
      default:
        throw GeneratorError(
          "\(mapPath):\(number + 1): expected `remove PATH` or `write TEMPLATE PATH`, not "
            + "\"\(line)\"")
      }
    }
    // The demo's features are the ones the map removes; any other was generated.
    let features = PackageManifest(source: manifest).features
    let demoFeatures = features.filter { removedPaths.contains("\(Self.featuresFolder)/\($0)") }
    let generated = features.filter { !demoFeatures.contains($0) }
    guard generated.isEmpty else {
      throw GeneratorError(
        "screens were generated already (Package.swift lists the features "
          + generated.joined(separator: ", ") + "), and they may use the demo's services: "
          + "strip the demo first, then generate; nothing was changed")
    }
    // A screen generated into one of the demo's features (`--feature tasks`) goes with the
    // feature, but its tests would stay behind, importing a module that is gone: in the
    // feature's test module (its folder, snapshots included, which the stripped manifest would
    // not list), or anywhere else in the tests.
    for feature in demoFeatures {
      let folder = "\(Self.featureTestsFolder)/\(feature)"
      guard !fileSystem.entries(in: root + "/" + folder).isEmpty else { continue }
      throw GeneratorError(
        "\(folder) holds the tests of screens generated into the demo's feature \(feature), "
          + "which strip-demo removes, and would outlive it: move or delete the folder (a "
          + "screen generated into the demo's features: strip the demo first, then generate); "
          + "nothing was changed")
    }
    let demoModules = demoFeatures.flatMap { ["\($0)Feature", "\($0)FeatureFront"] }
    for file in fileSystem.swiftFiles(under: root + "/Tests").sorted() {
      let relative = String(file.dropFirst(root.count + 1))
      guard removals[relative] == nil, !writes.contains(where: { $0.path == relative }),
        let text = try? fileSystem.read(file)
      else { continue }
      if let module = demoModules.first(where: { Self.imports(text, module: $0) }) {
        throw GeneratorError(
          "\(relative) imports \(module), a demo feature strip-demo removes, and would outlive "
            + "it: move or delete it (a screen generated into the demo's features: strip the "
            + "demo first, then generate); nothing was changed")
      }
    }
    var changes = ChangeSet()
    for (path, contents) in writes {
      if removals[path] != nil || fileSystem.exists(root + "/" + path) {
        // Written where a file is (or was, if the map also removes it): an edit of it.
        let original: String
        if let removed = removals.removeValue(forKey: path) {
          original = removed
        } else {
          original = try read(path)
        }
        changes.edits.append(.init(path: path, original: original, updated: contents))
      } else {
        changes.newFiles.append(.init(path: path, contents: contents))
      }
    }
    changes.removals = removalOrder.compactMap { path in
      removals[path].map { ChangeSet.Removal(path: path, original: $0) }
    }
    return changes
  }

  /// The files `remove PATH` deletes: the file, or every file under the folder.
  private func filesToRemove(_ path: String, in map: String, line: Int) throws(GeneratorError)
    -> [String]
  {
    try checkedRelativePath(path, in: map, line: line)
    let full = root + "/" + path
    guard fileSystem.exists(full) else {
      throw GeneratorError(
        "\(map):\(line): \(path) is not there (was the demo changed by hand?); nothing was "
          + "changed")
    }
    guard !fileSystem.isSymbolicLink(full) else {
      throw GeneratorError(
        "\(map):\(line): \(path) is a symbolic link; strip-demo deletes regular files only; "
          + "nothing was changed")
    }
    guard fileSystem.isDirectory(full) else { return [path] }
    var files: [String] = []
    var pending = [path]
    while let folder = pending.popLast() {
      for entry in fileSystem.entries(in: root + "/" + folder).sorted() {
        let child = folder + "/" + entry
        if fileSystem.isSymbolicLink(root + "/" + child) {
          throw GeneratorError(
            "\(child) is a symbolic link; strip-demo deletes regular files only; nothing was "
              + "changed")
        }
        if fileSystem.isDirectory(root + "/" + child) {
          pending.append(child)
        } else {
          files.append(child)
        }
      }
    }
    return files.sorted()
  }

  /// Refuses a map path that could leave the project: absolute, or with `..`.
  private func checkedRelativePath(_ path: String, in map: String, line: Int)
    throws(GeneratorError)
  {
    guard !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
      throw GeneratorError("\(map):\(line): \(path) is not a path inside the project")
    }
  }

  /// Whether the Swift `source` imports `module` (`import M`, `@testable import M`,
  /// `import struct M.Type`), in any layout of spaces and line endings.
  static func imports(_ source: String, module: String) -> Bool {
    guard
      let declaration = try? Regex(
        #"(?m)^[ \t]*(?:@\w+[ \t]+)*import[ \t]+(?:\w+[ \t]+)?"# + module + #"(?:[.\s]|$)"#)
    else { return false }
    return source.contains(declaration)
  }
}
