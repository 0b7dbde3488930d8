// trellis-gen: adds screens, services and repositories to a Trellis project, wired and tested.
// `swift run trellis-gen --help` for the commands; the logic is in the TrellisGenerator module.
import Foundation
import TrellisGenerator

let status = GeneratorCommand.run(
  Array(CommandLine.arguments.dropFirst()),
  currentDirectory: FileManager.default.currentDirectoryPath,
  output: { print($0) },
  errors: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
exit(status)
