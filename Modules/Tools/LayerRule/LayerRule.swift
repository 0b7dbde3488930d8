import Foundation
import PackagePlugin

/// Build-tool plugin that keeps the layer rule a compile error instead of a review comment.
///
/// SwiftPM lets a target import any module of its *transitive* dependencies, so on its own the
/// target graph cannot stop `Front` from importing `Repository`. This plugin runs `LayerCheck`
/// over each layer's sources before the layer compiles: an `import` of a package module that is
/// not one of the target's *direct* dependencies fails the build with the file and line.
///
/// Feature modules (`Modules/Features/<Name>/`, one per generated screen) do not use the plugin:
/// at 200 screens, SwiftPM running a plugin for every module made each build plan slower and
/// crashed it now and then. Their files are checked per layer folder instead: the run for a
/// layer (`Reactor`) also checks every feature's folder of that name (`<Name>/Reactor/`) by that
/// layer's rule, so a feature's reactor may not import `Front` even though its module depends
/// on `Front`. Every feature module depends on the layers its folders are named after, so the
/// check runs before it compiles, in every build that includes it.
@main
struct LayerRule: BuildToolPlugin {
  /// Where feature modules live, relative to the package root.
  static let featuresFolder = "Modules/Features"

  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    guard let target = target as? SourceModuleTarget else { return [] }
    let allowed = Self.directDependencies(of: target)
    let packageModules = context.package.targets.map(\.name)
    let sources = target.sourceFiles(withSuffix: "swift").map(\.url)
    let features = Self.featureFiles(in: context.package, layer: target.name)
    let work = context.pluginWorkDirectoryURL
    let stamp = work.appending(path: "LayerRuleChecked.swift")
    var arguments = [
      "--target", target.name,
      "--allowed", allowed.joined(separator: ","),
      "--modules", packageModules.joined(separator: ","),
      "--output", stamp.path(percentEncoded: false),
      "--cache", work.appending(path: "imports.cache").path(percentEncoded: false),
      "--",
    ]
    arguments += sources.map { $0.path(percentEncoded: false) }
    if !features.layer.isEmpty {
      arguments += ["--features"] + features.layer.map { $0.path(percentEncoded: false) }
    }
    if !features.unplaced.isEmpty {
      arguments += ["--unplaced"] + features.unplaced.map { $0.path(percentEncoded: false) }
    }
    return [
      .buildCommand(
        displayName: "Checking the layer imports of \(target.name)",
        executable: try context.tool(named: "LayerCheck").url,
        arguments: arguments,
        inputFiles: sources + features.layer + features.unplaced,
        outputFiles: [stamp]
      )
    ]
  }

  /// The names of the targets `target` lists as dependencies.
  static func directDependencies(of target: SourceModuleTarget) -> [String] {
    target.dependencies.compactMap { dependency -> String? in
      if case .target(let dependencyTarget) = dependency { return dependencyTarget.name }
      return nil
    }
  }

  /// The feature modules' files that the run for `layer` checks: those in a `<layer>/` folder
  /// (`layer`), and those in no folder named after one of their module's dependencies
  /// (`unplaced`, which the run for the module's first dependency reports).
  static func featureFiles(in package: Package, layer: String) -> (layer: [URL], unplaced: [URL]) {
    let root = package.directoryURL.standardizedFileURL.path(percentEncoded: false)
    let features = (root.hasSuffix("/") ? root : root + "/") + featuresFolder + "/"
    var inLayer: [URL] = []
    var unplaced: [URL] = []
    for case let feature as SourceModuleTarget in package.targets {
      let folder = feature.directoryURL.standardizedFileURL.path(percentEncoded: false)
      guard folder.hasPrefix(features) else { continue }
      let dependencies = directDependencies(of: feature)
      let base = folder.hasSuffix("/") ? folder : folder + "/"
      for file in feature.sourceFiles(withSuffix: "swift").map(\.url) {
        let path = file.standardizedFileURL.path(percentEncoded: false)
        let relative = path.hasPrefix(base) ? path.dropFirst(base.count) : Substring(path)
        let components = relative.split(separator: "/")
        let folderName = components.count > 1 ? String(components[0]) : nil
        if let folderName, dependencies.contains(folderName) {
          if folderName == layer { inLayer.append(file) }
        } else if dependencies.first == layer {
          unplaced.append(file)
        }
      }
    }
    return (inLayer, unplaced)
  }
}
