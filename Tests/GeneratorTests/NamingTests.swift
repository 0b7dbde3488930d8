import Testing

@testable import TrellisGenerator

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
    ("billing-service", "service", "Billing"),
    ("BillingService", "service", "Billing"),
    ("billing_service_impl", "service", "Billing"),
    ("invoice-repo", "repository", "Invoice"),
    ("InvoiceRepository", "repository", "Invoice"),
    ("SettingsViewController", "screen", "Settings"),
    ("settings-view", "screen", "Settings"),
    ("settings screen", "screen", "Settings"),
    // Only a trailing kind word goes; one inside the name stays.
    ("service-desk", "service", "ServiceDesk"),
    ("view-history", "screen", "ViewHistory"),
  ])
  func aTrailingKindWordIsDropped(raw: String, kind: String, upper: String) throws {
    #expect(try GeneratedName(raw, kind: kind).upper == upper)
  }

  @Test(arguments: [
    ("", "screen", "the screen needs a name"),
    ("9lives", "screen", "it must start with a letter"),
    ("my screen!", "screen", "is not a Swift identifier"),
    ("café", "screen", "is not a Swift identifier"),
    ("service", "service", "only names the kind"),
    ("ViewController", "screen", "only names the kind"),
    (String(repeating: "a", count: 36), "screen", "the limit is 35"),
    ("String", "project", "would shadow the standard type String"),
    ("task", "project", "would shadow the standard type Task"),
    ("Type", "project", "would shadow the standard type Type"),
  ])
  func badNamesAreRefusedWithTheirRealReason(raw: String, kind: String, reason: String) {
    #expect {
      try GeneratedName(raw, kind: kind)
    } throws: { error in
      (error as? GeneratorError)?.message.contains(reason) == true
    }
  }

  /// Each kind's types carry a suffix (`ClassViewReactor`, `TypeService`), so a word that is
  /// a keyword or a standard type on its own is a fine name for them.
  @Test(arguments: ["class", "Type", "Actor", "task", "string", "self"])
  func keywordsAndStandardTypesAreFineWithASuffix(raw: String) throws {
    for kind in ["screen", "service", "repository"] {
      #expect(throws: Never.self) { try GeneratedName(raw, kind: kind) }
    }
  }

  @Test func theLongestNameIsAccepted() throws {
    let name = try GeneratedName(String(repeating: "a", count: 35), kind: "screen")
    #expect(name.upper.count == GeneratedName.maximumLength)
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

  @Test func aMapListsFilesEditsModulesAndTheServicesFile() throws {
    let map = try TemplateMap(
      source: """
        # a comment
        file A.swift.template Modules/X/{{Name}}A.swift

        insert B.template App/Root.swift trellis:things
        import {{Name}}Kit App/Root.swift
        module {{Name}}Kit
        services App/Services.swift
        """, name: "m", values: ["Name": .text("Foo")])
    #expect(map.files == [.init(template: "A.swift.template", destination: "Modules/X/FooA.swift")])
    #expect(
      map.edits == [
        .insert(template: "B.template", file: "App/Root.swift", marker: "trellis:things"),
        .addImport(module: "FooKit", file: "App/Root.swift"),
      ])
    #expect(map.modules == ["FooKit"])
    #expect(map.servicesFile == "App/Services.swift")
  }

  @Test(arguments: [
    ("copy A B", "m:1: unknown directive \"copy\""),
    ("file A", "m:1: expected `file TEMPLATE DESTINATION`"),
    ("file A ../../etc/passwd", "must be a path inside the project"),
    ("file A /etc/passwd", "must be a path inside the project"),
    ("insert ../T App/Root.swift trellis:x", "must be a path inside the project"),
    ("import Kit Modules/./Root.swift", "must be a path inside the project"),
  ])
  func aBadMapLineIsRefusedWithItsLine(line: String, reason: String) {
    #expect {
      try TemplateMap(source: line, name: "m", values: [:])
    } throws: { error in
      (error as? GeneratorError)?.message.contains(reason) == true
    }
  }
}

@Suite("The manifest reader")
struct ManifestTests {
  let manifest = PackageManifest(
    source: #"""
      let layerRule: [Target.PluginUsage] = [.plugin(name: "LayerRule")]

      let features: [String] = [
        "Notes",  // a comment
        // trellis:features
      ]

      let featureModules: [Target.Dependency] = features.map { .target(name: "\($0)Reactor") }

      let featureTargets: [Target] = features.map { screen in
        .target(
          name: "\(screen)Reactor", dependencies: ["Reactor"], path: "Modules/Reactor/\(screen)View")
      }

      let package = Package(
        name: "P",
        targets: [
          .target(name: "Core", path: "Modules/Core"),
          .target(name: "Reactor", dependencies: ["Core"], path: "Modules/Reactor"),
          .target(name: "Front", dependencies: ["Reactor", .target(name: "Core")] + featureModules),
          .executableTarget(name: "App", dependencies: ["Front"], path: "App"),
          .testTarget(name: "FrontTests", dependencies: ["Front"]),
          .plugin(name: "LayerRule", capability: .buildTool()),
        ] + featureTargets
      )
      """#)

  @Test func targetsTheirPathsAndDependencies() {
    let byName = Dictionary(uniqueKeysWithValues: manifest.targets.map { ($0.name, $0) })
    #expect(
      Set(byName.keys) == [
        "Core", "Reactor", "Front", "App", "FrontTests", "LayerRule", "NotesReactor",
      ])
    #expect(byName["Front"]?.path == "Sources/Front")
    #expect(byName["FrontTests"]?.path == "Tests/FrontTests")
    #expect(byName["Front"]?.dependencies == ["Reactor", "Core", "NotesReactor"])
    #expect(byName["NotesReactor"]?.path == "Modules/Reactor/NotesView")
    #expect(manifest.features == ["Notes"])
  }

  @Test func aFileBelongsToTheDeepestTargetAndSeesWhatItDependsOn() {
    #expect(manifest.owner(of: "Modules/Reactor/NotesView/A.swift")?.name == "NotesReactor")
    #expect(manifest.owner(of: "Modules/Reactor/Shared/B.swift")?.name == "Reactor")
    #expect(manifest.owner(of: "Elsewhere/C.swift") == nil)
    #expect(manifest.closure(of: ["App"]) == ["App", "Front", "Reactor", "Core", "NotesReactor"])
  }
}

/// What the generator says about names a user types loosely.
@Suite("The generator's input, as typed")
struct GeneratorInputTests {
  /// "my screen" makes the screen My (the trailing word is the kind): the output says so, and
  /// how to keep the word.
  @Test func aTrailingKindWordIsDroppedAndTheOutputSaysSo() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let base = Sandbox.unique("my")
    let result = sandbox.run("screen", "\(base) screen")
    #expect(result.status == 0, "\(result.errors)")
    let name = try GeneratedName(base, kind: "screen")
    #expect(
      result.output.contains(
        "Note: \"screen\" at the end of \"\(base) screen\" names the kind, which the generator "
          + "adds: the screen is \(name.upper) (\(name.upper)ViewReactor"), "\(result.output)")
    #expect(result.output.contains("repeat it: \"\(base) screen screen\""))
    // Repeated, the word stays.
    let kept = sandbox.run("screen", "\(base) screen screen")
    #expect(kept.status == 0, "\(kept.errors)")
    #expect(
      sandbox.exists(
        "Modules/Features/\(name.upper)Screen/Reactor/\(name.upper)ScreenViewReactor.swift"))
    #expect(kept.output.contains("the screen is \(name.upper)Screen ("))
  }

  /// An unquoted name or value with a space leaves a word the command has no place for: the
  /// error names it, and nothing is written.
  @Test func aWordTheCommandHasNoPlaceForIsNamed() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let before = try sandbox.snapshot()
    let route = sandbox.run("screen", "weekly", "--route", "bad", "route")
    #expect(route.status == 2)
    #expect(
      route.errors.contains("did not understand \"route\" after screen \"weekly\""),
      "\(route.errors)")
    let name = sandbox.run("screen", "my", "screen")
    #expect(name.errors.contains("did not understand \"screen\" after screen \"my\""))
    #expect(name.errors.contains("quote a name or a value with spaces"))
    #expect(try sandbox.snapshot() == before)
  }
}
