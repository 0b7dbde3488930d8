// swift-tools-version: 6.2
// The tests of `trellis-gen`, the project's code generator, in a package of their own so that
// the app's `swift test` (at the repository's root) neither builds nor runs them: they are most
// of the suite's processor time (docs/performance.md), and a team changes its app far more often
// than its generator. Run them from the repository's root, in the app's build folder (the
// modules they share with the app are then compiled once, for both):
//
//     swift test --package-path Tests/GeneratorTests --scratch-path .build
//
// They test the generator against the tree around them (`Sandbox` copies it), as before.
import Foundation
import PackageDescription

/// The repository's root package, two folders up: a path dependency is named by its folder.
let root = URL(fileURLWithPath: Context.packageDirectory)
  .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
  name: "GeneratorTests",
  // The root package's floor (its products require it).
  platforms: [.iOS(.v17), .macOS(.v14)],
  dependencies: [.package(path: "../..")],
  targets: [
    .testTarget(
      name: "GeneratorTests",
      dependencies: [
        .product(name: "TrellisGenerator", package: root),
        .product(name: "TrellisRepository", package: root),
        .product(name: "TrellisNetwork", package: root),
      ],
      path: ".",
      // Documents the tests read by their path (`#filePath`), never compiled or bundled.
      exclude: ["Package.swift", "Fixtures"])
  ],
  swiftLanguageModes: [.v6]
)
