// trellis-gen: adds screens, services and repositories to a Trellis project, wired and tested.
// `swift run trellis-gen --help` for the commands; the logic is in the TrellisGenerator module.
import Foundation
import Synchronization
import TrellisGenerator

#if canImport(Glibc)
  import Glibc
#endif

#if DEBUG
  /// For `.ci/check-generator`'s crash test only: the real file system, except that the process
  /// dies (`_exit`, no clean-up, as `kill -9` would) just before its move number `limit + 1`.
  /// Debug builds only: a release build has no such hook (`.ci/run` checks the binary).
  final class DyingFileSystem: GeneratorFileSystem {
    let base = LocalFileSystem()
    let limit: Int
    /// Moves made so far; the tool is single-threaded.
    private let moves = Mutex(0)

    init(limit: Int) { self.limit = limit }

    func move(_ source: String, to destination: String) throws {
      let count = moves.withLock { count in
        count += 1
        return count
      }
      if count > limit { _exit(137) }
      try base.move(source, to: destination)
    }
    func exists(_ path: String) -> Bool { base.exists(path) }
    func isSymbolicLink(_ path: String) -> Bool { base.isSymbolicLink(path) }
    func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
    func read(_ path: String) throws -> String { try base.read(path) }
    func write(_ text: String, to path: String) throws { try base.write(text, to: path) }
    func permissions(of path: String) throws -> Int { try base.permissions(of: path) }
    func setPermissions(_ permissions: Int, of path: String) throws {
      try base.setPermissions(permissions, of: path)
    }
    func createDirectory(_ path: String) throws { try base.createDirectory(path) }
    func remove(_ path: String) throws { try base.remove(path) }
    func swiftFiles(under path: String) -> [String] { base.swiftFiles(under: path) }
    func entries(in path: String) -> [String] { base.entries(in: path) }
  }
#endif

// Output piped into `head` must not kill the tool: a closed pipe is a failed write instead.
signal(SIGPIPE, SIG_IGN)
#if DEBUG
  let dieAfter = ProcessInfo.processInfo.environment["TRELLIS_GEN_TEST_DIE_AFTER_MOVES"].flatMap {
    Int($0)
  }
  let fileSystem: any GeneratorFileSystem =
    dieAfter.map { DyingFileSystem(limit: $0) } ?? LocalFileSystem()
#else
  let fileSystem: any GeneratorFileSystem = LocalFileSystem()
#endif
let status = GeneratorCommand.run(
  Array(CommandLine.arguments.dropFirst()),
  currentDirectory: FileManager.default.currentDirectoryPath,
  output: { print($0) },
  errors: { try? FileHandle.standardError.write(contentsOf: Data(($0 + "\n").utf8)) },
  fileSystem: fileSystem)
exit(status)
