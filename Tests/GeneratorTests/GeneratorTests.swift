import Foundation
import Synchronization
import Testing

@testable import TrellisGenerator

/// A copy of the project's generator inputs (Package.swift, App, Modules, Templates, README,
/// .ci) in a temporary folder, so each test generates into its own tree.
struct Sandbox {
  let root: String

  init() throws {
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().path
    root =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-gen-\(UUID().uuidString)").path
    let manager = FileManager.default
    try manager.createDirectory(atPath: root, withIntermediateDirectories: true)
    for item in [
      "Package.swift", "README.md", "App", "Modules", "Templates", ".ci", "Tests/AppTests",
      "Tests/Benchmarks/AppBenchmark", "Tests/Benchmarks/GeneratorBenchmark",
    ] {
      let destination = root + "/" + item
      try manager.createDirectory(
        atPath: (destination as NSString).deletingLastPathComponent,
        withIntermediateDirectories: true)
      try manager.copyItem(atPath: source + "/" + item, toPath: destination)
    }
  }

  func cleanUp() { try? FileManager.default.removeItem(atPath: root) }

  /// Every file's contents by relative path.
  func snapshot() throws -> [String: String] {
    var files: [String: String] = [:]
    guard let enumerator = FileManager.default.enumerator(atPath: root) else { return files }
    for case let path as String in enumerator {
      var isDirectory: ObjCBool = false
      let exists = FileManager.default.fileExists(
        atPath: root + "/" + path, isDirectory: &isDirectory)
      if exists, !isDirectory.boolValue {
        files[path] = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
      }
    }
    return files
  }

  func read(_ path: String) throws -> String {
    try String(contentsOfFile: root + "/" + path, encoding: .utf8)
  }

  /// The project's current name (the package's), so that the tests also pass in a renamed
  /// copy of Trellis.
  func projectName() throws -> String {
    let manifest = try read("Package.swift")
    let package = try #require(manifest.range(of: "Package("))
    let start = try #require(manifest[package.upperBound...].range(of: "name: \""))
    let end = try #require(manifest[start.upperBound...].firstIndex(of: "\""))
    return String(manifest[start.upperBound..<end])
  }

  /// Runs the command line; returns the status and what it printed.
  func run(_ arguments: String...) -> (status: Int32, output: String, errors: String) {
    var output: [String] = []
    var errors: [String] = []
    let status = GeneratorCommand.run(
      arguments, currentDirectory: root, output: { output.append($0) },
      errors: { errors.append($0) })
    return (status, output.joined(separator: "\n"), errors.joined(separator: "\n"))
  }
}

/// A file system that fails on purpose: its Nth move throws (a failure part-way through
/// writing), or after N moves every operation throws, as if the process had died there.
struct FaultyFileSystem: GeneratorFileSystem {
  let base = LocalFileSystem()
  var failingMove: Int?
  var diesAfterMoves: Int?
  let moves = MoveCounter()

  final class MoveCounter: Sendable {
    let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
  }

  private func alive() throws {
    if let diesAfterMoves, moves.value >= diesAfterMoves {
      throw GeneratorError("the process died (injected)")
    }
  }

  func exists(_ path: String) -> Bool { base.exists(path) }
  func isSymbolicLink(_ path: String) -> Bool { base.isSymbolicLink(path) }
  func read(_ path: String) throws -> String { try base.read(path) }
  func write(_ text: String, to path: String) throws {
    try alive()
    try base.write(text, to: path)
  }
  func permissions(of path: String) throws -> Int { try base.permissions(of: path) }
  func setPermissions(_ permissions: Int, of path: String) throws {
    try alive()
    try base.setPermissions(permissions, of: path)
  }
  func createDirectory(_ path: String) throws {
    try alive()
    try base.createDirectory(path)
  }
  func remove(_ path: String) throws {
    try alive()
    try base.remove(path)
  }
  func swiftFiles(under path: String) -> [String] { base.swiftFiles(under: path) }
  func entries(in path: String) -> [String] { base.entries(in: path) }
  func move(_ source: String, to destination: String) throws {
    try alive()
    let count = moves.count.withLock { count in
      count += 1
      return count
    }
    if count == failingMove { throw GeneratorError("disk full (injected)") }
    try base.move(source, to: destination)
  }
}

@Suite("Names")
struct NamingTests {
  @Test(arguments: [
    ("profile", "Profile", "profile", "Profile", "profile"),
    ("user-settings", "UserSettings", "userSettings", "User Settings", "user-settings"),
    ("user_settings", "UserSettings", "userSettings", "User Settings", "user-settings"),
    ("userSettings", "UserSettings", "userSettings", "User Settings", "user-settings"),
    ("UserSettings", "UserSettings", "userSettings", "User Settings", "user-settings"),
    ("  invoice 2 ", "Invoice2", "invoice2", "Invoice 2", "invoice-2"),
  ])
  func namesAreNormalised(raw: String, upper: String, lower: String, title: String, kebab: String)
    throws
  {
    let name = try GeneratedName(raw, kind: "screen")
    #expect(name.upper == upper)
    #expect(name.lower == lower)
    #expect(name.title == title)
    #expect(name.kebab == kebab)
  }

  @Test(arguments: [
    ("", "the screen needs a name"),
    ("9lives", "it must start with a letter"),
    ("my screen!", "is not a Swift identifier"),
    ("café", "is not a Swift identifier"),
    ("class", "is a Swift keyword"),
    ("self", "is a Swift keyword"),
    ("String", "is already a Swift or Foundation type"),
    ("task", "is already a Swift or Foundation type"),
  ])
  func badNamesAreRefusedWithAReason(raw: String, reason: String) {
    #expect {
      try GeneratedName(raw, kind: "screen")
    } throws: { error in
      (error as? GeneratorError)?.message.contains(reason) == true
    }
  }
}

@Suite("Templates")
struct TemplateTests {
  @Test func placeholdersAndSections() throws {
    let template = Template(
      source:
        "init(\n{{#items}}\n  {{item}}: {{Name}},\n{{/items}}\n)\n{{^items}}\nnone\n{{/items}}\n",
      name: "t")
    let values: [String: Template.Value] = [
      "Name": .text("X"), "items": .list([["item": "a"], ["item": "b"]]),
    ]
    #expect(try template.render(values) == "init(\n  a: X,\n  b: X,\n)\n")
    #expect(try template.render(["Name": .text("X"), "items": .list([])]) == "init(\n)\nnone\n")
    #expect(throws: GeneratorError("t: unknown placeholder {{Nmae}} (see Templates/README.md)")) {
      try Template(source: "{{Nmae}}", name: "t").render(values)
    }
  }
}

@Suite("Generator")
struct GeneratorTests {
  @Test func aScreenIsWrittenWiredAndReachable() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let result = sandbox.run("screen", "user-settings", "--services", "user,Task")
    #expect(result.status == 0, "\(result.errors)")
    let reactor = try sandbox.read("Modules/Reactor/UserSettingsView/UserSettingsViewReactor.swift")
    #expect(reactor.contains("public final class UserSettingsViewReactor: ReactorProtocol"))
    let provider = try sandbox.read(
      "Modules/Reactor/UserSettingsView/UserSettingsViewServiceProvider.swift")
    #expect(provider.contains("  var userService: any UserService { get }"))
    #expect(provider.contains("    taskService: any TaskService,"))
    let view = try sandbox.read(
      "Modules/Front/Views/UserSettingsView/UserSettingsViewController.swift")
    #expect(view.contains("super.init(reactor: reactor, title: \"User Settings\")"))
    #expect(
      try sandbox.read("Tests/ReactorTests/UserSettingsViewReactorTests.swift").contains(
        "userService: FakeUserService(),"))
    #expect(
      try sandbox.read("Tests/FrontTests/UserSettingsViewControllerTests.swift").contains(
        "taskService: FakeTaskService(),"))
    #expect(
      FileManager.default.fileExists(
        atPath: sandbox.root
          + "/Modules/Front/Views/UserSettingsView/UserSettingsViewControllerProvider.swift"))
    // The screen's reactor is a module of its own, which the app and the views import.
    let manifest = try sandbox.read("Package.swift")
    let listed = try #require(manifest.range(of: "\n  \"UserSettings\",\n"))
    #expect(
      listed.upperBound <= (try #require(manifest.range(of: "// trellis:screens"))).lowerBound)
    #expect(view.contains("import UserSettingsReactor"))
    let composition = try sandbox.read("App/CompositionRoot.swift")
    #expect(composition.contains("import Service\nimport UserSettingsReactor\n"))
    #expect(composition.components(separatedBy: "func makeUserSettingsViewController()").count == 2)
    #expect(
      composition.contains(
        "title: \"User Settings\", makeViewController: makeUserSettingsViewController"))
    let factory = try #require(composition.range(of: "func makeUserSettingsViewController()"))
    let marker = try #require(composition.range(of: "// trellis:screen-factories"))
    #expect(factory.lowerBound < marker.lowerBound)  // above its marker, which stays
    #expect(
      result.output.contains(
        "created Modules/Reactor/UserSettingsView/UserSettingsViewReactor.swift"))
    #expect(result.output.contains("updated Package.swift"))
  }

  @Test func aScreenWithoutServicesIsWrittenAsSwiftFormatWouldWriteIt() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    #expect(sandbox.run("screen", "about").status == 0)
    let provider = try sandbox.read("Modules/Reactor/AboutView/AboutViewServiceProvider.swift")
    #expect(provider.contains("  public init() {}\n"))
    #expect(
      try sandbox.read("App/CompositionRoot.swift").contains("AboutViewServiceProviderImpl()"))
    // Imports stay sorted wherever the screen's module falls: here, before `Core`.
    #expect(
      try sandbox.read("Tests/ReactorTests/AboutViewReactorTests.swift").hasPrefix(
        "import AboutReactor\nimport CoreTesting\nimport Reactor\n"))
    #expect(try sandbox.read("App/CompositionRoot.swift").hasPrefix("import AboutReactor\n"))
  }

  @Test func aServiceAndARepositoryAreWrittenAndCreatedInTheCompositionRoot() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    #expect(sandbox.run("service", "billing").status == 0)
    #expect(sandbox.run("repository", "invoice").status == 0)
    #expect(
      try sandbox.read("Modules/Service/BillingService.swift").contains(
        "public protocol BillingService: Sendable"))
    #expect(
      try sandbox.read("Tests/ServiceTests/BillingServiceTests.swift").contains(
        "BillingServiceImpl()"))
    #expect(
      try sandbox.read("Modules/Repository/InvoiceDataAPI.swift").contains(
        "case .list: \"/invoice\""))
    #expect(
      try sandbox.read("Modules/Repository/DataModels/InvoiceModel.swift").contains(
        "struct InvoiceModel"))
    #expect(
      try sandbox.read("Modules/Repository/InvoiceRepo.swift").contains(
        "final class InvoiceRepoImpl: InvoiceRepo"))
    #expect(
      try sandbox.read("Tests/RepositoryTests/InvoiceRepoTests.swift").contains("InvoiceRepoImpl("))
    let composition = try sandbox.read("App/CompositionRoot.swift")
    #expect(composition.contains("let billingService = BillingServiceImpl()"))
    #expect(composition.contains("let invoiceRepo = InvoiceRepoImpl("))
    // A screen can now use the generated service; its tests use the real implementation.
    #expect(sandbox.run("screen", "invoices", "--services", "billing").status == 0)
    #expect(
      try sandbox.read("Tests/ReactorTests/InvoicesViewReactorTests.swift").contains(
        "billingService: BillingServiceImpl(),"))
  }

  @Test func runningTheSameCommandTwiceChangesNothingTheSecondTime() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    #expect(sandbox.run("screen", "notes").status == 0)
    let after = try sandbox.snapshot()
    let again = sandbox.run("screen", "Notes")
    #expect(again.status == 1)
    #expect(again.errors.contains("the screen Notes already exists"))
    #expect(try sandbox.snapshot() == after)
  }

  @Test(arguments: [
    (["screen", "main"], "the screen Main already exists"),
    (["screen", "Profile"], "the screen Profile already exists"),
    (["repository", "user"], "the repository User already exists"),
    (["service", "auth"], "would collide with the existing type AuthService"),
    (["screen", "choice"], "would collide with the existing type Choice"),
    (["screen", "class"], "is a Swift keyword"),
    (["screen", "my-screen!"], "is not a Swift identifier"),
    (["screen", "reports", "--services", "weather"], "there is no service \"Weather\""),
    (["rename", "Core"], "is the name of a module"),
  ])
  func refusalsSayWhyAndTouchNothing(arguments: [String], reason: String) throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let before = try sandbox.snapshot()
    var output: [String] = []
    var errors: [String] = []
    let status = GeneratorCommand.run(
      arguments, currentDirectory: sandbox.root, output: { output.append($0) },
      errors: { errors.append($0) })
    #expect(status == 1)
    #expect(errors.joined().contains(reason), "\(errors)")
    #expect(try sandbox.snapshot() == before)
  }

  @Test func renamingToTheCurrentNameIsRefused() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let name = try sandbox.projectName()
    let before = try sandbox.snapshot()
    let result = sandbox.run("rename", name.lowercased())
    #expect(result.status == 1)
    #expect(result.errors.contains("the project is already named \(name)"), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  @Test func aMissingMarkerIsAClearErrorAndNothingIsWritten() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let path = sandbox.root + "/App/CompositionRoot.swift"
    let composition = try String(contentsOfFile: path, encoding: .utf8)
    try composition.replacingOccurrences(of: "// trellis:menu-entries", with: "// menu")
      .write(toFile: path, atomically: true, encoding: .utf8)
    let before = try sandbox.snapshot()
    let result = sandbox.run("screen", "notes")
    #expect(result.status == 1)
    #expect(result.errors.contains("has no \"// trellis:menu-entries\" marker"))
    #expect(try sandbox.snapshot() == before)
  }

  @Test func aMissingScreenListInTheManifestIsAClearErrorAndNothingIsWritten() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let path = sandbox.root + "/Package.swift"
    let manifest = try String(contentsOfFile: path, encoding: .utf8)
    try manifest.replacingOccurrences(of: "// trellis:screens", with: "// screens")
      .write(toFile: path, atomically: true, encoding: .utf8)
    let before = try sandbox.snapshot()
    let result = sandbox.run("screen", "notes")
    #expect(result.status == 1)
    #expect(result.errors.contains("Package.swift has no \"// trellis:screens\" marker"))
    #expect(try sandbox.snapshot() == before)
  }

  @Test func aRenameCannotTakeTheNameOfAGeneratedScreensModule() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    #expect(sandbox.run("screen", "notes").status == 0)
    let before = try sandbox.snapshot()
    let result = sandbox.run("rename", "notes-reactor")
    #expect(result.status == 1)
    #expect(result.errors.contains("\"NotesReactor\" is the name of a module"), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  @Test func aDryRunPrintsEverythingAndWritesNothing() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let before = try sandbox.snapshot()
    let result = sandbox.run("screen", "notes", "--dry-run")
    #expect(result.status == 0)
    #expect(
      result.output.contains("=== new file: Modules/Reactor/NotesView/NotesViewReactor.swift"))
    #expect(result.output.contains("=== new file: Tests/FrontTests/NotesViewControllerTests.swift"))
    #expect(result.output.contains("+    func makeNotesViewController() -> ViewController {"))
    #expect(result.output.contains("=== changed: Package.swift"))
    #expect(result.output.contains("+  \"Notes\","))
    #expect(result.output.contains("@@ -"))
    #expect(result.output.contains("(dry run: nothing was written)"))
    #expect(try sandbox.snapshot() == before)
  }

  /// How many moves applying a new screen makes (the journal's and each file's).
  private func movesOfAScreen() throws -> Int {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let counting = FaultyFileSystem()
    let generator = Generator(root: sandbox.root, fileSystem: counting)
    try generator.apply(try generator.planScreen("notes", services: []))
    return counting.moves.value
  }

  @Test func aFailureAtAnyMoveLeavesTheTreeUntouched() throws {
    let total = try movesOfAScreen()
    #expect(total == 9)  // the journal, six new files, two edits
    for failingMove in 1...total {
      let sandbox = try Sandbox()
      defer { sandbox.cleanUp() }
      let before = try sandbox.snapshot()
      let generator = Generator(
        root: sandbox.root, fileSystem: FaultyFileSystem(failingMove: failingMove))
      let changes = try generator.planScreen("notes", services: [])
      #expect(throws: GeneratorError.self) { try generator.apply(changes) }
      #expect(try sandbox.snapshot() == before, "move \(failingMove)")
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.root)
      #expect(
        !leftovers.contains { $0.hasPrefix(".build-trellis-gen") || $0.hasPrefix(".trellis-gen") })
      #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/Modules/Reactor/NotesView"))
    }
  }

  @Test func aRunThatDiesAtAnyMoveIsUndoneByTheNextRun() throws {
    let total = try movesOfAScreen()
    for diesAfter in 0..<total {
      let sandbox = try Sandbox()
      defer { sandbox.cleanUp() }
      let before = try sandbox.snapshot()
      let dying = Generator(
        root: sandbox.root, fileSystem: FaultyFileSystem(diesAfterMoves: diesAfter))
      #expect(throws: GeneratorError.self) {
        try dying.apply(try dying.planScreen("notes", services: []))
      }
      // The next run of the generator, whatever its command, first undoes the dead one.
      let result = sandbox.run("screen", "notes", "--dry-run")
      #expect(result.status == 0, "\(result.errors)")
      // Before the journal was written there is nothing to undo, only staging to remove.
      #expect(diesAfter == 0 || result.output.contains("undid an interrupted earlier run"))
      #expect(try sandbox.snapshot() == before, "died after move \(diesAfter)")
    }
  }

  @Test func renamingKeepsEachFilesPermissions() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let script = sandbox.root + "/.ci/run"
    #expect(try LocalFileSystem().permissions(of: script) == 0o755)
    #expect(sandbox.run("rename", "Zephyr").status == 0)
    #expect(try LocalFileSystem().permissions(of: script) == 0o755)
  }

  @Test func aFileChangedSincePlanningIsNotOverwritten() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let generator = Generator(root: sandbox.root)
    let changes = try generator.planScreen("notes", services: [])
    let path = sandbox.root + "/" + Generator.compositionRootPath
    try (sandbox.read(Generator.compositionRootPath) + "// an edit made meanwhile\n")
      .write(toFile: path, atomically: true, encoding: .utf8)
    let before = try sandbox.snapshot()
    #expect {
      try generator.apply(changes)
    } throws: { error in
      "\(error)".contains("changed since the generator read it")
    }
    #expect(try sandbox.snapshot() == before)
  }

  @Test func aSymbolicLinkIsNotEditedThrough() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let path = sandbox.root + "/" + Generator.compositionRootPath
    let real = sandbox.root + "/CompositionRoot.real.swift"
    try FileManager.default.moveItem(atPath: path, toPath: real)
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: real)
    let result = sandbox.run("screen", "notes")
    #expect(result.status == 1)
    #expect(result.errors.contains("is a symbolic link"))
    #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/Modules/Reactor/NotesView"))
  }

  @Test func renamingChangesThePackageTheAppAndItsIdentityButNotTheMarkers() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let oldName = try sandbox.projectName()
    let result = sandbox.run("rename", "zephyr")
    #expect(result.status == 0, "\(result.errors)")
    let manifest = try sandbox.read("Package.swift")
    #expect(manifest.contains("name: \"Zephyr\""))
    #expect(manifest.contains(".executable(name: \"Zephyr\", targets: [\"Zephyr\"])"))
    #expect(!manifest.contains("\"\(oldName)\""))
    let composition = try sandbox.read("App/CompositionRoot.swift")
    #expect(composition.contains("Window(appName: \"Zephyr\")"))
    #expect(composition.contains("appendingPathComponent(\"zephyr\", isDirectory: true)"))
    #expect(composition.contains("// trellis:menu-entries"))
    #expect(try sandbox.read("App/Application.swift").contains("\"Zephyr: \\(message)"))
    #expect(try sandbox.read("Tests/AppTests/AppHarness.swift").contains("@testable import Zephyr"))
    #expect(try sandbox.read("README.md").contains("swift run Zephyr"))
    #expect(
      try sandbox.read("Tests/Benchmarks/GeneratorBenchmark/scale-benchmark.sh").contains(
        "--product Zephyr"))
    #expect(sandbox.run("screen", "notes").status == 0)  // the generator still works after
  }

  @Test func theCommandLineExplainsItsUsage() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    #expect(sandbox.run("--help").output.contains("Usage: trellis-gen"))
    #expect(sandbox.run("screen").status == 2)
    #expect(sandbox.run("launch", "rockets").status == 2)
    #expect(sandbox.run("service", "x", "--services", "user").status == 2)
    #expect(sandbox.run("screen", "x", "--frobnicate").status == 2)
  }
}
