import Foundation
import PackagePlugin

/// Build-tool plugin that keeps the layer rule a compile error instead of a review comment.
///
/// SwiftPM lets a target import any module of its *transitive* dependencies, so on its own the
/// target graph cannot stop `Front` from importing `Repository`. This plugin runs `LayerCheck`
/// over each layer's sources before the layer compiles: an `import` of a package module that is
/// not one of the target's *direct* dependencies fails the build with the file and line.
///
/// Feature modules (`Modules/Features/<Name>/Reactor/` and `Front/`, generated screens) do not
/// use the plugin: at 200 screens, SwiftPM running a plugin for every module made each build
/// plan slower and crashed it now and then. Their files are checked per layer folder instead:
/// the run for a layer (`TrellisReactor`, in `Modules/Reactor`) also checks every feature's
/// folder of that name (`<Name>/Reactor/`) by that layer's rule, and a feature's `Front/` may
/// import its own `<Name>Feature` besides. Each feature module depends on the layer its folder
/// is named after, so the check runs before it compiles, in every build that includes it. A
/// Swift file in a feature's folder outside `Reactor/` and `Front/`, which no module compiles,
/// is reported by the reactor layer's run.
@main
struct LayerRule: BuildToolPlugin {
  /// Where feature modules live, relative to the package root.
  static let featuresFolder = "Modules/Features"

  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    guard let target = target as? SourceModuleTarget else { return [] }
    let allowed = Self.directDependencies(of: target)
    let packageModules = context.package.targets.map(\.name)
    let sources = target.sourceFiles(withSuffix: "swift").map(\.url)
    // The layer's folder name (`Modules/Reactor` -> `Reactor`): the features' folders are named
    // after it, not after the module, whose name carries the project's.
    let folder = target.directoryURL.lastPathComponent
    let features = Self.featureFiles(in: context.package, layer: folder)
    let work = context.pluginWorkDirectoryURL
    let stamp = work.appending(path: "LayerRuleChecked.swift")
    var arguments = [
      "--target", target.name,
      "--folder", folder,
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
        // Not the unplaced files: no target owns them, so SwiftPM would not notice one removed
        // and would fail on a missing input; they are reported whenever the plugin runs.
        inputFiles: sources + features.layer,
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

  /// The features' files that the run for the layer in the folder `layer` (`Reactor`, `Front`)
  /// checks: those of feature targets in a `<layer>/` folder (`layer`); and, for the reactor
  /// layer's run, Swift files in a feature's folder outside `Reactor/` and `Front/` (`unplaced`),
  /// which no target compiles.
  static func featureFiles(in package: Package, layer: String) -> (layer: [URL], unplaced: [URL]) {
    let features = package.directoryURL.appending(path: featuresFolder).standardizedFileURL
    let featuresPath = features.path(percentEncoded: false)
    let prefix = featuresPath.hasSuffix("/") ? featuresPath : featuresPath + "/"
    var inLayer: [URL] = []
    for case let feature as SourceModuleTarget in package.targets {
      let folder = feature.directoryURL.standardizedFileURL
      guard folder.path(percentEncoded: false).hasPrefix(prefix), folder.lastPathComponent == layer
      else { continue }
      inLayer += feature.sourceFiles(withSuffix: "swift").map(\.url)
    }
    guard layer == "Reactor" else { return (inLayer, []) }
    var unplaced: [URL] = []
    let manager = FileManager.default
    for name in (try? manager.contentsOfDirectory(atPath: featuresPath)) ?? [] {
      let feature = features.appending(path: name)
      guard let walker = manager.enumerator(at: feature, includingPropertiesForKeys: nil) else {
        continue
      }
      for case let file as URL in walker {
        let relative = file.standardizedFileURL.path(percentEncoded: false)
          .dropFirst(feature.standardizedFileURL.path(percentEncoded: false).count)
        let first = relative.split(separator: "/").first.map(String.init)
        if first == "Reactor" || first == "Front" {
          walker.skipDescendants()
        } else if file.pathExtension == "swift" {
          unplaced.append(file)
        }
      }
    }
    return (inLayer, unplaced.sorted { $0.path < $1.path })
  }
}
