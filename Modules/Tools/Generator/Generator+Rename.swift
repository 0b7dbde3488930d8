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

  /// The edits that rename the package, the app's executable and product, and the app's
  /// identity (its window title, data folder and help text) from the current name to `rawName`.
  ///
  /// The layers keep their names; the generator's own `// trellis:` markers are not touched.
  public func planRename(_ rawName: String) throws(GeneratorError) -> ChangeSet {
    let name = try GeneratedName(rawName, kind: "project")
    let manifest = try read(Self.manifestPath)
    let old = try currentProjectName(in: manifest)
    guard name.upper != old else { throw GeneratorError("the project is already named \(old)") }
    let taken: Set<String> = [
      "Core", "CoreTesting", "Network", "Repository", "Service", "Reactor", "Front", "App",
      "DemoBackend", "DemoServer", "LoopbackServer", "TestSupport", "LayerCheck", "LayerRule",
      "ReactorBenchmark", "NetworkBenchmark", "TrellisGenerator", "Foundation", "Testing",
    ]
    // A generated screen's module is `<Screen>Reactor`, its screen listed in the manifest.
    let screenModule =
      name.upper.hasSuffix("Reactor")
      && manifest.components(separatedBy: "\n").contains(
        Self.manifestLine(forScreen: String(name.upper.dropLast("Reactor".count))))
    guard !taken.contains(name.upper), !name.upper.hasSuffix("Tests"), !screenModule else {
      throw GeneratorError(
        "\"\(name.upper)\" is the name of a module of the project; choose another")
    }
    let oldLower = old.lowercased()
    let newLower = name.kebab
    // Whole-word occurrences of the old name: `Trellis`, `TrellisTests`, but not `trellis:`.
    let word = try? Regex("\\b\(old)(?=[A-Z]|\\b)")
    func renamingWord(_ text: String) -> String {
      guard let word else { return text }
      return text.replacing(word, with: name.upper)
    }
    var targets: [(String, (String) -> String)] = [
      ("Package.swift", { $0.replacingOccurrences(of: "\"\(old)\"", with: "\"\(name.upper)\"") }),
      (
        "README.md",
        {
          $0.replacingOccurrences(of: "# \(old)\n", with: "# \(name.upper)\n")
            .replacingOccurrences(of: "swift run \(old)", with: "swift run \(name.upper)")
            .replacingOccurrences(of: "--product \(old)", with: "--product \(name.upper)")
            .replacingOccurrences(of: ".build/release/\(old)", with: ".build/release/\(name.upper)")
        }
      ),
      (
        ".ci/run",
        {
          $0.replacingOccurrences(of: "--product \(old)", with: "--product \(name.upper)")
            .replacingOccurrences(of: ".build/release/\(old)", with: ".build/release/\(name.upper)")
            .replacingOccurrences(of: ".build/debug/\(old)", with: ".build/debug/\(name.upper)")
            .replacingOccurrences(of: "swift run \(old)", with: "swift run \(name.upper)")
        }
      ),
      (
        "Tests/Benchmarks/GeneratorBenchmark/scale-benchmark.sh",
        { $0.replacingOccurrences(of: "--product \(old)", with: "--product \(name.upper)") }
      ),
      (
        "Tests/Benchmarks/AppBenchmark/app-benchmark.py",
        {
          $0.replacingOccurrences(of: "--product \(old)", with: "--product \(name.upper)")
            .replacingOccurrences(of: ".build/release/\(old)", with: ".build/release/\(name.upper)")
        }
      ),
    ]
    for folder in ["App", "Tests/AppTests"] {
      for file in fileSystem.swiftFiles(under: root + "/" + folder).sorted() {
        let relative = String(file.dropFirst(root.count + 1))
        targets.append(
          (
            relative,
            {
              renamingWord($0)
                .replacingOccurrences(of: "\"\(oldLower)\"", with: "\"\(newLower)\"")
                .replacingOccurrences(of: "\"\(oldLower).log\"", with: "\"\(newLower).log\"")
            }
          ))
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
}
