import Foundation
import PackagePlugin

/// Build-tool plugin that keeps the layer rule a compile error instead of a review comment.
///
/// SwiftPM lets a target import any module of its *transitive* dependencies, so on its own the
/// target graph cannot stop `Front` from importing `Repository`. This plugin runs `LayerCheck`
/// once over the sources of every target of the package: an `import` of a package module that
/// is not one of the importing target's *direct* dependencies fails the build with the file and
/// line.
///
/// It is applied to `Core` alone, which every layer (and so every build of the app, a layer or
/// a test) depends on: one command for the whole package rather than one per target, so the
/// per-target work SwiftPM does on every build does not grow with the number of screens. The
/// command's inputs are all the package's sources, so an edit anywhere runs the check again;
/// its output, a constant stamp compiled into `Core`, is rewritten only if it changes, so
/// passing the check recompiles nothing.
@main
struct LayerRule: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let packageModules = context.package.targets.map(\.name)
    var arguments = [
      "--modules", packageModules.joined(separator: ","),
    ]
    var inputs: [URL] = []
    for case let checked as SourceModuleTarget in context.package.targets {
      let allowed = checked.dependencies.compactMap { dependency -> String? in
        if case .target(let dependencyTarget) = dependency { return dependencyTarget.name }
        return nil
      }
      let sources = checked.sourceFiles(withSuffix: "swift").map(\.url)
      guard !sources.isEmpty else { continue }
      arguments += ["--target", checked.name, "--allowed", allowed.joined(separator: ","), "--"]
      arguments += sources.map { $0.path(percentEncoded: false) }
      inputs += sources
    }
    let stamp = context.pluginWorkDirectoryURL.appending(path: "LayerRuleChecked.swift")
    return [
      .buildCommand(
        displayName: "Checking the layer imports of the package",
        executable: try context.tool(named: "LayerCheck").url,
        arguments: ["--output", stamp.path(percentEncoded: false)] + arguments,
        inputFiles: inputs,
        outputFiles: [stamp]
      )
    ]
  }
}
