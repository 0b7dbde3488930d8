import Foundation
import Testing

@testable import TrellisGenerator

@Suite("Stripping the demo")
struct StripDemoTests {
  /// A sandbox of the whole project as a fresh clone has it: the features a team generated
  /// since are taken off the manifest's list (their folders stay), and the tests of screens it
  /// generated into the demo's features are left out, since strip-demo runs only before any;
  /// the demo's features (those the strip map removes) stay listed.
  private func demoSandbox() throws -> Sandbox {
    let sandbox = try Sandbox(including: ["Tests"])
    let map = try sandbox.read("Templates/StripDemo/strip.map").components(separatedBy: "\n")
    let demoFeatures = map.compactMap { line -> String? in
      let prefix = "remove Modules/Features/"
      return line.hasPrefix(prefix) ? "  \"\(line.dropFirst(prefix.count))\"," : nil
    }
    let handled = map.compactMap { line -> String? in
      let words = line.split(separator: " ")
      return words.first == "remove" || words.first == "write" ? words.last.map(String.init) : nil
    }
    let demoModules = demoFeatures.flatMap { entry in
      let feature = entry.trimmingCharacters(in: CharacterSet(charactersIn: " \","))
      return ["\(feature)Feature", "\(feature)FeatureFront"]
    }
    let tests = FileManager.default.enumerator(atPath: sandbox.root + "/Tests")
    while let file = tests?.nextObject() as? String {
      let path = "Tests/" + file
      guard path.hasSuffix(".swift"),
        !handled.contains(where: { path == $0 || path.hasPrefix($0 + "/") }),
        try demoModules.contains(where: { Generator.imports(try sandbox.read(path), module: $0) })
      else { continue }
      try FileManager.default.removeItem(atPath: sandbox.root + "/" + path)
    }
    #expect(demoFeatures.count == 3, "\(demoFeatures)")
    let manifest = try sandbox.read("Package.swift")
    var lines = manifest.components(separatedBy: "\n")
    if let start = lines.firstIndex(of: "let features: [String] = ["),
      let marker = lines.firstIndex(where: { $0.contains("// trellis:features") }), start < marker
    {
      lines.replaceSubrange(
        (start + 1)..<marker, with: lines[(start + 1)..<marker].filter(demoFeatures.contains))
    }
    try sandbox.write(lines.joined(separator: "\n"), to: "Package.swift")
    return sandbox
  }

  /// Runs the command line in `sandbox`, its tree as clean as `uncommitted` says.
  private func run(
    _ sandbox: Sandbox, _ arguments: String..., uncommitted: String? = nil
  ) -> (status: Int32, output: String, errors: String) {
    var output: [String] = []
    var errors: [String] = []
    let status = GeneratorCommand.run(
      arguments, currentDirectory: sandbox.root, output: { output.append($0) },
      errors: { errors.append($0) }, uncommittedChanges: { _ in uncommitted })
    return (status, output.joined(separator: "\n"), errors.joined(separator: "\n"))
  }

  /// On a clean tree, the demo goes and the app starts on a home screen that talks to the
  /// configured server; what every app keeps stays; a screen is generated as before; a second
  /// strip finds nothing to strip.
  @Test func theDemoGoesAndWhatAnAppKeepsStays() throws {
    let sandbox = try demoSandbox()
    defer { sandbox.cleanUp() }
    // The manifest's settings after its targets (how tests and executables link) are the
    // stripped template's too: the two copies must not drift apart.
    func settingsAfterTargets(_ manifest: String) -> Substring? {
      manifest.range(of: "\n// MARK: ").map { manifest[$0.lowerBound...] }
    }
    let settings = settingsAfterTargets(try sandbox.read("Package.swift"))
    #expect(settings != nil)
    let result = run(sandbox, "strip-demo")
    #expect(result.status == 0, "\(result.errors)")
    #expect(settingsAfterTargets(try sandbox.read("Package.swift")) == settings)
    for gone in [
      "Modules/DemoBackend", "Modules/DemoServer", "Modules/Features/Tasks",
      "Modules/Service/TaskService.swift", "Modules/Repository/TaskRepo.swift",
      "Tests/DemoBackendTests", "Tests/AppTests/EndToEndTests.swift", "Tests/Scripts",
      "Tests/FrontTests/__Snapshots__/TaskListViewControllerTests", "Templates/StripDemo",
      ".ci/check-terminal",
    ] {
      #expect(!sandbox.exists(gone), "\(gone)")
    }
    for kept in [
      "Modules/Network/Http/Plugins/AuthPlugin.swift", "Modules/Service/AuthService",
      "Modules/Repository/AuthRepo.swift", "Modules/Reactor/Shared/ScreenEvent.swift",
      "Modules/Front/Kit/Window.swift", "Modules/Tools/Generator", "Templates/Screen",
      ".ci/check-layers", "Tests/AppTests/ConfigurationTests.swift",
    ] {
      #expect(sandbox.exists(kept), "\(kept)")
    }
    let composition = try sandbox.read("App/CompositionRoot.swift")
    #expect(composition.contains("HomeViewController(menuEntries: mainMenu)"))
    #expect(composition.contains("configuration.server ?? defaultServer"))
    #expect(!composition.contains("Demo"))
    for marker in [
      "repositories", "services", "service-arguments", "screens", "menu-entries", "routes",
    ] {
      #expect(composition.contains("// trellis:\(marker) "), "\(marker)")
    }
    #expect(!(try sandbox.read("Package.swift")).contains("Demo"))
    #expect(sandbox.exists("App/HomeViewController.swift"))
    // Its help speaks of the app, not of the demo's backend, accounts and links.
    let help = try sandbox.read("App/AppConfiguration+Usage.swift")
    for demo in ["DemoServer", "alice", "--instant", "/tasks", "demo"] {
      #expect(!help.contains(demo), "\(demo)")
    }
    #expect(!(try sandbox.read("Package.swift")).contains("\"Tasks\""))
    #expect(result.output.contains("deleted Modules/DemoBackend/DemoBackend.swift"))
    #expect(result.output.contains("Next:"))

    let screen = run(sandbox, "screen", Sandbox.unique("notes"))
    #expect(screen.status == 0, "\(screen.errors)")
    let again = run(sandbox, "strip-demo")
    #expect(again.status == 1 && again.errors.contains("there is no demo to strip"))
  }

  /// Uncommitted changes, or screens generated already, stop it with the reason, and nothing
  /// changes; a dry run lists what it would delete and changes nothing either.
  @Test func itRunsOnlyOnACleanTreeBeforeAnyScreen() throws {
    let sandbox = try demoSandbox()
    defer { sandbox.cleanUp() }
    let before = try sandbox.snapshot()
    let dirty = run(sandbox, "strip-demo", uncommitted: "  M App/AppServices.swift")
    #expect(dirty.status == 1)
    #expect(dirty.errors.contains("commit or stash first"))
    #expect(dirty.errors.contains("M App/AppServices.swift"))
    let dryRun = run(sandbox, "strip-demo", "--dry-run", uncommitted: "  M App/AppServices.swift")
    #expect(dryRun.status == 0, "\(dryRun.errors)")
    #expect(dryRun.output.contains("=== deleted: Modules/DemoBackend/DemoBackend.swift"))
    #expect(dryRun.output.contains("=== changed: App/CompositionRoot.swift"))
    #expect(try sandbox.snapshot() == before)
    #expect(run(sandbox, "strip-demo", "extra").status == 2)

    #expect(run(sandbox, "screen", Sandbox.unique("notes")).status == 0)
    let generated = try sandbox.snapshot()
    let late = run(sandbox, "strip-demo")
    #expect(late.status == 1)
    #expect(late.errors.contains("screens were generated already"))
    // The demo's own features are not a reason to refuse, nor named as one.
    #expect(!late.errors.contains("Shell") && !late.errors.contains("Tasks"), "\(late.errors)")
    #expect(try sandbox.snapshot() == generated)
  }

  /// A screen generated into one of the demo's features would go with the feature and leave
  /// its tests behind (the feature's test module), importing a module that is gone: refused,
  /// and nothing changes; so is a test elsewhere that imports it, and the test module's folder
  /// with only its snapshots left.
  @Test func aScreenGeneratedIntoADemoFeatureStopsIt() throws {
    let sandbox = try demoSandbox()
    defer { sandbox.cleanUp() }
    let name = try GeneratedName(Sandbox.unique("notes"), kind: "screen")
    let screen = run(sandbox, "screen", name.kebab, "--feature", "tasks")
    #expect(screen.status == 0, "\(screen.errors)")
    let generated = try sandbox.snapshot()
    let late = run(sandbox, "strip-demo")
    #expect(late.status == 1)
    #expect(
      late.errors.contains("Tests/Features/Tasks holds the tests of screens generated into"),
      "\(late.errors)")
    #expect(late.errors.contains("a screen generated into the demo's features"))
    #expect(try sandbox.snapshot() == generated)
    // Its tests moved to a layer's test module, only the snapshots' folder left: still
    // refused, the folder named.
    for suffix in ["ViewReactorTests", "ViewControllerTests"] {
      let file = "\(name.upper)\(suffix).swift"
      let text = try sandbox.read("Tests/Features/Tasks/\(file)")
      try sandbox.write(text, to: "Tests/ReactorTests/\(file)")
      try FileManager.default.removeItem(atPath: "\(sandbox.root)/Tests/Features/Tasks/\(file)")
    }
    #expect(sandbox.exists("Tests/Features/Tasks/__Snapshots__/README.md"))
    let leftover = run(sandbox, "strip-demo")
    #expect(leftover.status == 1)
    #expect(leftover.errors.contains("Tests/Features/Tasks holds"), "\(leftover.errors)")
    // The folder gone: the moved tests still import the feature.
    try FileManager.default.removeItem(atPath: "\(sandbox.root)/Tests/Features/Tasks")
    let moved = run(sandbox, "strip-demo")
    #expect(moved.status == 1)
    #expect(moved.errors.contains(" imports TasksFeature"), "\(moved.errors)")
  }

  /// An import is found however it is written, and a longer module's name is not taken for it.
  @Test func importsAreFoundInEveryForm() {
    for source in [
      "import TasksFeature\n", "import Testing\n@testable import TasksFeature",
      "import struct TasksFeature.TaskListViewReactor\r\n", "  import TasksFeature // list\n",
    ] {
      #expect(Generator.imports(source, module: "TasksFeature"), "\(source)")
    }
    for source in [
      "import TasksFeatureFront\n", "// import TasksFeature\n", "let s = \"x import TasksFeature\"",
    ] {
      #expect(!Generator.imports(source, module: "TasksFeature"), "\(source)")
    }
  }

  /// A map that names a path outside the project, a path that is not there, or an unknown
  /// directive is refused with its line, before anything is written.
  @Test(arguments: [
    ("remove ../outside", "is not a path inside the project"),
    ("remove Modules/NoSuchThing", "Modules/NoSuchThing is not there"),
    ("delete App", "expected `remove PATH` or `write TEMPLATE PATH`"),
  ])
  func aBadMapIsRefusedWithItsLine(line: String, reason: String) throws {
    let sandbox = try demoSandbox()
    defer { sandbox.cleanUp() }
    try sandbox.write("# first line\n\(line)\n", to: "Templates/StripDemo/strip.map")
    let before = try sandbox.snapshot()
    let result = run(sandbox, "strip-demo")
    #expect(result.status == 1)
    #expect(result.errors.contains("strip.map:2: ") && result.errors.contains(reason))
    #expect(try sandbox.snapshot() == before)
  }
}
