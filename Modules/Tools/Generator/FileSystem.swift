import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the generator does to files, so tests can make a step fail part-way.
public protocol GeneratorFileSystem: Sendable {
  /// Whether a file or directory exists at `path` (a symbolic link counts, even dangling).
  func exists(_ path: String) -> Bool
  /// Whether `path` is a symbolic link.
  func isSymbolicLink(_ path: String) -> Bool
  /// The file's text.
  func read(_ path: String) throws -> String
  /// Writes `text` to a new file at `path`, durably (synced before it returns).
  func write(_ text: String, to path: String) throws
  /// The file's permission bits, such as `0o755`.
  func permissions(of path: String) throws -> Int
  /// Sets the file's permission bits.
  func setPermissions(_ permissions: Int, of path: String) throws
  /// Creates the directory `path` and its parents.
  func createDirectory(_ path: String) throws
  /// Moves `source` to `destination`, replacing it (atomic on one file system).
  func move(_ source: String, to destination: String) throws
  /// Removes the file or directory at `path`.
  func remove(_ path: String) throws
  /// The Swift files under `path`, recursively.
  func swiftFiles(under path: String) -> [String]
  /// The names of the entries of the directory `path` (empty when it cannot be read).
  func entries(in path: String) -> [String]
  /// Whether `path` is a directory (not following a symbolic link).
  func isDirectory(_ path: String) -> Bool
}

/// The real file system.
public struct LocalFileSystem: GeneratorFileSystem {
  /// Creates it.
  public init() {}

  /// See ``GeneratorFileSystem/exists(_:)``.
  public func exists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
  }

  /// See ``GeneratorFileSystem/isSymbolicLink(_:)``.
  public func isSymbolicLink(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
  }

  /// See ``GeneratorFileSystem/read(_:)``.
  public func read(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
  }

  /// See ``GeneratorFileSystem/write(_:to:)``.
  public func write(_ text: String, to path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw Self.failure("cannot create \(path)") }
    defer { close(descriptor) }
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
      if written < 0 {
        if errno == EINTR { continue }
        throw Self.failure("cannot write \(path)")
      }
      bytes = bytes.dropFirst(written)
    }
    guard fsync(descriptor) == 0 else { throw Self.failure("cannot sync \(path)") }
  }

  /// See ``GeneratorFileSystem/permissions(of:)``.
  public func permissions(of path: String) throws -> Int {
    var status = stat()
    guard stat(path, &status) == 0 else { throw Self.failure("cannot inspect \(path)") }
    return Int(status.st_mode & 0o7777)
  }

  /// See ``GeneratorFileSystem/setPermissions(_:of:)``.
  public func setPermissions(_ permissions: Int, of path: String) throws {
    guard chmod(path, mode_t(permissions)) == 0 else {
      throw Self.failure("cannot set the permissions of \(path)")
    }
  }

  /// See ``GeneratorFileSystem/createDirectory(_:)``.
  public func createDirectory(_ path: String) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  /// See ``GeneratorFileSystem/move(_:to:)``.
  public func move(_ source: String, to destination: String) throws {
    guard rename(source, destination) == 0 else {
      throw Self.failure("cannot move \(source) to \(destination)")
    }
  }

  /// See ``GeneratorFileSystem/remove(_:)``.
  public func remove(_ path: String) throws { try FileManager.default.removeItem(atPath: path) }

  /// See ``GeneratorFileSystem/swiftFiles(under:)``.
  public func swiftFiles(under path: String) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: path) else { return [] }
    var files: [String] = []
    while let relative = enumerator.nextObject() as? String {
      // A hidden folder is never the project's sources: a build's (`.build`, in
      // `Tests/GeneratorTests` once its package is built), an editor's.
      if (relative as NSString).lastPathComponent.hasPrefix(".") {
        enumerator.skipDescendants()
        continue
      }
      if relative.hasSuffix(".swift") { files.append(path + "/" + relative) }
    }
    return files
  }

  /// See ``GeneratorFileSystem/entries(in:)``.
  public func entries(in path: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
  }

  /// See ``GeneratorFileSystem/isDirectory(_:)``.
  public func isDirectory(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
  }

  private static func failure(_ what: String) -> GeneratorError {
    GeneratorError("\(what): \(String(cString: strerror(errno)))")
  }
}

/// What undoing an interrupted run of the generator did (or, in a dry run, would do).
public struct Recovery: Equatable, Sendable {
  /// Files removed or restored and folders removed, each with its path relative to the root.
  public var undone: [String] = []
  /// What was left because it changed after the run, each with what to check.
  public var leftAlone: [String] = []
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

  /// A file to delete.
  public struct Removal: Equatable, Sendable {
    /// Its path, relative to the project root.
    public var path: String
    /// Its contents when the removal was planned (it is removed only while it holds them).
    public var original: String
  }

  /// The files to create.
  public var newFiles: [NewFile] = []
  /// The files to change.
  public var edits: [Edit] = []
  /// The files to delete (a folder they leave empty goes too).
  public var removals: [Removal] = []

  /// Every path the change set writes.
  public var paths: [String] { newFiles.map(\.path) + edits.map(\.path) }
}

/// Applies change sets all together or not at all, even across a crash or an interrupt.
///
/// 1. Every edited file is checked first: it must be a regular file (not a symbolic link),
///    and hold exactly what the change set was planned against.
/// 2. New contents and backups of the edited files are written (synced) to a staging folder
///    in the project, with each edited file's permissions; nothing in the project changes yet.
/// 3. A journal (`.trellis-gen-journal`) listing every move is written, then the moves are
///    made, with SIGINT, SIGTERM and SIGHUP held until they are done.
///    A file to delete is moved into the staging folder, which goes at the end.
/// 4. If a move fails, the journal is played backwards: new files removed, backups and
///    deleted files moved back. If the process dies part-way (a crash, `kill -9`, a power cut), the next run of
///    the generator finds the journal and does the same before anything else
///    (``recoverInterruptedRun()``); `--dry-run` only says what that would do.
///
/// Undoing never destroys work done after the run: the journal records the SHA-256 of every
/// file the run writes, and a file is removed or restored only while it still holds exactly
/// that. A file changed since is left as it is (an edited file's version from before the run is
/// kept beside it), a created folder holding other files is left with them, and each is
/// reported (``Recovery/leftAlone``).
struct Transaction {
  let root: String
  let fileSystem: any GeneratorFileSystem

  /// The journal's path, relative to the project root.
  static let journalName = ".trellis-gen-journal"
  /// How staging folders' names start.
  static let stagingPrefix = ".build-trellis-gen-"

  /// One move, and how to undo it.
  struct Step: Codable, Equatable {
    /// The file moved into place, relative to the root.
    var destination: String
    /// The staged file to move there.
    var staged: String
    /// For an edit, the staged backup of the original; `nil` for a new file.
    var backup: String?
    /// The SHA-256 of what the step moves into place (see ``ContentDigest``); `nil` in a
    /// journal written before digests were recorded, and then nothing of the step is undone.
    var written: String?
    /// Whether the step deletes `destination` by moving it to `staged` (undone by moving it
    /// back); `nil` in journals from before deletions.
    var removes: Bool?
  }

  /// What a run will do: its staging folder, the directories it creates, and its moves.
  struct Journal: Codable, Equatable {
    var staging: String
    var createdDirectories: [String]
    var steps: [Step]
  }

  func apply(_ changes: ChangeSet) throws(GeneratorError) {
    _ = try recoverInterruptedRun()
    // 1. Check what is there now against what was planned.
    var permissions: [String: Int] = [:]
    for edit in changes.edits {
      let path = root + "/" + edit.path
      guard !fileSystem.isSymbolicLink(path) else {
        throw GeneratorError(
          "nothing was changed: \(edit.path) is a symbolic link; the generator only edits "
            + "regular files (replace the link with the file it points to)")
      }
      try verifyUnchanged(edit)
      do {
        permissions[edit.path] = try fileSystem.permissions(of: path)
      } catch {
        throw GeneratorError("nothing was changed: \(error)")
      }
    }
    for removal in changes.removals {
      guard !fileSystem.isSymbolicLink(root + "/" + removal.path) else {
        throw GeneratorError(
          "nothing was changed: \(removal.path) is a symbolic link; the generator only deletes "
            + "regular files")
      }
      try verifyUnchanged(
        ChangeSet.Edit(path: removal.path, original: removal.original, updated: ""))
    }
    // 2. Stage the new contents and the backups.
    let staging = Self.stagingPrefix + UUID().uuidString
    var steps: [Step] = []
    do {
      try fileSystem.createDirectory(root + "/" + staging)
      // Deletions first, so that a file deleted and written anew is undone in reverse order.
      for (index, removal) in changes.removals.enumerated() {
        steps.append(
          Step(
            destination: removal.path, staged: staging + "/removed-\(index)", backup: nil,
            written: ContentDigest.of(removal.original), removes: true))
      }
      for (index, file) in changes.newFiles.enumerated() {
        let staged = staging + "/new-\(index)"
        try fileSystem.write(file.contents, to: root + "/" + staged)
        steps.append(
          Step(
            destination: file.path, staged: staged, backup: nil,
            written: ContentDigest.of(file.contents)))
      }
      for (index, edit) in changes.edits.enumerated() {
        let staged = staging + "/edit-\(index)"
        let backup = staging + "/backup-\(index)"
        let mode = permissions[edit.path] ?? 0o644
        try fileSystem.write(edit.updated, to: root + "/" + staged)
        try fileSystem.setPermissions(mode, of: root + "/" + staged)
        try fileSystem.write(edit.original, to: root + "/" + backup)
        try fileSystem.setPermissions(mode, of: root + "/" + backup)
        steps.append(
          Step(
            destination: edit.path, staged: staged, backup: backup,
            written: ContentDigest.of(edit.updated)))
      }
    } catch {
      try? fileSystem.remove(root + "/" + staging)
      throw GeneratorError("nothing was changed: cannot stage the files (\(error))")
    }
    let directories = missingDirectories(for: steps.map(\.destination))
    let journal = Journal(staging: staging, createdDirectories: directories, steps: steps)
    do {
      try writeJournal(journal)
    } catch {
      try? fileSystem.remove(root + "/" + staging)
      throw GeneratorError("nothing was changed: cannot write the journal (\(error))")
    }
    // 3. Move everything into place, with interrupts held until the tree is whole again.
    let moved = InterruptDeferral.run { () -> Result<Void, GeneratorError> in
      do {
        // The journal names the topmost new folders (what an undo removes); each destination's
        // whole folder is made, `Features/Name/Reactor` and `Features/Name/Front` alike.
        for folder in Set(steps.map { ($0.destination as NSString).deletingLastPathComponent })
        where !fileSystem.exists(root + "/" + folder) {
          try fileSystem.createDirectory(root + "/" + folder)
        }
        let edits = Dictionary(changes.edits.map { ($0.path, $0) }) { first, _ in first }
        let removals = Dictionary(changes.removals.map { ($0.path, $0) }) { first, _ in first }
        for step in steps {
          if step.removes == true {
            // Checked again too: a file changed since planning is never deleted.
            if let removal = removals[step.destination] {
              try verifyUnchanged(
                ChangeSet.Edit(path: removal.path, original: removal.original, updated: ""))
            }
            try fileSystem.move(root + "/" + step.destination, to: root + "/" + step.staged)
            continue
          }
          // Checked again just before it is replaced: an edit made since planning is an error,
          // never silently overwritten.
          if let edit = edits[step.destination] { try verifyUnchanged(edit) }
          try fileSystem.move(root + "/" + step.staged, to: root + "/" + step.destination)
        }
        removeEmptiedFolders(of: changes.removals.map(\.path))
      } catch {
        // 4. Undo (nobody can have changed the files since: this process wrote them just now).
        do {
          _ = try rollBack(journal, performing: true)
        } catch {
          return .failure(
            GeneratorError(
              "a write failed and undoing it failed too (\(error)); run trellis-gen again to "
                + "finish undoing it (the journal \(Self.journalName) says how), then check "
                + "`git status`"))
        }
        return .failure(
          GeneratorError("nothing was changed: a write failed and was undone (\(error))"))
      }
      try? fileSystem.remove(root + "/" + Self.journalName)
      try? fileSystem.remove(root + "/" + staging)
      return .success(())
    }
    try moved.get()
  }

  /// Undoes a run that was interrupted part-way, if its journal is there; returns what was
  /// undone and what was left alone, or `nil` when there was no such run. With `performing`
  /// false (a dry run) nothing changes: the result says what undoing would do.
  ///
  /// - Throws: ``GeneratorError`` when the journal cannot be read or played back.
  func recoverInterruptedRun(performing: Bool = true) throws(GeneratorError) -> Recovery? {
    let path = root + "/" + Self.journalName
    guard fileSystem.exists(path) else {
      // A run that died while staging (before its journal) left only its staging folder,
      // which nothing else uses.
      if performing {
        for entry in fileSystem.entries(in: root) where entry.hasPrefix(Self.stagingPrefix) {
          try? fileSystem.remove(root + "/" + entry)
        }
      }
      return nil
    }
    let journal: Journal
    do {
      journal = try JSONDecoder().decode(Journal.self, from: Data(fileSystem.read(path).utf8))
    } catch {
      throw GeneratorError(
        "an earlier run left \(Self.journalName), which cannot be read (\(error)); check "
          + "`git status`, then remove it")
    }
    do {
      return try rollBack(journal, performing: performing)
    } catch {
      throw GeneratorError("cannot undo the interrupted earlier run (\(error)); check `git status`")
    }
  }

  /// Plays `journal` backwards: every new file removed and every backup moved back while the
  /// file still holds what the run wrote, created folders removed once empty; then the journal
  /// and the staging folder. Each step is idempotent, so a rollback that is itself interrupted
  /// can run again. With `performing` false it changes nothing and says what it would do.
  private func rollBack(_ journal: Journal, performing: Bool) throws -> Recovery {
    var recovery = Recovery()
    var removed: Set<String> = []
    for step in journal.steps.reversed() {
      let destination = root + "/" + step.destination
      if step.removes == true {
        // Not deleted yet, or already put back: nothing to undo.
        guard fileSystem.exists(root + "/" + step.staged) else { continue }
        if fileSystem.exists(destination) {
          let kept = keptOriginalPath(for: step.destination)
          if performing { try fileSystem.move(root + "/" + step.staged, to: root + "/" + kept) }
          recovery.leftAlone.append(
            "\(step.destination), which the interrupted run deleted, exists again: it is left "
              + "as it is; the file the run deleted is in \(kept)")
        } else {
          if performing {
            try createDirectories((step.destination as NSString).deletingLastPathComponent)
            try fileSystem.move(root + "/" + step.staged, to: destination)
          }
          recovery.undone.append("put back \(step.destination)")
        }
        continue
      }
      // Not moved into place (its staged copy is still there): nothing of it to undo.
      guard !fileSystem.exists(root + "/" + step.staged) else { continue }
      let isAsWritten =
        step.written != nil && fileSystem.exists(destination)
        && !fileSystem.isSymbolicLink(destination)
        && (try? fileSystem.read(destination)).map(ContentDigest.of) == step.written
      // A journal from before content checks cannot tell the run's writes from later ones.
      let why =
        step.written == nil
        ? "the journal, from an older trellis-gen, cannot tell whether it changed since"
        : "it changed since"
      if let backup = step.backup {
        guard fileSystem.exists(root + "/" + backup) else {
          // Already restored by an undo that was itself interrupted, unless it still holds
          // the run's edit (its backup deleted by hand).
          if isAsWritten {
            recovery.leftAlone.append(
              "\(step.destination) still holds the interrupted run's edit and its backup is "
                + "gone: check it (`git diff \(step.destination)`)")
          }
          continue
        }
        if isAsWritten {
          if performing { try fileSystem.move(root + "/" + backup, to: destination) }
          recovery.undone.append("restored \(step.destination)")
        } else {
          let kept = keptOriginalPath(for: step.destination)
          if performing { try fileSystem.move(root + "/" + backup, to: root + "/" + kept) }
          recovery.leftAlone.append(
            "\(step.destination), which the interrupted run edited: \(why), so it is left as it "
              + "is (it may hold that run's edit and yours); the file as it was before the run "
              + "is in \(kept)")
        }
      } else if fileSystem.exists(destination) {
        if isAsWritten {
          if performing { try fileSystem.remove(destination) }
          removed.insert(step.destination)
          recovery.undone.append("removed \(step.destination)")
        } else {
          recovery.leftAlone.append(
            "\(step.destination), which the interrupted run created: \(why), so it is left in "
              + "place (delete it if you do not want it)")
        }
      }
    }
    for directory in journal.createdDirectories.reversed()
    where fileSystem.exists(root + "/" + directory) {
      let others = files(under: directory).filter { !removed.contains($0) }
      if others.isEmpty {
        if performing { try fileSystem.remove(root + "/" + directory) }
        recovery.undone.append("removed \(directory)/")
      } else {
        let shown = others.sorted().prefix(5).joined(separator: ", ")
        recovery.leftAlone.append(
          "\(directory)/, which the interrupted run created, holds files it did not write "
            + "(\(shown)\(others.count > 5 ? ", ..." : "")): left in place with them")
      }
    }
    if performing {
      try? fileSystem.remove(root + "/" + journal.staging)
      try fileSystem.remove(root + "/" + Self.journalName)
    }
    return recovery
  }

  /// Creates `folder` (relative to the root) and the folders above it that are missing.
  private func createDirectories(_ folder: String) throws {
    var missing: [String] = []
    var directory = folder
    while !directory.isEmpty, !fileSystem.exists(root + "/" + directory) {
      missing.append(directory)
      directory = (directory as NSString).deletingLastPathComponent
    }
    for directory in missing.reversed() { try fileSystem.createDirectory(root + "/" + directory) }
  }

  /// Removes the folders of `paths` the deletions left empty, innermost first (a folder holding
  /// anything else stays).
  private func removeEmptiedFolders(of paths: [String]) {
    var folders = Set<String>()
    for path in paths {
      var directory = (path as NSString).deletingLastPathComponent
      while !directory.isEmpty {
        folders.insert(directory)
        directory = (directory as NSString).deletingLastPathComponent
      }
    }
    for folder in folders.sorted(by: { $0.count > $1.count })
    where fileSystem.isDirectory(root + "/" + folder)
      && fileSystem.entries(in: root + "/" + folder).isEmpty
    {
      try? fileSystem.remove(root + "/" + folder)
    }
  }

  /// The files (not folders) under `directory`, relative to the root.
  private func files(under directory: String) -> [String] {
    var result: [String] = []
    var pending = [directory]
    while let folder = pending.popLast() {
      for entry in fileSystem.entries(in: root + "/" + folder) {
        let path = folder + "/" + entry
        if fileSystem.isDirectory(root + "/" + path) {
          pending.append(path)
        } else {
          result.append(path)
        }
      }
    }
    return result
  }

  /// Where an edited file's version from before an interrupted run is kept when the file
  /// changed since: beside it, under a name nothing has yet.
  private func keptOriginalPath(for path: String) -> String {
    var candidate = path + ".before-trellis-gen"
    var number = 2
    while fileSystem.exists(root + "/" + candidate) {
      candidate = path + ".before-trellis-gen-\(number)"
      number += 1
    }
    return candidate
  }

  private func verifyUnchanged(_ edit: ChangeSet.Edit) throws(GeneratorError) {
    let current: String
    do {
      current = try fileSystem.read(root + "/" + edit.path)
    } catch {
      throw GeneratorError("nothing was changed: cannot read \(edit.path) (\(error))")
    }
    guard current == edit.original else {
      throw GeneratorError(
        "nothing was changed: \(edit.path) changed since the generator read it; run the command "
          + "again")
    }
  }

  private func writeJournal(_ journal: Journal) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let text = String(decoding: try encoder.encode(journal), as: UTF8.self)
    let temporary = root + "/" + journal.staging + "/journal"
    try fileSystem.write(text, to: temporary)
    try fileSystem.move(temporary, to: root + "/" + Self.journalName)
  }

  /// The topmost missing directory of each destination's folder, in creation order.
  private func missingDirectories(for destinations: [String]) -> [String] {
    var result: [String] = []
    for destination in destinations {
      var missing: String?
      var directory = (destination as NSString).deletingLastPathComponent
      while !directory.isEmpty, !fileSystem.exists(root + "/" + directory) {
        missing = directory
        directory = (directory as NSString).deletingLastPathComponent
      }
      if let missing, !result.contains(missing) { result.append(missing) }
    }
    return result
  }
}

/// Holds SIGINT, SIGTERM and SIGHUP while a short critical section runs, then delivers the
/// first one that arrived (ending the process as it would have), so an interrupt never lands
/// half-way through the moves.
enum InterruptDeferral {
  private static let signals = [SIGINT, SIGTERM, SIGHUP]
  /// The signal that arrived while held, `0` if none. A signal handler writes it, so it is an
  /// `Atomic` (lock-free, async-signal-safe).
  private static let pending = Atomic<Int32>(0)

  static func run<T>(_ body: () -> T) -> T {
    var previous: [Int32: sigaction] = [:]
    for signalNumber in signals {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { InterruptDeferral.note($0) }
      sigemptyset(&action.sa_mask)
      var old = sigaction()
      sigaction(signalNumber, &action, &old)
      previous[signalNumber] = old
    }
    let result = body()
    for (signalNumber, old) in previous {
      var restore = old
      sigaction(signalNumber, &restore, nil)
    }
    let arrived = pending.exchange(0, ordering: .relaxed)
    if arrived != 0 { raise(arrived) }
    return result
  }

  private static func note(_ signalNumber: Int32) {
    _ = pending.compareExchange(expected: 0, desired: signalNumber, ordering: .relaxed)
  }
}
