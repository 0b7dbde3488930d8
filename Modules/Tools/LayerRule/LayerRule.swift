import Foundation
import PackagePlugin

/// Build-tool plugin that keeps the layer rule a compile error instead of a review comment.
///
/// SwiftPM lets a target import any module of its *transitive* dependencies, so on its own the
/// target graph cannot stop `Front` from importing `Repository`. This plugin runs `LayerCheck`
/// over each layer's sources before the layer compiles: an `import` of a package module that is
/// not one of the target's *direct* dependencies fails the build with the file and line.
@main
struct LayerRule: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    guard let target = target as? SourceModuleTarget else { return [] }
    let allowed = target.dependencies.compactMap { dependency -> String? in
      if case .target(let dependencyTarget) = dependency { return dependencyTarget.name }
      return nil
    }
    let packageModules = context.package.targets.map(\.name)
    let sources = target.sourceFiles(withSuffix: "swift").map(\.url)
    let stamp = context.pluginWorkDirectoryURL.appending(path: "LayerRuleChecked.swift")
    let arguments =
      [
        "--target", target.name,
        "--allowed", allowed.joined(separator: ","),
        "--modules", packageModules.joined(separator: ","),
        "--output", stamp.path(percentEncoded: false),
        "--",
      ] + sources.map { $0.path(percentEncoded: false) }
    return [
      .buildCommand(
        displayName: "Checking the layer imports of \(target.name)",
        executable: try context.tool(named: "LayerCheck").url,
        arguments: arguments,
        inputFiles: sources,
        outputFiles: [stamp]
      )
    ]
  }
}
