// swift-tools-version:6.2
// Trellis: a layered Swift app-architecture starter (see README.md and the layer diagram there).
//
// The target graph *is* the architecture. Each layer depends only on the layers below it:
//
//   App -> Front -> Reactor -> Service -> Repository -> Network -> Core
//
// A source file that imports a module its target does not list as a direct dependency fails
// the build (the `LayerRule` build plugin, applied to every layer), so skipping a layer
// (Front importing Repository) is a compile error, and an upward import is a dependency cycle.
//
// Each layer's module carries the project's name (`TrellisCore`, `TrellisNetwork`, ...): a
// module named `Network` would clash with Apple's Network framework, and generic names such as
// `Core` with other packages' targets (target names are unique across a package graph).
// `trellis-gen rename` renames the prefix with the project. Folders and docs keep the layer
// names: Core, Network, Repository, Service, Reactor, Front.
import PackageDescription

/// Every layer target runs the import check of `Modules/Tools/LayerRule`.
let layerRule: [Target.PluginUsage] = [.plugin(name: "LayerRule")]

/// The app's features: every screen lives in one, the demo's and those `trellis-gen screen` adds
/// (it edits this list above its marker).
///
/// A feature, in `Modules/Features/<Feature>/`, holds one screen (`trellis-gen screen Orders`)
/// or the screens of one feature (`trellis-gen screen OrderDetail --feature Orders` adds a screen
/// to `Orders`; the demo's `Tasks` holds the task list, detail and compose screens), as two
/// modules: `<Feature>Feature`, its reactors and service providers (folder `Reactor/`, which
/// builds on the reactor layer and never needs the terminal front, so an app with its own front
/// uses it as it is), and `<Feature>FeatureFront`, its view controllers (folder `Front/`).
/// Editing a screen recompiles that small module and relinks the app, where one module of all
/// screens would re-type-check every screen's declarations on each edit; and the fewer the
/// modules, the less SwiftPM plans on every build (the scale benchmark in docs/performance.md
/// measures the designs). Each folder follows its layer's import rule, checked by the
/// `LayerRule` run of that layer. `TrellisReactor` and `TrellisFront` hold what features share:
/// the reactors' shared types (`Modules/Reactor/Shared`) and the terminal UI kit.
let features: [String] = [
  "Shell",
  "Tasks",
  "Profile",
  // trellis:features
]

/// The features' reactor modules, as dependencies of the app and the tests.
let featureReactorModules: [Target.Dependency] = features.map {
  .target(name: "\($0)Feature")
}

/// The features' view modules, as dependencies of the app and the front's tests.
let featureFrontModules: [Target.Dependency] = features.map {
  .target(name: "\($0)FeatureFront")
}

/// The features' targets. They have no plugin of their own: the `LayerRule` runs of
/// `TrellisReactor` and `TrellisFront` check their `Reactor/` and `Front/` folders (a plugin per
/// module made every build plan at 200 screens slower, and SwiftPM crashed now and then running
/// them).
let featureTargets: [Target] =
  features.map { feature in
    .target(
      name: "\(feature)Feature",
      dependencies: ["TrellisReactor", "TrellisService", "TrellisCore"],
      path: "Modules/Features/\(feature)/Reactor"
    )
  }
  + features.map { feature in
    .target(
      name: "\(feature)FeatureFront",
      dependencies: [
        .target(name: "\(feature)Feature"), "TrellisFront", "TrellisReactor", "TrellisCore",
      ],
      path: "Modules/Features/\(feature)/Front"
    )
  }

/// The features whose screens' tests are a test module of their own, `<Feature>FeatureTests` in
/// `Tests/Features/<Feature>/` (its reactors' and views' tests, snapshots in `__Snapshots__/`):
/// `trellis-gen screen` lists each feature it adds a screen to, above the marker. Editing one
/// screen and its tests then recompiles that small module, where one module holding every
/// screen's tests re-checks all their declarations on each edit (at 200 screens, 9.6 s against
/// 21.5 s; each build plans 200 more targets: docs/performance.md).
let featuresWithTests: [String] = [
  // trellis:feature-tests
]

/// The features' test modules.
let featureTestTargets: [Target] = featuresWithTests.map { feature in
  .testTarget(
    name: "\(feature)FeatureTests",
    dependencies: [
      .target(name: "\(feature)Feature"), .target(name: "\(feature)FeatureFront"),
      "TrellisFront", "TrellisFrontTesting", "TrellisReactor", "TrellisService", "TrellisCore",
      "TrellisCoreTesting", "TrellisTestSupport",
    ],
    path: "Tests/Features/\(feature)",
    exclude: ["__Snapshots__"]
  )
}

/// The layers an app on any platform keeps (and the support their tests use), as libraries: a
/// package or an Xcode project depends on them by these product names, and on each feature's
/// reactor module (`<Feature>Feature`: its screens' reactors and service providers). The
/// terminal front, the demo backend and the tools are not among them.
let layerProducts: [Product] = [
  "TrellisCore", "TrellisNetwork", "TrellisRepository", "TrellisService", "TrellisReactor",
  "TrellisCoreTesting",
].map { .library(name: $0, targets: [$0]) }

/// Each feature's reactor module, as a library.
let featureProducts: [Product] = features.map {
  .library(name: "\($0)Feature", targets: ["\($0)Feature"])
}

let package = Package(
  name: "Trellis",
  // Observation's floor: the portable layers build for these (see docs/apple.md); newer
  // APIs are used only behind `#available`.
  platforms: [.iOS(.v17), .macOS(.v14)],
  products: layerProducts + featureProducts + [
    .executable(name: "Trellis", targets: ["Trellis"]),
    .executable(name: "DemoServer", targets: ["DemoServer"]),
    .executable(name: "trellis-gen", targets: ["trellis-gen"]),
    // The code generator's library, for its tests only (a package of their own,
    // Tests/GeneratorTests/Package.swift, so that `swift test` here runs the app's tests, not
    // the tool's): not for an app, and not built for iOS (it starts processes).
    .library(name: "TrellisGenerator", targets: ["TrellisGenerator"]),
  ],
  dependencies: [],
  targets: [
    // MARK: Layers (bottom to top)
    .target(
      name: "TrellisCore",
      path: "Modules/Core",
      exclude: ["README.md"],
      plugins: layerRule
    ),
    .target(
      name: "TrellisNetwork",
      dependencies: ["TrellisCore"],
      path: "Modules/Network",
      plugins: layerRule
    ),
    .target(
      name: "TrellisRepository",
      dependencies: ["TrellisNetwork", "TrellisCore"],
      path: "Modules/Repository",
      exclude: ["README.md"],
      plugins: layerRule
    ),
    .target(
      name: "TrellisService",
      dependencies: ["TrellisRepository", "TrellisNetwork", "TrellisCore"],
      path: "Modules/Service",
      plugins: layerRule
    ),
    .target(
      name: "TrellisReactor",
      dependencies: ["TrellisService", "TrellisCore"],
      path: "Modules/Reactor",
      plugins: layerRule
    ),
    .target(
      name: "TrellisFront",
      dependencies: ["TrellisReactor", "TrellisCore"],
      path: "Modules/Front",
      plugins: layerRule
    ),
    .executableTarget(
      name: "Trellis",
      dependencies: [
        "TrellisFront", "TrellisReactor", "TrellisService", "TrellisRepository", "TrellisNetwork",
        "TrellisCore", "TrellisDemoBackend",
      ] + featureReactorModules + featureFrontModules,
      path: "App",
      // Test hooks (App/CrashTest.swift) exist in debug builds only: never in the one shipped.
      swiftSettings: [.define("TRELLIS_TEST_HOOKS", .when(configuration: .debug))],
      plugins: layerRule
    ),

    // MARK: Test and demo support (never imported by the layers above)
    .target(
      name: "TrellisCoreTesting",
      dependencies: ["TrellisCore"],
      path: "Modules/CoreTesting",
      plugins: layerRule
    ),
    .target(
      name: "TrellisFrontTesting",
      dependencies: ["TrellisFront", "TrellisCore"],
      path: "Modules/FrontTesting",
      plugins: layerRule
    ),
    .target(
      name: "TrellisLoopbackServer",
      dependencies: ["TrellisNetwork", "TrellisCore"],
      path: "Modules/LoopbackServer",
      plugins: layerRule
    ),
    .target(
      name: "TrellisDemoBackend",
      dependencies: ["TrellisLoopbackServer", "TrellisNetwork", "TrellisCore"],
      path: "Modules/DemoBackend",
      plugins: layerRule
    ),

    .executableTarget(
      name: "DemoServer",
      dependencies: ["TrellisDemoBackend", "TrellisLoopbackServer", "TrellisCore"],
      path: "Modules/DemoServer"
    ),

    .target(
      name: "TrellisTestSupport",
      dependencies: [
        "TrellisReactor", "TrellisService", "TrellisRepository", "TrellisNetwork", "TrellisCore",
      ]
        + featureReactorModules,
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
      dependencies: ["TrellisCore"],
      path: "Tests/Benchmarks/ReactorBenchmark"
    ),
    .executableTarget(
      name: "NetworkBenchmark",
      dependencies: ["TrellisNetwork", "TrellisLoopbackServer", "TrellisCore"],
      path: "Tests/Benchmarks/NetworkBenchmark"
    ),

    // MARK: Tests (one target per module)
    .testTarget(name: "CoreTests", dependencies: ["TrellisCore", "TrellisCoreTesting"]),
    .testTarget(name: "CoreTestingTests", dependencies: ["TrellisCore", "TrellisCoreTesting"]),
    .testTarget(
      name: "NetworkTests",
      dependencies: [
        "TrellisNetwork", "TrellisLoopbackServer", "TrellisCore", "TrellisCoreTesting",
      ]),
    .testTarget(
      name: "LoopbackServerTests",
      dependencies: ["TrellisLoopbackServer", "TrellisNetwork", "TrellisCore"],
      exclude: ["fuzz.sh"]),
    .testTarget(
      name: "RepositoryTests",
      dependencies: [
        "TrellisRepository", "TrellisNetwork", "TrellisCore", "TrellisDemoBackend",
        "TrellisLoopbackServer",
      ]),
    .testTarget(
      name: "ServiceTests",
      dependencies: [
        "TrellisService", "TrellisRepository", "TrellisNetwork", "TrellisCore",
        "TrellisCoreTesting", "TrellisTestSupport",
      ]),
    .testTarget(
      name: "DemoBackendTests",
      dependencies: [
        "TrellisDemoBackend", "TrellisLoopbackServer", "TrellisNetwork", "TrellisCore",
        "TrellisCoreTesting",
      ]),
    .testTarget(
      name: "ReactorTests",
      dependencies: [
        "TrellisReactor", "TrellisService", "TrellisCore", "TrellisCoreTesting",
        "TrellisTestSupport",
      ]
        + featureReactorModules),
    .testTarget(
      name: "FrontTests",
      dependencies: [
        "TrellisFront", "TrellisFrontTesting", "TrellisReactor", "TrellisService", "TrellisCore",
        "TrellisCoreTesting", "TrellisTestSupport",
      ]
        + featureReactorModules + featureFrontModules,
      exclude: ["__Snapshots__"]),
    .testTarget(
      name: "AppTests",
      dependencies: [
        "Trellis", "TrellisFront", "TrellisReactor", "TrellisService", "TrellisRepository",
        "TrellisNetwork", "TrellisDemoBackend", "TrellisLoopbackServer", "TrellisCore",
        "TrellisCoreTesting",
      ]
        + featureReactorModules + featureFrontModules),
  ] + featureTargets + featureTestTargets,
  swiftLanguageModes: [.v6]
)

// MARK: Linking on Linux
//
// On Linux the test targets and the executables (but `LayerCheck`) link with the toolchain's own
// `ld.lld` instead of gold: the test binary, which every `swift test` links again from all the
// test modules, in about half gold's time, and the app about 1.4 times faster; at 200 screens
// that saves about a second of each edit-and-test run (docs/performance.md).
// Library targets get no linker flag: SwiftPM passes a target's linker flags on to every product
// that links it, so a flag on a layer would choose the linker of every app built on the layers.
// Nor does `LayerCheck`, the layer rule's tool, which a package built on the layers builds too
// (exclude the tool of any build-tool plugin you add, for the same reason).
// swift.org's Linux toolchains ship `usr/bin/ld.lld`; with one that does not, delete this loop,
// or pass `-Xswiftc -use-ld=gold` to every `swift build`, `test` and `run` (the last `-use-ld`
// counts; changing it builds everything again).
for target in package.targets
where (target.type == .test || target.type == .executable) && target.name != "LayerCheck" {
  target.linkerSettings =
    (target.linkerSettings ?? []) + [.unsafeFlags(["-use-ld=lld"], .when(platforms: [.linux]))]
}
