import Foundation

/// What the generator does to files, so tests can make a step fail part-way.
public protocol GeneratorFileSystem: Sendable {
  /// Whether a file or directory exists at `path`.
  func exists(_ path: String) -> Bool
  /// The file's text.
  func read(_ path: String) throws -> String
  /// Writes `text` to a new file at `path`.
  func write(_ text: String, to path: String) throws
  /// Creates the directory `path` and its parents.
  func createDirectory(_ path: String) throws
  /// Moves `source` to `destination`, replacing it (atomic on one file system).
  func move(_ source: String, to destination: String) throws
  /// Removes the file or directory at `path`.
  func remove(_ path: String) throws
  /// The Swift files under `path`, recursively.
  func swiftFiles(under path: String) -> [String]
}

/// The real file system.
public struct LocalFileSystem: GeneratorFileSystem {
  /// Creates it.
  public init() {}

  /// See ``GeneratorFileSystem/exists(_:)``.
  public func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

  /// See ``GeneratorFileSystem/read(_:)``.
  public func read(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
  }

  /// See ``GeneratorFileSystem/write(_:to:)``.
  public func write(_ text: String, to path: String) throws {
    try text.write(toFile: path, atomically: false, encoding: .utf8)
  }

  /// See ``GeneratorFileSystem/createDirectory(_:)``.
  public func createDirectory(_ path: String) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  /// See ``GeneratorFileSystem/move(_:to:)``.
  public func move(_ source: String, to destination: String) throws {
    guard rename(source, destination) == 0 else {
      throw GeneratorError(
        "cannot move \(source) to \(destination): \(String(cString: strerror(errno)))")
    }
  }

  /// See ``GeneratorFileSystem/remove(_:)``.
  public func remove(_ path: String) throws { try FileManager.default.removeItem(atPath: path) }

  /// See ``GeneratorFileSystem/swiftFiles(under:)``.
  public func swiftFiles(under path: String) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: path) else { return [] }
    return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
      .map { path + "/" + $0 }
  }
}

/// A set of file changes applied all together or not at all.
public struct ChangeSet: Equatable, Sendable {
  /// A file to create.
  public struct NewFile: Equatable, Sendable {
    /// Its path, relative to the project root.
    public var path: String
    /// Its contents.
    public var contents: String
  }

  /// A file to change.
  public struct Edit: Equatable, Sendable {
    /// Its path, relative to the project root.
    public var path: String
    /// Its contents before.
    public var original: String
    /// Its contents after.
    public var updated: String
  }

  /// The files to create.
  public var newFiles: [NewFile] = []
  /// The files to change.
  public var edits: [Edit] = []

  /// Every path the change set writes.
  public var paths: [String] { newFiles.map(\.path) + edits.map(\.path) }
}

/// Applies change sets atomically: everything is written to a staging folder in the project
/// first (so a failure there touches nothing), then moved into place; if a move fails, the
/// moves already made are undone.
struct Transaction {
  let root: String
  let fileSystem: any GeneratorFileSystem

  func apply(_ changes: ChangeSet) throws(GeneratorError) {
    let staging = root + "/.build-trellis-gen-" + UUID().uuidString
    defer { try? fileSystem.remove(staging) }
    // 1. Stage every file; nothing in the project changes yet.
    var staged: [(staged: String, destination: String)] = []
    do {
      try fileSystem.createDirectory(staging)
      for (index, file)
        in (changes.newFiles.map { ($0.path, $0.contents) }
        + changes.edits.map { ($0.path, $0.updated) }).enumerated()
      {
        let stagedPath = staging + "/\(index)"
        try fileSystem.write(file.1, to: stagedPath)
        staged.append((stagedPath, root + "/" + file.0))
      }
    } catch {
      throw GeneratorError("nothing was changed: cannot stage the files (\(error))")
    }
    // 2. Move them into place, remembering how to undo each step.
    var undo: [() throws -> Void] = []
    do {
      for (index, step) in staged.enumerated() {
        let directory = (step.destination as NSString).deletingLastPathComponent
        if !fileSystem.exists(directory) {
          let created = firstMissingAncestor(of: directory)
          try fileSystem.createDirectory(directory)
          undo.append { try fileSystem.remove(created) }
        }
        let isEdit = index >= changes.newFiles.count
        if isEdit {
          let original = changes.edits[index - changes.newFiles.count].original
          let destination = step.destination
          try fileSystem.move(step.staged, to: destination)
          undo.append {
            let restore = staging + "/restore-\(index)"
            try fileSystem.write(original, to: restore)
            try fileSystem.move(restore, to: destination)
          }
        } else {
          let destination = step.destination
          try fileSystem.move(step.staged, to: destination)
          undo.append { try fileSystem.remove(destination) }
        }
      }
    } catch {
      var leftovers: [String] = []
      for step in undo.reversed() {
        do { try step() } catch { leftovers.append("\(error)") }
      }
      if leftovers.isEmpty {
        throw GeneratorError("nothing was changed: a write failed and was undone (\(error))")
      }
      throw GeneratorError(
        "a write failed (\(error)) and undoing it failed too (\(leftovers.joined(separator: "; "))); "
          + "check `git status`")
    }
  }

  private func firstMissingAncestor(of directory: String) -> String {
    var missing = directory
    var parent = (directory as NSString).deletingLastPathComponent
    while !parent.isEmpty, parent != "/", !fileSystem.exists(parent) {
      missing = parent
      parent = (parent as NSString).deletingLastPathComponent
    }
    return missing
  }
}
