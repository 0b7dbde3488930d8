// trellis-gen: adds screens, services and repositories to a Trellis project, wired and tested.
// `swift run trellis-gen --help` for the commands; the logic is in the TrellisGenerator module.
import Foundation
import TrellisGenerator

#if canImport(Glibc)
  import Glibc
#endif

// Output piped into `head` must not kill the tool: a closed pipe is a failed write instead.
signal(SIGPIPE, SIG_IGN)
let status = GeneratorCommand.run(
  Array(CommandLine.arguments.dropFirst()),
  currentDirectory: FileManager.default.currentDirectoryPath,
  output: { print($0) },
  errors: { try? FileHandle.standardError.write(contentsOf: Data(($0 + "\n").utf8)) })
exit(status)
