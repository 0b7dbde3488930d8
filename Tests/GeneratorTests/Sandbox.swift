import Foundation
import Synchronization
import Testing

@testable import TrellisGenerator

/// A copy of the project's generator inputs (Package.swift, App, Modules, Templates, README,
/// .ci, the tests' shared services) in a temporary folder, so each test generates into its own
/// tree. The tests generate names no project has (``unique(_:)``) and plant the fixtures they
/// need, so they pass in any project a team has grown (or trimmed) with the generator.
struct Sandbox {
  let root: String

  /// A sandbox with the generator's inputs, and the folders `including` names (all of `Tests`,
  /// for a command that changes tests of every layer) copied whole.
  init(including extra: [String] = []) throws {
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().path
    root = Self.parent.appendingPathComponent("trellis-gen-\(UUID().uuidString)").path
    let manager = FileManager.default
    try manager.createDirectory(atPath: root, withIntermediateDirectories: true)
    // A copy that fails part-way leaves nothing behind (the folder may be in memory).
    do { try copyInputs(from: source, including: extra) } catch {
      cleanUp()
      throw error
    }
  }

  /// Copies the generator's inputs from the project at `source`.
  private func copyInputs(from source: String, including extra: [String]) throws {
    let manager = FileManager.default
    for item in [
      "Package.swift", "README.md", "docs", "App", "Modules", "Templates", ".ci", "Tests/AppTests",
      "Tests/TestSupport",
      "Tests/Benchmarks/AppBenchmark", "Tests/Benchmarks/GeneratorBenchmark", "Tests/Scripts",
    ].filter({ item in !extra.contains { item.hasPrefix($0 + "/") } }) + extra
    where manager.fileExists(atPath: source + "/" + item) {
      // (The demo's scripts and benchmarks are gone from a project that stripped it.)
      let destination = root + "/" + item
      try manager.createDirectory(
        atPath: (destination as NSString).deletingLastPathComponent,
        withIntermediateDirectories: true)
      try Self.copy(source + "/" + item, to: destination)
    }
  }

  /// Copies `source` to `destination`, but for build folders (`.build`: the app's, which these
  /// tests share, or one in `Tests/GeneratorTests` if they were built on their own, when `Tests`
  /// is copied whole).
  private static func copy(_ source: String, to destination: String) throws {
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    let isLink = (try? manager.destinationOfSymbolicLink(atPath: source)) != nil
    guard !isLink, manager.fileExists(atPath: source, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      try manager.copyItem(atPath: source, toPath: destination)
      return
    }
    try manager.createDirectory(atPath: destination, withIntermediateDirectories: true)
    for name in try manager.contentsOfDirectory(atPath: source) where name != ".build" {
      try copy(source + "/" + name, to: destination + "/" + name)
    }
  }

  func cleanUp() { try? FileManager.default.removeItem(atPath: root) }

  /// The folder sandboxes are made in: a memory-backed one when the machine has one with room
  /// to spare (`/dev/shm` on Linux, 1 GiB free), else the temporary folder. The generator syncs
  /// each file it writes to the disk before moving it into place, and the tests write thousands
  /// of files: on a disk, their waits were more than half of the generator tests' time (82 s
  /// against 56 s for all of them, on two cores). What is tested is the same either way.
  static let parent: URL = {
    let memory = "/dev/shm"
    let manager = FileManager.default
    if manager.isWritableFile(atPath: memory),
      let free = (try? manager.attributesOfFileSystem(forPath: memory))?[.systemFreeSize]
        as? NSNumber, free.int64Value >= 1 << 30
    {
      return URL(fileURLWithPath: memory, isDirectory: true)
    }
    return manager.temporaryDirectory
  }()

  /// `base` followed by a random word: a name that exists in no project (`Notes` + `Qzvkwp`).
  static func unique(_ base: String) -> String {
    let letters = Array("bcdfghjkmnpqrstvwxz")
    return base + "-" + String((0..<6).map { _ in letters.randomElement() ?? "q" })
  }

  /// Writes `text` to `path` in the sandbox (a fixture), creating its folder.
  func write(_ text: String, to path: String) throws {
    let url = URL(fileURLWithPath: root + "/" + path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: url, atomically: true, encoding: .utf8)
  }

  /// Whether `path` exists in the sandbox.
  func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: root + "/" + path)
  }

  /// Every file's contents by relative path: its text, or for a file that is not UTF-8 (an
  /// image a team keeps in `docs/`) its bytes, in base64 after `(bytes) `, so that any change
  /// to it still shows.
  func snapshot() throws -> [String: String] {
    var files: [String: String] = [:]
    guard let enumerator = FileManager.default.enumerator(atPath: root) else { return files }
    for case let path as String in enumerator {
      var isDirectory: ObjCBool = false
      let exists = FileManager.default.fileExists(
        atPath: root + "/" + path, isDirectory: &isDirectory)
      if exists, !isDirectory.boolValue {
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/" + path))
        files[path] = String(data: data, encoding: .utf8) ?? "(bytes) " + data.base64EncodedString()
      }
    }
    return files
  }

  func read(_ path: String) throws -> String {
    try String(contentsOfFile: root + "/" + path, encoding: .utf8)
  }

  /// The project's current name (the package's), so that the tests also pass in a renamed
  /// copy of Trellis.
  func projectName() throws -> String {
    let manifest = try read("Package.swift")
    let package = try #require(manifest.range(of: "Package("))
    let start = try #require(manifest[package.upperBound...].range(of: "name: \""))
    let end = try #require(manifest[start.upperBound...].firstIndex(of: "\""))
    return String(manifest[start.upperBound..<end])
  }

  /// The project's name as the generator spells it: `upper` (`AcmeNotes`), the identifier in
  /// code `lower` (`acmeNotes`), and the word in links, folders and text `kebab` (`acme-notes`).
  func projectSpellings() throws -> GeneratedName {
    try GeneratedName(try projectName(), kind: "project")
  }

  /// Runs the command line; returns the status and what it printed.
  func run(_ arguments: String...) -> (status: Int32, output: String, errors: String) {
    run(arguments)
  }

  /// Runs the command line; returns the status and what it printed.
  func run(_ arguments: [String]) -> (status: Int32, output: String, errors: String) {
    var output: [String] = []
    var errors: [String] = []
    let status = GeneratorCommand.run(
      arguments, currentDirectory: root, output: { output.append($0) },
      errors: { errors.append($0) })
    return (status, output.joined(separator: "\n"), errors.joined(separator: "\n"))
  }
}

/// A file system that fails on purpose: its Nth move throws (a failure part-way through
/// writing), or after N moves every operation throws, as if the process had died there.
struct FaultyFileSystem: GeneratorFileSystem {
  let base = LocalFileSystem()
  var failingMove: Int?
  var diesAfterMoves: Int?
  let moves = MoveCounter()

  final class MoveCounter: Sendable {
    let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
  }

  private func alive() throws {
    if let diesAfterMoves, moves.value >= diesAfterMoves {
      throw GeneratorError("the process died (injected)")
    }
  }

  func exists(_ path: String) -> Bool { base.exists(path) }
  func isSymbolicLink(_ path: String) -> Bool { base.isSymbolicLink(path) }
  func read(_ path: String) throws -> String { try base.read(path) }
  func write(_ text: String, to path: String) throws {
    try alive()
    try base.write(text, to: path)
  }
  func permissions(of path: String) throws -> Int { try base.permissions(of: path) }
  func setPermissions(_ permissions: Int, of path: String) throws {
    try alive()
    try base.setPermissions(permissions, of: path)
  }
  func createDirectory(_ path: String) throws {
    try alive()
    try base.createDirectory(path)
  }
  func remove(_ path: String) throws {
    try alive()
    try base.remove(path)
  }
  func swiftFiles(under path: String) -> [String] { base.swiftFiles(under: path) }
  func entries(in path: String) -> [String] { base.entries(in: path) }
  func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
  func move(_ source: String, to destination: String) throws {
    try alive()
    let count = moves.count.withLock { count in
      count += 1
      return count
    }
    if count == failingMove { throw GeneratorError("disk full (injected)") }
    try base.move(source, to: destination)
  }
}
