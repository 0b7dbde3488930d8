// Trellis: `swift run Trellis --help` lists the options. The app is built in
// CompositionRoot.swift and started in Application.swift.
import Foundation

let status = await Application.run(
  arguments: Array(CommandLine.arguments.dropFirst()),
  environment: ProcessInfo.processInfo.environment)
exit(status)
