// swift-tools-version:6.1
// Trellis: a layered Swift app-architecture starter (see README.md and the layer diagram there).
//
// The target graph *is* the architecture. Each layer depends only on the layers below it:
//
//   App -> Front -> Reactor -> Service -> Repository -> Network -> Core
//
// A source file that imports a module its target does not list as a direct dependency fails
// the build (the `LayerRule` build plugin, applied to every layer), so skipping a layer
// (Front importing Repository) is a compile error, and an upward import is a dependency cycle.
import PackageDescription

/// Every layer target runs the import check of `Modules/Tools/LayerRule`.
let layerRule: [Target.PluginUsage] = [.plugin(name: "LayerRule")]

/// The feature modules of the screens added by `trellis-gen screen`, which edits this list
/// above its marker.
///
/// A feature module, `<Feature>Feature` in `Modules/Features/<Feature>/`, holds one screen
/// (`trellis-gen screen Orders`) or the screens of one feature (`trellis-gen screen
/// OrderDetail --feature Orders` adds a screen to `OrdersFeature`): their reactors and service
/// providers in `Reactor/`, their view controllers in `Front/`. Editing a screen recompiles that
/// small module and relinks the app, where the `Reactor` and `Front` modules would re-type-check
/// every screen's declarations on each edit; and the fewer the modules, the less SwiftPM plans
/// on every build (the scale benchmark in README.md measures all three). Each folder follows its
/// layer's import rule (a file in `Reactor/` may not import `Front`), checked by the `LayerRule`
/// run of that layer. The demo's own screens live in `Reactor` and `Front`, which feature modules
/// build on.
let generatedFeatures: [String] = [
  // trellis:features
]

/// The feature modules, as dependencies of the app and the tests.
let featureModules: [Target.Dependency] = generatedFeatures.map { .target(name: "\($0)Feature") }

/// The feature modules' targets. They have no plugin of their own: the `LayerRule` runs of
/// `Front` and `Reactor` check their `Front/` and `Reactor/` folders (a plugin per module made
/// every build plan at 200 screens slower, and SwiftPM crashed now and then running them).
let featureTargets: [Target] = generatedFeatures.map { feature in
  .target(
    name: "\(feature)Feature",
    dependencies: ["Front", "Reactor", "Service", "Core"],
    path: "Modules/Features/\(feature)"
  )
}

let package = Package(
  name: "Trellis",
  products: [
    .executable(name: "Trellis", targets: ["Trellis"]),
    .executable(name: "DemoServer", targets: ["DemoServer"]),
    .executable(name: "trellis-gen", targets: ["trellis-gen"]),
  ],
  dependencies: [],
  targets: [
    // MARK: Layers (bottom to top)
    .target(
      name: "Core",
      path: "Modules/Core",
      exclude: ["README.md"],
      plugins: layerRule
    ),
    .target(
      name: "Network",
      dependencies: ["Core"],
      path: "Modules/Network",
      plugins: layerRule
    ),
    .target(
      name: "Repository",
      dependencies: ["Network", "Core"],
      path: "Modules/Repository",
      exclude: ["README.md"],
      plugins: layerRule
    ),
    .target(
      name: "Service",
      dependencies: ["Repository", "Network", "Core"],
      path: "Modules/Service",
      plugins: layerRule
    ),
    .target(
      name: "Reactor",
      dependencies: ["Service", "Core"],
      path: "Modules/Reactor",
      plugins: layerRule
    ),
    .target(
      name: "Front",
      dependencies: ["Reactor", "Core"],
      path: "Modules/Front",
      plugins: layerRule
    ),
    .executableTarget(
      name: "Trellis",
      dependencies: [
        "Front", "Reactor", "Service", "Repository", "Network", "Core", "DemoBackend",
      ] + featureModules,
      path: "App",
      plugins: layerRule
    ),

    // MARK: Test and demo support (never imported by the layers above)
    .target(
      name: "CoreTesting",
      dependencies: ["Core"],
      path: "Modules/CoreTesting",
      plugins: layerRule
    ),
    .target(
      name: "FrontTesting",
      dependencies: ["Front", "Core"],
      path: "Modules/FrontTesting",
      plugins: layerRule
    ),
    .target(
      name: "LoopbackServer",
      dependencies: ["Network", "Core"],
      path: "Modules/LoopbackServer",
      plugins: layerRule
    ),
    .target(
      name: "DemoBackend",
      dependencies: ["LoopbackServer", "Network", "Core"],
      path: "Modules/DemoBackend",
      plugins: layerRule
    ),

    .executableTarget(
      name: "DemoServer",
      dependencies: ["DemoBackend", "LoopbackServer", "Core"],
      path: "Modules/DemoServer"
    ),

    .target(
      name: "TestSupport",
      dependencies: ["Reactor", "Service", "Repository", "Network", "Core"] + featureModules,
      path: "Tests/TestSupport"
    ),

    // MARK: Tools
    .executableTarget(name: "LayerCheck", path: "Modules/Tools/LayerCheck"),
    .plugin(
      name: "LayerRule",
      capability: .buildTool(),
      dependencies: ["LayerCheck"],
      path: "Modules/Tools/LayerRule"
    ),
    .target(name: "TrellisGenerator", path: "Modules/Tools/Generator"),
    .executableTarget(
      name: "trellis-gen", dependencies: ["TrellisGenerator"], path: "Modules/Tools/GeneratorCLI"),
    .executableTarget(
      name: "ReactorBenchmark",
      dependencies: ["Core"],
      path: "Tests/Benchmarks/ReactorBenchmark"
    ),
    .executableTarget(
      name: "NetworkBenchmark",
      dependencies: ["Network", "LoopbackServer", "Core"],
      path: "Tests/Benchmarks/NetworkBenchmark"
    ),

    // MARK: Tests (one target per module)
    .testTarget(name: "CoreTests", dependencies: ["Core", "CoreTesting"]),
    .testTarget(name: "CoreTestingTests", dependencies: ["Core", "CoreTesting"]),
    .testTarget(name: "NetworkTests", dependencies: ["Network", "LoopbackServer", "Core"]),
    .testTarget(
      name: "LoopbackServerTests", dependencies: ["LoopbackServer", "Network", "Core"],
      exclude: ["fuzz.sh"]),
    .testTarget(
      name: "RepositoryTests",
      dependencies: ["Repository", "Network", "Core", "DemoBackend", "LoopbackServer"]),
    .testTarget(
      name: "ServiceTests",
      dependencies: ["Service", "Repository", "Network", "Core", "TestSupport"]),
    .testTarget(
      name: "DemoBackendTests", dependencies: ["DemoBackend", "LoopbackServer", "Network", "Core"]),
    .testTarget(
      name: "ReactorTests",
      dependencies: ["Reactor", "Service", "Core", "CoreTesting", "TestSupport"] + featureModules),
    .testTarget(
      name: "FrontTests",
      dependencies: ["Front", "FrontTesting", "Reactor", "Service", "Core", "TestSupport"]
        + featureModules,
      exclude: ["__Snapshots__"]),
    .testTarget(name: "GeneratorTests", dependencies: ["TrellisGenerator"]),
    .testTarget(
      name: "AppTests",
      dependencies: [
        "Trellis", "Front", "Reactor", "Service", "DemoBackend", "LoopbackServer", "Core",
      ]),
  ] + featureTargets,
  swiftLanguageModes: [.v6]
)
