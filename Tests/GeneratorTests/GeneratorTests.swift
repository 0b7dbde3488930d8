import Foundation
import Testing

@testable import TrellisGenerator

/// Whether the consecutive `import` lines at the top of `source` are in sorted order.
private func importsAreSorted(_ source: String) -> Bool {
  let imports = source.components(separatedBy: "\n").prefix { $0.hasPrefix("import ") }
  return !imports.isEmpty && imports.elementsEqual(imports.sorted())
}

/// Whether `line` is in `text` above the line holding `marker`.
private func line(_ line: String, isAbove marker: String, in text: String) -> Bool {
  let lines = text.components(separatedBy: "\n")
  guard let found = lines.firstIndex(of: line),
    let mark = lines.firstIndex(where: { $0.contains(marker) })
  else { return false }
  return found < mark
}

@Suite("Generating screens, services and repositories")
struct GeneratorTests {
  @Test func aScreenIsWrittenWiredAndReachable() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let raw = Sandbox.unique("user-settings")
    let name = try GeneratedName(raw, kind: "screen")
    let (type, title) = (name.upper, name.title)
    // Two services of the project's (generated here, so the test holds once the demo is
    // stripped), named as `--services` takes them: a word and a type.
    let users = try GeneratedName(Sandbox.unique("user"), kind: "service")
    let tasks = try GeneratedName(Sandbox.unique("task"), kind: "service")
    #expect(sandbox.run("service", users.kebab).status == 0)
    #expect(sandbox.run("service", tasks.kebab).status == 0)
    let result = sandbox.run(
      "screen", raw, "--services", "\(users.kebab),\(tasks.upper)Service")
    #expect(result.status == 0, "\(result.errors)")
    let reactor = try sandbox.read("Modules/Features/\(type)/Reactor/\(type)ViewReactor.swift")
    #expect(reactor.contains("public final class \(type)ViewReactor: ReactorProtocol"))
    #expect(reactor.contains("public typealias Event = ScreenEvent"))
    let provider = try sandbox.read(
      "Modules/Features/\(type)/Reactor/\(type)ViewServiceProvider.swift")
    #expect(provider.contains("public protocol \(type)ViewServiceProvider: Sendable {"))
    #expect(provider.contains("  var \(users.lower)Service: any \(users.upper)Service { get }"))
    #expect(provider.contains("  var \(tasks.lower)Service: any \(tasks.upper)Service { get }"))
    let view = try sandbox.read("Modules/Features/\(type)/Front/\(type)ViewController.swift")
    #expect(view.contains(".heading(\"\(title)\")"))
    #expect(!view.contains("public init("))  // it inherits init(reactor:), titled after its reactor
    // The view is in the feature's front module, on top of its reactor module, which does
    // not import the front (an app with another front uses it as it is).
    #expect(view.contains("import \(type)Feature\n") && importsAreSorted(view))
    #expect(!reactor.contains("Front\n") && !provider.contains("Front\n"))
    #expect(!view.contains("observe"))  // the view re-renders through Observation
    for test in [
      "Tests/Features/\(type)/\(type)ViewReactorTests.swift",
      "Tests/Features/\(type)/\(type)ViewControllerTests.swift",
    ] {
      let text = try sandbox.read(test)
      #expect(text.contains("serviceProvider: TestServices())"), "\(test)")
      #expect(importsAreSorted(text), "\(test)")
    }
    // The module, above its marker, which stays (its comma as swift format wants: none if it is
    // the only one).
    let manifest = try sandbox.read("Package.swift")
    #expect(
      line("  \"\(type)\",", isAbove: "// trellis:features", in: manifest)
        || line("  \"\(type)\"", isAbove: "// trellis:features", in: manifest))
    // The app's and the tests' services conform to the screen's provider.
    let services = try sandbox.read("App/AppServices.swift")
    #expect(
      line(
        "extension AppServices: \(type)ViewServiceProvider {}",
        isAbove: "// trellis:screen-services",
        in: services))
    #expect(services.contains("import \(type)Feature\n") && importsAreSorted(services))
    let testServices = try sandbox.read("Tests/TestSupport/TestServices.swift")
    #expect(
      line(
        "extension TestServices: \(type)ViewServiceProvider {}",
        isAbove: "// trellis:test-screen-services", in: testServices))
    #expect(importsAreSorted(testServices))
    // The main menu opens it.
    let composition = try sandbox.read("App/CompositionRoot.swift")
    #expect(
      importsAreSorted(composition) && composition.contains("import \(type)FeatureFront\n"))
    #expect(
      line(
        "      MainMenuEntry(title: \"\(title)\") {", isAbove: "// trellis:menu-entries",
        in: composition))
    // Its factory in `Screens` makes it, for the menu entry and any route alike.
    #expect(
      line(
        "  func make\(type)ViewController() -> ViewController {", isAbove: "// trellis:screens",
        in: composition))
    // (No comma after the menu's only entry, in a project that has only this screen.)
    #expect(
      composition.contains("        make\(type)ViewController()\n      },\n")
        || composition.contains("        make\(type)ViewController()\n      }\n"))
    #expect(composition.contains("      reactor: \(type)ViewReactor(serviceProvider: services))\n"))
    #expect(
      result.output.contains("created Modules/Features/\(type)/Reactor/\(type)ViewReactor.swift"))
    #expect(result.output.contains("updated Package.swift"))
  }

  @Test func aScreenWithoutServicesIsWrittenAsSwiftFormatWouldWriteIt() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    // A name sorting first, so its import goes before every other.
    let raw = Sandbox.unique("aaa")
    let type = try GeneratedName(raw, kind: "screen").upper
    #expect(sandbox.run("screen", raw).status == 0)
    let provider = try sandbox.read(
      "Modules/Features/\(type)/Reactor/\(type)ViewServiceProvider.swift")
    #expect(provider.contains("public protocol \(type)ViewServiceProvider: Sendable {}\n"))
    let test = try sandbox.read("Tests/Features/\(type)/\(type)ViewReactorTests.swift")
    #expect(test.hasPrefix("import \(type)Feature\n") && importsAreSorted(test))
    #expect(
      try sandbox.read("App/CompositionRoot.swift").hasPrefix(
        "import \(type)Feature\nimport \(type)FeatureFront\n"))
  }

  /// `--feature` puts several screens in one feature module: the first makes the module, the
  /// next only add their files and wiring (no second manifest entry, no repeated import).
  @Test func screensOfOneFeatureShareItsModule() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let feature = try GeneratedName(Sandbox.unique("orders") + "-feature", kind: "feature")
    let list = try GeneratedName(Sandbox.unique("order-list"), kind: "screen")
    let detail = try GeneratedName(Sandbox.unique("order-detail"), kind: "screen")
    let first = sandbox.run("screen", list.kebab, "--feature", feature.kebab + "-feature")
    #expect(first.status == 0, "\(first.errors)")
    let afterFirst = try sandbox.snapshot()
    let second = sandbox.run("screen", detail.kebab, "--feature", feature.upper)
    #expect(second.status == 0, "\(second.errors)")
    let folder = "Modules/Features/\(feature.upper)"
    for screen in [list, detail] {
      #expect(sandbox.exists("\(folder)/Reactor/\(screen.upper)ViewReactor.swift"))
      #expect(sandbox.exists("\(folder)/Reactor/\(screen.upper)ViewServiceProvider.swift"))
      #expect(sandbox.exists("\(folder)/Front/\(screen.upper)ViewController.swift"))
      #expect(!sandbox.exists("Modules/Features/\(screen.upper)"))
      let test = try sandbox.read(
        "Tests/Features/\(feature.upper)/\(screen.upper)ViewReactorTests.swift")
      #expect(test.contains("import \(feature.upper)Feature\n") && importsAreSorted(test))
    }
    // The manifest lists the feature once in each list (its modules, its test module), and the
    // second screen left it as it was.
    let manifest = try sandbox.read("Package.swift")
    let parsed = PackageManifest(source: manifest)
    #expect(parsed.features.filter { $0 == feature.upper }.count == 1)
    #expect(parsed.featuresWithTests.filter { $0 == feature.upper }.count == 1)
    #expect(manifest == afterFirst["Package.swift"])
    #expect(!second.output.contains("updated Package.swift"))
    for (path, module) in [
      ("App/CompositionRoot.swift", "\(feature.upper)FeatureFront"),
      ("App/AppServices.swift", "\(feature.upper)Feature"),
    ] {
      let text = try sandbox.read(path)
      #expect(text.components(separatedBy: "import \(module)\n").count == 2, "\(path)")
      #expect(
        text.contains("func make\(detail.upper)ViewController()")
          == (path == "App/CompositionRoot.swift"), "\(path)")
    }
    // A screen named like the feature joins it too.
    #expect(sandbox.run("screen", feature.kebab).status == 0)
    #expect(sandbox.exists("\(folder)/Reactor/\(feature.upper)ViewReactor.swift"))
  }

  /// A feature's screens' tests are its test module, `<Feature>FeatureTests` in
  /// `Tests/Features/<Feature>/`: the first screen lists the feature in `featuresWithTests` and
  /// keeps the snapshots' folder the manifest excludes; a screen added to one of the demo's
  /// features (whose tests are in ReactorTests and FrontTests) makes that feature's test module;
  /// a folder there that the manifest does not list is refused, nothing changed.
  @Test func aFeaturesTestsAreAModuleOfTheirOwn() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let ledger = try GeneratedName(Sandbox.unique("ledger"), kind: "screen")
    let made = sandbox.run("screen", ledger.kebab)
    #expect(made.status == 0, "\(made.errors)")
    let folder = "Tests/Features/\(ledger.upper)"
    #expect(sandbox.exists("\(folder)/\(ledger.upper)ViewReactorTests.swift"))
    #expect(sandbox.exists("\(folder)/\(ledger.upper)ViewControllerTests.swift"))
    #expect(sandbox.exists("\(folder)/__Snapshots__/README.md"))
    #expect(!sandbox.exists("Tests/ReactorTests/\(ledger.upper)ViewReactorTests.swift"))
    var manifest = PackageManifest(source: try sandbox.read("Package.swift"))
    #expect(manifest.featuresWithTests.contains(ledger.upper))
    // The manifest's test module for it, as SwiftPM reads it: its folder, the feature's modules.
    let module = manifest.targets.first { $0.name == "\(ledger.upper)FeatureTests" }
    #expect(module?.path == folder)
    #expect(module?.dependencies.contains("\(ledger.upper)FeatureFront") == true)
    #expect(manifest.owner(of: "\(folder)/\(ledger.upper)ViewReactorTests.swift") == module)

    // A screen in a demo feature: its tests make the feature's test module.
    let demo = manifest.features.first { !manifest.featuresWithTests.contains($0) }
    if let demo {
      let extra = try GeneratedName(Sandbox.unique("extra"), kind: "screen")
      let joined = sandbox.run("screen", extra.kebab, "--feature", demo)
      #expect(joined.status == 0, "\(joined.errors)")
      manifest = PackageManifest(source: try sandbox.read("Package.swift"))
      #expect(manifest.featuresWithTests.contains(demo))
      #expect(sandbox.exists("Tests/Features/\(demo)/\(extra.upper)ViewReactorTests.swift"))
    }

    // A folder of tests the manifest does not list would be no module's: refused.
    let stray = try GeneratedName(Sandbox.unique("stray"), kind: "feature")
    try sandbox.write("// left behind\n", to: "Tests/Features/\(stray.upper)/OldTests.swift")
    let before = try sandbox.snapshot()
    let refused = sandbox.run("screen", Sandbox.unique("report"), "--feature", stray.kebab)
    #expect(refused.status == 1)
    #expect(
      refused.errors.contains(
        "Tests/Features/\(stray.upper) exists, but featuresWithTests in Package.swift does not "
          + "list \"\(stray.upper)\""), "\(refused.errors)")
    #expect(try sandbox.snapshot() == before)
    // An empty folder (its tests deleted, the folder left) is taken as it is.
    let empty = try GeneratedName(Sandbox.unique("empty"), kind: "feature")
    try FileManager.default.createDirectory(
      atPath: "\(sandbox.root)/Tests/Features/\(empty.upper)", withIntermediateDirectories: true)
    let adopted = sandbox.run("screen", Sandbox.unique("memo"), "--feature", empty.kebab)
    #expect(adopted.status == 0, "\(adopted.errors)")
    #expect(sandbox.exists("Tests/Features/\(empty.upper)/__Snapshots__/README.md"))
  }

  /// A list the generator adds to is written as `swift format` wants it: its only element
  /// without a trailing comma, each of several with one; code that is not a list is left alone.
  @Test func listsKeepTheirCommasAsSwiftFormatWritesThem() throws {
    let marker = "// trellis:features"
    let one = "let features: [String] = [\n  \"First\",\n  \(marker)\n]\n"
    #expect(
      Generator.normalizingTrailingCommas(in: one, before: marker)
        == "let features: [String] = [\n  \"First\"\n  \(marker)\n]\n")
    let two = "let features: [String] = [\n  \"First\"\n  \"Second\",\n  \(marker)\n]\n"
    #expect(
      Generator.normalizingTrailingCommas(in: two, before: marker)
        == "let features: [String] = [\n  \"First\",\n  \"Second\",\n  \(marker)\n]\n")
    // An element with a comment of its own gets its comma before the comment, not in it.
    let commented =
      "let features: [String] = [\n  \"A//B\"  // mine\n  \"Second\",\n  \(marker)\n]\n"
    #expect(
      Generator.normalizingTrailingCommas(in: commented, before: marker)
        == "let features: [String] = [\n  \"A//B\",  // mine\n  \"Second\",\n  \(marker)\n]\n")
    let entry = "  let menu = [\n    Entry(title: \"A\") {\n      A()\n    },\n    \(marker)\n  ]"
    #expect(
      Generator.normalizingTrailingCommas(in: entry, before: marker)
        == "  let menu = [\n    Entry(title: \"A\") {\n      A()\n    }\n    \(marker)\n  ]")
    let code = "func f() {\n  a()\n  \(marker)\n}\n"
    #expect(Generator.normalizingTrailingCommas(in: code, before: marker) == code)
    // In the project: one generated screen leaves the manifest's list as swift format wants
    // (no comma if it is the only feature, as in a project that had none).
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let listed = PackageManifest(source: try sandbox.read("Package.swift")).features
    let name = try GeneratedName(Sandbox.unique("solo"), kind: "screen")
    #expect(sandbox.run("screen", name.kebab).status == 0)
    let manifest = try sandbox.read("Package.swift")
    #expect(
      manifest.contains("  \"\(name.upper)\"\(listed.isEmpty ? "" : ",")\n  // trellis:features"))
    let other = try GeneratedName(Sandbox.unique("duo"), kind: "screen")
    #expect(sandbox.run("screen", other.kebab).status == 0)
    let both = try sandbox.read("Package.swift")
    #expect(both.contains("  \"\(name.upper)\",\n  \"\(other.upper)\",\n  // trellis:features"))
  }

  /// `--list` writes the searchable, paged list in place of the note example, wired the same
  /// way; it applies to screens only.
  @Test func aListScreenIsSearchableAndPaged() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let name = try GeneratedName(Sandbox.unique("order-search"), kind: "screen")
    let result = sandbox.run("screen", name.kebab, "--list")
    #expect(result.status == 0, "\(result.errors)")
    let folder = "Modules/Features/\(name.upper)"
    let reactor = try sandbox.read("\(folder)/Reactor/\(name.upper)ViewReactor.swift")
    #expect(reactor.contains("case search(String)") && reactor.contains("case loadMore"))
    #expect(reactor.contains("clock: any Clock<Duration> = ContinuousClock()"))
    #expect(!reactor.contains("setNote"))
    let view = try sandbox.read("\(folder)/Front/\(name.upper)ViewController.swift")
    #expect(view.contains("onReachEnd: { reactor.send(.loadMore) }"))
    let tests = try sandbox.read("Tests/Features/\(name.upper)/\(name.upper)ViewReactorTests.swift")
    #expect(tests.contains("TestClock") && !tests.contains("Task.sleep"))
    #expect(
      try sandbox.read("App/CompositionRoot.swift").contains(
        "MainMenuEntry(title: \"\(name.title)\")"))
    let misuse = sandbox.run("service", Sandbox.unique("billing"), "--list")
    #expect(misuse.status == 2 && misuse.errors.contains("--list apply to screens only"))
  }

  /// Past ``GeneratorCommand/groupingHintThreshold`` features, a screen that makes a feature of
  /// its own is followed by the advice to group screens; one added to a feature is not.
  @Test func manyFeaturesBringTheAdviceToGroupScreens() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let first = try GeneratedName(Sandbox.unique("first-screen"), kind: "screen")
    let alone = sandbox.run("screen", first.kebab)
    #expect(alone.status == 0, "\(alone.errors)")
    #expect(!alone.output.contains("--feature NAME"))
    // Features listed up to the threshold (the manifest is all the advice reads).
    let listed = (1..<GeneratorCommand.groupingHintThreshold).map { "  \"Listed\($0)\"," }
    let manifest = try sandbox.read("Package.swift").replacingOccurrences(
      of: "  // trellis:features",
      with: (listed + ["  // trellis:features"]).joined(separator: "\n"))
    try sandbox.write(manifest, to: "Package.swift")
    let crowded = try GeneratedName(Sandbox.unique("crowded-screen"), kind: "screen")
    let result = sandbox.run("screen", crowded.kebab)
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.contains("Put the next"))
    #expect(result.output.contains("--feature NAME"))
    let grouped = sandbox.run(
      "screen", Sandbox.unique("grouped-screen"), "--feature", crowded.kebab)
    #expect(grouped.status == 0, "\(grouped.errors)")
    #expect(!grouped.output.contains("--feature NAME"))
  }

  /// A feature folder the manifest does not list (its files would join the new module unseen),
  /// or a feature named like a listed one but for case, is refused.
  @Test func aFeatureTheManifestDoesNotKnowIsRefused() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let stray = try GeneratedName(Sandbox.unique("stray"), kind: "feature")
    try sandbox.write("// left behind\n", to: "Modules/Features/\(stray.upper)/Front/Old.swift")
    let before = try sandbox.snapshot()
    let refused = sandbox.run("screen", Sandbox.unique("report"), "--feature", stray.kebab)
    #expect(refused.status == 1)
    #expect(
      refused.errors.contains(
        "Modules/Features/\(stray.upper) exists, but features in Package.swift does not "
          + "list \"\(stray.upper)\""), "\(refused.errors)")
    #expect(try sandbox.snapshot() == before)
    let shop = try GeneratedName(Sandbox.unique("shop"), kind: "feature")
    #expect(sandbox.run("screen", Sandbox.unique("cart"), "--feature", shop.upper).status == 0)
    let listed = try sandbox.snapshot()
    let differing = sandbox.run(
      "screen", Sandbox.unique("checkout"), "--feature", shop.upper.uppercased())
    #expect(differing.status == 1)
    #expect(
      differing.errors.contains(
        "the feature \(shop.upper.uppercased()) differs only in case from the feature "
          + "\(shop.upper)"), "\(differing.errors)")
    #expect(try sandbox.snapshot() == listed)
  }

  @Test func aServiceIsCreatedOnceAndScreensCanUseItSpelledAsItWasCreated() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let raw = Sandbox.unique("billing") + "-service"
    let name = try GeneratedName(raw, kind: "service")
    let (type, property) = (name.upper + "Service", name.lower + "Service")
    #expect(sandbox.run("service", raw).status == 0)
    #expect(!sandbox.exists("Modules/Service/\(type)Service.swift"))  // no BillingServiceService
    #expect(
      try sandbox.read("Modules/Service/\(type).swift").contains(
        "public protocol \(type): Sendable"))
    #expect(
      try sandbox.read("Tests/ServiceTests/\(type)Tests.swift").contains("\(type)Impl()"))
    let composition = try sandbox.read("App/CompositionRoot.swift")
    #expect(
      line("    let \(property) = \(type)Impl()", isAbove: "// trellis:services", in: composition))
    #expect(
      line(
        "      \(property): \(property),", isAbove: "// trellis:service-arguments",
        in: composition))
    #expect(
      line(
        "  let \(property): any \(type)", isAbove: "// trellis:app-services",
        in: try sandbox.read("App/AppServices.swift")))
    #expect(
      line(
        "  public var \(property): any \(type) = \(type)Impl()",
        isAbove: "// trellis:test-services",
        in: try sandbox.read("Tests/TestSupport/TestServices.swift")))
    // The spelling that created it names it in --services.
    let screen = try GeneratedName(Sandbox.unique("invoices"), kind: "screen")
    let result = sandbox.run("screen", screen.kebab, "--services", raw)
    #expect(result.status == 0, "\(result.errors)")
    #expect(
      try sandbox.read(
        "Modules/Features/\(screen.upper)/Reactor/\(screen.upper)ViewServiceProvider.swift"
      )
      .contains("  var \(property): any \(type) { get }"))
  }

  @Test func aRepositoryIsWrittenAndCreatedInTheCompositionRoot() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let raw = Sandbox.unique("invoice")
    let name = try GeneratedName(raw, kind: "repository")
    let result = sandbox.run("repository", raw + "-repo")
    #expect(result.status == 0)
    // It says what to do with the repository the composition root holds for now.
    #expect(result.output.contains("swift test --filter \(name.upper)RepoTests"))
    #expect(result.output.contains("until a service takes it"))
    #expect(result.output.contains("pass \(name.lower)Repo to it"))
    let type = name.upper
    #expect(
      try sandbox.read("Modules/Repository/\(type)DataAPI.swift").contains(
        "case .list: \"/\(name.kebab)\""))
    #expect(
      try sandbox.read("Modules/Repository/DataModels/\(type)Model.swift").contains(
        "struct \(type)Model"))
    #expect(
      try sandbox.read("Modules/Repository/\(type)Repo.swift").contains(
        "final class \(type)RepoImpl: \(type)Repo"))
    #expect(
      try sandbox.read("Tests/RepositoryTests/\(type)RepoTests.swift").contains("\(type)RepoImpl("))
    #expect(
      line(
        "    let \(name.lower)Repo = \(type)RepoImpl(", isAbove: "// trellis:repositories",
        in: try sandbox.read("App/CompositionRoot.swift")))
    // Without --outbox it only reads.
    #expect(try !sandbox.read("Modules/Repository/\(type)Repo.swift").contains("Outbox"))
  }

  /// `--outbox`: the writes, each through the outbox with its idempotency key, the tests against
  /// a server on loopback, and the outbox in the user's drafts folder; refused for the others.
  @Test func aRepositoryWithAnOutboxAlsoWrites() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let name = try GeneratedName(Sandbox.unique("expense"), kind: "repository")
    let result = sandbox.run("repository", name.kebab, "--outbox")
    #expect(result.status == 0, "\(result.errors)")
    let type = name.upper
    let api = try sandbox.read("Modules/Repository/\(type)DataAPI.swift")
    #expect(api.contains("case create(\(type)Model, idempotencyKey: String)"))
    #expect(api.contains("[\"Idempotency-Key\": key]"))
    let repo = try sandbox.read("Modules/Repository/\(type)Repo.swift")
    #expect(repo.contains("public enum \(type)Write: Codable, Sendable, Equatable"))
    #expect(repo.contains("func sendWaiting() async -> OutboxReport<\(type)Write>"))
    let tests = try sandbox.read("Tests/RepositoryTests/\(type)RepoTests.swift")
    #expect(
      tests.contains("LoopbackServer") && tests.contains("aWriteWhoseAnswerWasLostIsMadeOnce"))
    #expect(
      try sandbox.read("App/CompositionRoot.swift").contains(
        "outbox: Outbox(store: drafts, name: \"\(name.lower)\"))"))
    let misuse = sandbox.run("service", Sandbox.unique("billing"), "--outbox")
    #expect(misuse.status == 2 && misuse.errors.contains("--outbox applies to repositories only"))
  }

  @Test func aScreenWithARouteIsOpenedByItsLink() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let name = try GeneratedName(Sandbox.unique("weekly"), kind: "screen")
    let route = "reports/\(name.kebab)"
    let result = sandbox.run("screen", name.kebab, "--route", "/\(route)/")
    #expect(result.status == 0, "\(result.errors)")
    // The output says what to do next: the tests to run and how to open the screen.
    let project = try sandbox.projectName()
    #expect(
      result.output.contains(
        "swift test --filter '\(name.upper)ViewReactorTests|\(name.upper)ViewControllerTests'"))
    #expect(result.output.contains("swift run \(project), then \"\(name.title)\" in the menu"))
    let scheme = try sandbox.projectSpellings().kebab  // the app's link scheme
    #expect(
      result.output.contains("swift run \(project) --open \(scheme)://\(route)"),
      "\(result.output)")
    let composition = try sandbox.read("App/CompositionRoot.swift")
    #expect(
      line("    links.register(\"\(route)\") { _ in", isAbove: "// trellis:routes", in: composition)
    )
    #expect(
      composition.contains(
        "      [make\(name.upper)ViewController()]\n"))
    // Without --route nothing is added there; a route taken or malformed is refused.
    let other = try GeneratedName(Sandbox.unique("other"), kind: "screen")
    #expect(sandbox.run("screen", other.kebab).status == 0)
    #expect(
      try sandbox.read("App/CompositionRoot.swift").components(separatedBy: "links.register(\"")
        .count == composition.components(separatedBy: "links.register(\"").count)
    let before = try sandbox.snapshot()
    for (bad, reason) in [
      (route.uppercased(), "is taken"), ("a/b/c/d/e", "is not a route"), ("x y", "is not a route"),
      ("../etc", "is not a route"), ("tasks/:id", "is not a route"),
    ] {
      let refused = sandbox.run("screen", Sandbox.unique("late"), "--route", bad)
      #expect(refused.status == 1)
      #expect(refused.errors.contains(reason), "\(bad): \(refused.errors)")
    }
    #expect(sandbox.run("service", Sandbox.unique("x"), "--route", "x").status == 2)
    #expect(try sandbox.snapshot() == before)
  }

  @Test func runningTheSameCommandTwiceChangesNothingTheSecondTime() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let raw = Sandbox.unique("notes")
    #expect(sandbox.run("screen", raw).status == 0)
    let after = try sandbox.snapshot()
    let again = sandbox.run("screen", raw.uppercased().replacingOccurrences(of: "-", with: "_"))
    #expect(again.status == 1)
    #expect(
      again.errors.contains("differs only in case") || again.errors.contains("already exists"))
    let same = sandbox.run("screen", raw + "-view-controller")
    #expect(same.errors.contains("already exists"), "\(same.errors)")
    #expect(try sandbox.snapshot() == after)
  }

  /// A name equal to an existing screen's but for case is refused: on macOS's default file
  /// system `LOGINView` and `LoginView` are one folder.
  @Test func aNameDifferingOnlyInCaseIsRefused() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let name = try GeneratedName(Sandbox.unique("login"), kind: "screen")
    #expect(sandbox.run("screen", name.upper).status == 0)
    let before = try sandbox.snapshot()
    let result = sandbox.run("screen", name.upper.uppercased())
    #expect(result.status == 1)
    #expect(result.errors.contains("differs only in case"), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  @Test func aTitleAlreadyInTheMainMenuIsRefused() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let name = try GeneratedName(Sandbox.unique("board"), kind: "screen")
    // A hand-written entry with that title (as the demo's "Tasks" is).
    let path = "App/CompositionRoot.swift"
    try sandbox.write(
      try sandbox.read(path).replacingOccurrences(
        of: "      // trellis:menu-entries",
        with: "      MainMenuEntry(title: \"\(name.title.lowercased())\") { fatalError() },\n"
          + "      // trellis:menu-entries"), to: path)
    let before = try sandbox.snapshot()
    let result = sandbox.run("screen", name.kebab)
    #expect(result.status == 1)
    #expect(result.errors.contains("the main menu already has an entry"), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  /// Collisions are checked against the types the generated code and the app can see, not
  /// against modules neither imports.
  @Test func aTypeTheNewCodeCanSeeCollidesAndOneItCannotSeeDoesNot() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let seen = try GeneratedName(Sandbox.unique("seen"), kind: "screen")
    try sandbox.write(
      "/// A fixture.\n@MainActor\npublic final class \(seen.upper)ViewController {}\n",
      to: "Modules/Reactor/Shared/\(seen.upper)Fixture.swift")
    let before = try sandbox.snapshot()
    let refused = sandbox.run("screen", seen.kebab)
    #expect(refused.status == 1)
    #expect(
      refused.errors.contains(
        "would collide with the existing type \(seen.upper)ViewController in "
          + "Modules/Reactor/Shared/\(seen.upper)Fixture.swift"), "\(refused.errors)")
    #expect(try sandbox.snapshot() == before)
    // The layer checker is an executable nothing imports; a comment is not a declaration; a
    // type named like the screen itself (no suffix) collides with none of its types.
    let unseen = try GeneratedName(Sandbox.unique("unseen"), kind: "screen")
    try sandbox.write(
      "public struct \(unseen.upper) {}\n", to: "Modules/Reactor/Shared/\(unseen.upper).swift")
    try sandbox.write(
      "struct \(unseen.upper)ViewReactor {}\n", to: "Modules/Tools/LayerCheck/\(unseen.upper).swift"
    )
    try sandbox.write(
      "// class \(unseen.upper)ViewController is mentioned here\n",
      to: "Modules/Front/\(unseen.upper)Notes.swift")
    let accepted = sandbox.run("screen", unseen.kebab)
    #expect(accepted.status == 0, "\(accepted.errors)")
  }

  @Test(arguments: [
    (["screen", "my-screen!"], "is not a Swift identifier"),
    (["screen", "reports", "--feature", "feature"], "only names the kind"),
    (["screen", "reports", "--feature", "9lives"], "it must start with a letter"),
    (["service", "service"], "only names the kind"),
    (["screen", String(repeating: "x", count: 36)], "the limit is 35"),
    (["screen", "reports", "--services", "weather-zzqx"], "there is no service \"WeatherZzqx\""),
    (["rename", "LayerCheck"], "is the name of a module of the project (LayerCheck)"),
    (["rename", "Dispatch"], "a module the Swift toolchain ships (Dispatch)"),
    (["rename", "os"], "a module the Swift toolchain ships (os)"),
    (["rename", "Observation"], "a module the Swift toolchain ships"),
    (["rename", "Synchronization"], "a module the Swift toolchain ships"),
    (["rename", "FoundationNetworking"], "a module the Swift toolchain ships"),
    (["rename", "glibc"], "a module the Swift toolchain ships (Glibc)"),
    (["rename", "XCTest"], "a module the Swift toolchain ships"),
    (["rename", "string"], "would shadow the standard type String"),
  ])
  func refusalsSayWhyAndTouchNothing(arguments: [String], reason: String) throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let before = try sandbox.snapshot()
    let result = sandbox.run(arguments)
    #expect(result.status == 1)
    #expect(result.errors.contains(reason), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  @Test func anUnknownServiceListsTheOnesThereAre() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    // A fixture service property, as `trellis-gen service` adds one.
    let name = try GeneratedName(Sandbox.unique("ledger"), kind: "service")
    let path = "App/AppServices.swift"
    try sandbox.write(
      try sandbox.read(path).replacingOccurrences(
        of: "  // trellis:app-services",
        with: "  let \(name.lower)Service: any \(name.upper)Service\n  // trellis:app-services"),
      to: path)
    let result = sandbox.run("screen", Sandbox.unique("reports"), "--services", "weather-zzqx")
    #expect(result.status == 1)
    #expect(result.errors.contains("\(name.lower)"), "\(result.errors)")
  }

  @Test func keywordsAreFineNamesForScreensAndServices() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    // Only if this project has no such screen or service yet.
    guard !sandbox.exists("Modules/Features/Class"),
      !sandbox.exists("Modules/Service/TypeService.swift")
    else { return }
    #expect(sandbox.run("screen", "class").status == 0)
    #expect(sandbox.exists("Modules/Features/Class/Reactor/ClassViewReactor.swift"))
    #expect(sandbox.run("service", "type").status == 0)
    #expect(
      try sandbox.read("App/AppServices.swift").contains("  let typeService: any TypeService\n"))
  }

  @Test func aMissingMarkerIsAClearErrorAndNothingIsWritten() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    for (path, marker) in [
      ("App/CompositionRoot.swift", "// trellis:menu-entries"),
      ("Package.swift", "// trellis:features"),
      ("App/AppServices.swift", "// trellis:screen-services"),
      ("Tests/TestSupport/TestServices.swift", "// trellis:test-screen-services"),
    ] {
      let original = try sandbox.read(path)
      try sandbox.write(original.replacingOccurrences(of: marker, with: "// gone"), to: path)
      let before = try sandbox.snapshot()
      let result = sandbox.run("screen", Sandbox.unique("notes"))
      #expect(result.status == 1)
      #expect(result.errors.contains("\(path) has no \"\(marker)\" marker"), "\(result.errors)")
      #expect(try sandbox.snapshot() == before)
      try sandbox.write(original, to: path)
    }
  }

  @Test func aBrokenTemplateMapIsAClearErrorAndNothingIsWritten() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    try sandbox.write(
      "file ViewReactor.swift.template ../outside/{{Name}}.swift\n",
      to: "Templates/Screen/templates.map")
    let before = try sandbox.snapshot()
    let result = sandbox.run("screen", Sandbox.unique("notes"))
    #expect(result.status == 1)
    #expect(
      result.errors.contains("Templates/Screen/templates.map:1: \"../outside/"), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  @Test func aDryRunPrintsEverythingAndWritesNothing() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let name = try GeneratedName(Sandbox.unique("notes"), kind: "screen")
    let before = try sandbox.snapshot()
    let result = sandbox.run("screen", name.kebab, "--dry-run")
    #expect(result.status == 0)
    #expect(
      result.output.contains(
        "=== new file: Modules/Features/\(name.upper)/Reactor/\(name.upper)ViewReactor.swift"))
    #expect(
      result.output.contains(
        "=== new file: Tests/Features/\(name.upper)/\(name.upper)ViewControllerTests.swift"))
    #expect(result.output.contains("+      MainMenuEntry(title: \"\(name.title)\") {"))
    #expect(result.output.contains("=== changed: Package.swift"))
    #expect(result.output.contains("+  \"\(name.upper)\""))
    #expect(result.output.contains("@@ -"))
    #expect(result.output.contains("(dry run: nothing was written)"))
    #expect(try sandbox.snapshot() == before)
  }

  @Test func theCommandLineExplainsItsUsage() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    #expect(sandbox.run("--help").output.contains("Usage: trellis-gen"))
    #expect(sandbox.run("screen").status == 2)
    #expect(sandbox.run("launch", "rockets").status == 2)
    #expect(sandbox.run("service", "x", "--services", "user").status == 2)
    #expect(sandbox.run("service", "x", "--feature", "orders").status == 2)
    #expect(sandbox.run("screen", "x", "--feature").status == 2)
    #expect(sandbox.run("screen", "x", "--frobnicate").status == 2)
  }
}
