import Foundation
import Testing

@testable import TrellisGenerator

@Suite("Writing all or nothing")
struct TransactionTests {
  /// A name for this run's screen, the same in each sandbox of a test.
  let screen = Sandbox.unique("notes")

  /// How many moves applying a new screen makes (the journal's and each file's).
  private func movesOfAScreen() throws -> Int {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let counting = FaultyFileSystem()
    let generator = Generator(root: sandbox.root, fileSystem: counting)
    try generator.apply(try generator.planScreen(screen, services: []))
    return counting.moves.value
  }

  @Test func aFailureAtAnyMoveLeavesTheTreeUntouched() throws {
    let total = try movesOfAScreen()
    // The journal, six new files (the screen's five and its test module's snapshots note), four
    // edits (manifest, root, app and test services).
    #expect(total == 11)
    let folder = try GeneratedName(screen, kind: "screen").upper
    for failingMove in 1...total {
      let sandbox = try Sandbox()
      defer { sandbox.cleanUp() }
      let before = try sandbox.snapshot()
      let generator = Generator(
        root: sandbox.root, fileSystem: FaultyFileSystem(failingMove: failingMove))
      let changes = try generator.planScreen(screen, services: [])
      #expect(throws: GeneratorError.self) { try generator.apply(changes) }
      #expect(try sandbox.snapshot() == before, "move \(failingMove)")
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.root)
      #expect(
        !leftovers.contains { $0.hasPrefix(".build-trellis-gen") || $0.hasPrefix(".trellis-gen") })
      #expect(!sandbox.exists("Modules/Features/\(folder)"))
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
        try dying.apply(try dying.planScreen(screen, services: []))
      }
      // A dry run changes nothing, the pending undo included: it says what it would do.
      let interrupted = try sandbox.snapshot()
      let dryRun = sandbox.run("screen", screen, "--dry-run")
      #expect(dryRun.status == 0, "\(dryRun.errors)")
      #expect(try sandbox.snapshot() == interrupted, "died after move \(diesAfter)")
      // Before the journal was written there is nothing to undo, only staging to remove.
      #expect(diesAfter == 0 || dryRun.output.contains("an earlier run was interrupted"))
      // The next run of the generator, whatever its command, first undoes the dead one.
      let result = sandbox.run("service", Sandbox.unique("ledger"))
      #expect(result.status == 0, "\(result.errors)")
      #expect(diesAfter == 0 || result.output.contains("undid an interrupted earlier run"))
      #expect(!sandbox.exists(Transaction.journalName))
      let folder = try GeneratedName(screen, kind: "screen").upper
      #expect(!sandbox.exists("Modules/Features/\(folder)"), "died after move \(diesAfter)")
      // Nothing of the dead run is left: each file is as before or the new service's work.
      let after = try sandbox.snapshot()
      for (path, text) in before where after[path] != text {
        #expect(result.output.contains("updated \(path)"), "\(path) differs")
      }
    }
  }

  /// A change set that deletes files (a whole folder, and a file beside others) and writes
  /// others: applied, the folder is gone; a failure or a death at any move leaves, after the
  /// next run, the tree exactly as it was; a deleted file made again meanwhile is left alone.
  @Test func deletionsAreAllOrNothingToo() throws {
    func plan(_ sandbox: Sandbox) throws -> ChangeSet {
      var changes = ChangeSet()
      for path in ["Doomed/One.swift", "Doomed/Inner/Two.swift", "Kept/Three.swift"] {
        changes.removals.append(.init(path: path, original: try sandbox.read(path)))
      }
      changes.newFiles.append(.init(path: "Fresh/New.swift", contents: "// new\n"))
      changes.edits.append(
        .init(path: "Kept/Four.swift", original: "// four\n", updated: "// four, edited\n"))
      return changes
    }
    func plant(_ sandbox: Sandbox) throws {
      try sandbox.write("// one\n", to: "Doomed/One.swift")
      try sandbox.write("// two\n", to: "Doomed/Inner/Two.swift")
      try sandbox.write("// three\n", to: "Kept/Three.swift")
      try sandbox.write("// four\n", to: "Kept/Four.swift")
    }
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    try plant(sandbox)
    let counting = FaultyFileSystem()
    try Generator(root: sandbox.root, fileSystem: counting).apply(try plan(sandbox))
    #expect(!sandbox.exists("Doomed") && !sandbox.exists("Kept/Three.swift"))
    #expect(try sandbox.read("Kept/Four.swift") == "// four, edited\n")
    #expect(try sandbox.read("Fresh/New.swift") == "// new\n")
    let total = counting.moves.value
    #expect(total == 6)  // the journal, three deletions, a new file, an edit

    for point in 1...total {
      for dies in [false, true] {
        let sandbox = try Sandbox()
        defer { sandbox.cleanUp() }
        try plant(sandbox)
        // The files of this test (the next run's own service changes others).
        func ours() throws -> [String: String] {
          try sandbox.snapshot().filter {
            ["Doomed/", "Kept/", "Fresh/"].contains(where: $0.key.hasPrefix)
          }
        }
        let before = try ours()
        let generator = Generator(
          root: sandbox.root,
          fileSystem: dies
            ? FaultyFileSystem(diesAfterMoves: point - 1) : FaultyFileSystem(failingMove: point))
        #expect(throws: GeneratorError.self) { try generator.apply(try plan(sandbox)) }
        if dies { #expect(sandbox.run("service", Sandbox.unique("ledger")).status == 0) }
        #expect(try ours() == before, "\(dies ? "died after" : "failed at") move \(point)")
        #expect(!sandbox.exists("Fresh"))
      }
    }

    // Deleted, then made again before the next run: the new one stays, the old one is kept.
    let again = try Sandbox()
    defer { again.cleanUp() }
    try plant(again)
    let dying = Generator(root: again.root, fileSystem: FaultyFileSystem(diesAfterMoves: 3))
    #expect(throws: GeneratorError.self) { try dying.apply(try plan(again)) }
    try again.write("// mine\n", to: "Doomed/One.swift")
    let result = again.run("service", Sandbox.unique("ledger"))
    #expect(result.status == 1)
    #expect(result.errors.contains("Doomed/One.swift, which the interrupted run deleted"))
    #expect(try again.read("Doomed/One.swift") == "// mine\n")
    #expect(try again.read("Doomed/One.swift.before-trellis-gen") == "// one\n")
    #expect(try again.read("Doomed/Inner/Two.swift") == "// two\n")
  }

  /// Work done after a run died is never undone with it: for each point the run can die at,
  /// the user then edits a file the run edits and adds a file in the folder the run creates;
  /// the next run undoes only what still holds what the run wrote, keeps the rest, and says
  /// what to check.
  @Test func aRunThatDiesAtAnyMoveNeverCostsWorkDoneSince() throws {
    let total = try movesOfAScreen()
    let folder = "Modules/Features/" + (try GeneratedName(screen, kind: "screen").upper)
    let edited = "App/AppServices.swift"
    let mine = folder + "/Mine.swift"
    for diesAfter in 1..<total {
      let sandbox = try Sandbox()
      defer { sandbox.cleanUp() }
      let before = try sandbox.snapshot()
      let dying = Generator(
        root: sandbox.root, fileSystem: FaultyFileSystem(diesAfterMoves: diesAfter))
      #expect(throws: GeneratorError.self) {
        try dying.apply(try dying.planScreen(screen, services: []))
      }
      try sandbox.write(try sandbox.read(edited) + "// my edit\n", to: edited)
      try sandbox.write("let mine = 1\n", to: mine)
      let withWork = try sandbox.snapshot()
      #expect(sandbox.run("screen", screen, "--dry-run").status == 0)
      #expect(try sandbox.snapshot() == withWork, "a dry run changed the tree (\(diesAfter))")

      let result = sandbox.run("screen", screen)
      // Refused until the user has checked what was left: it names each.
      #expect(result.status == 1, "died after move \(diesAfter)")
      #expect(result.errors.contains("which the interrupted run created, holds files it did not"))
      #expect(result.errors.contains(mine), "\(result.errors)")
      let after = try sandbox.snapshot()
      #expect(after[mine] == "let mine = 1\n", "died after move \(diesAfter)")
      #expect(after[edited]?.hasSuffix("// my edit\n") == true, "died after move \(diesAfter)")
      #expect(!sandbox.exists(Transaction.journalName))
      // Everything else is as before the run, except where the run's edit and the user's
      // now share a file: that is left and named, with the version from before kept beside.
      let kept = edited + ".before-trellis-gen"
      if let original = after[kept] {
        #expect(original == before[edited])
        #expect(result.errors.contains("\(edited), which the interrupted run edited: it changed"))
      }
      for (path, text) in after where path != mine && path != edited && path != kept {
        #expect(before[path] == text, "\(path) after dying at \(diesAfter)")
      }
      for path in before.keys where path != edited {
        #expect(after[path] != nil, "\(path) was lost (died after move \(diesAfter))")
      }
      // Once checked, the same command goes through.
      try FileManager.default.removeItem(atPath: sandbox.root + "/" + folder)
      if after[kept] != nil {
        try sandbox.write(try #require(before[edited]), to: edited)
        try FileManager.default.removeItem(atPath: sandbox.root + "/" + kept)
      }
      let again = sandbox.run("screen", screen)
      #expect(again.status == 0, "\(again.errors)")
    }
  }

  /// A file that still holds the dead run's edit while its backup was deleted (the staging
  /// folder removed by hand) is named, not passed over as already restored.
  @Test func anEditWhoseBackupIsGoneIsNamed() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let dying = Generator(root: sandbox.root, fileSystem: FaultyFileSystem(diesAfterMoves: 9))
    #expect(throws: GeneratorError.self) {
      try dying.apply(try dying.planScreen(screen, services: []))
    }
    for entry in try FileManager.default.contentsOfDirectory(atPath: sandbox.root)
    where entry.hasPrefix(Transaction.stagingPrefix) {
      try FileManager.default.removeItem(atPath: sandbox.root + "/" + entry)
    }
    let result = sandbox.run("service", Sandbox.unique("ledger"))
    #expect(result.status == 1)
    #expect(
      result.errors.contains("still holds the interrupted run's edit and its backup is gone"),
      "\(result.errors)")
  }

  @Test func aFileChangedSincePlanningIsNotOverwritten() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let generator = Generator(root: sandbox.root)
    let changes = try generator.planScreen(screen, services: [])
    try sandbox.write(
      try sandbox.read(Generator.compositionRootPath) + "// an edit made meanwhile\n",
      to: Generator.compositionRootPath)
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
    let result = sandbox.run("screen", screen)
    #expect(result.status == 1)
    #expect(result.errors.contains("is a symbolic link"), "\(result.errors)")
    let folder = try GeneratedName(screen, kind: "screen").upper
    #expect(!sandbox.exists("Modules/Features/\(folder)"))
  }
}

@Suite("Renaming the project")
struct RenameTests {
  @Test func renamingChangesThePackageTheAppAndItsIdentityButNotTheMarkers() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let oldName = try sandbox.projectName()
    let oldWord = try sandbox.projectSpellings().kebab
    // Any name but the project's own.
    let (upper, lower) = oldName == "Zephyr" ? ("Quasar", "quasar") : ("Zephyr", "zephyr")
    let result = sandbox.run("rename", lower)
    #expect(result.status == 0, "\(result.errors)")
    let manifest = try sandbox.read("Package.swift")
    #expect(manifest.contains("name: \"\(upper)\""))
    #expect(manifest.contains(".executable(name: \"\(upper)\", targets: [\"\(upper)\"])"))
    #expect(!manifest.contains("name: \"\(oldName)\""))
    let composition = try sandbox.read("App/CompositionRoot.swift")
    #expect(composition.contains("Window(appName: \"\(upper)\")"))
    #expect(composition.contains("appendingPathComponent(\"\(lower)\", isDirectory: true)"))
    #expect(composition.contains("// trellis:menu-entries"))
    #expect(try sandbox.read("App/Application.swift").contains("\"\(upper): \\(message)"))
    // The help text follows the identity.
    let configuration = try sandbox.read("App/AppConfiguration+Usage.swift")
    #expect(configuration.contains("$XDG_DATA_HOME/\(lower)"))
    #expect(!configuration.contains("$XDG_DATA_HOME/\(oldWord)"))
    let appTests = try FileManager.default.contentsOfDirectory(
      atPath: sandbox.root + "/Tests/AppTests")
    #expect(
      try appTests.contains {
        try sandbox.read("Tests/AppTests/" + $0).contains("@testable import \(upper)\n")
      })
    #expect(try sandbox.read("README.md").contains("swift run \(upper)"))
    // So do the guides in docs/.
    let guide = try sandbox.read("docs/network.md")
    #expect(guide.contains("swift run \(upper)") && !guide.contains("swift run \(oldName)"))
    let generatorGuide = try sandbox.read("docs/generator.md")
    #expect(generatorGuide.contains("\(lower)://reports/weekly"))
    #expect(generatorGuide.contains("`// trellis:` markers"))  // markers keep their word
    // The modules carry the new name, wherever they are named; the templates name them
    // through {{Project}}, so they do not change.
    #expect(manifest.contains("\"\(upper)Core\", \"\(upper)Network\""))
    #expect(!manifest.contains("\"\(oldName)Core\""))
    let network = try sandbox.read("Modules/Network/Http/HTTPError.swift")
    #expect(network.contains("import \(upper)Core\n") && !network.contains("\(oldName)Core"))
    #expect(
      try sandbox.read("Tests/TestSupport/TestServices.swift").contains(
        "import \(upper)Reactor\n"))
    if sandbox.exists("Tests/Benchmarks/GeneratorBenchmark/scale-benchmark.sh") {  // the demo's
      #expect(
        try sandbox.read("Tests/Benchmarks/GeneratorBenchmark/scale-benchmark.sh").contains(
          "--product \(upper)"))
    }
    // The generator still works.
    #expect(sandbox.run("screen", Sandbox.unique("notes")).status == 0)
  }

  /// Screens named after the project keep their names: only the identity is renamed.
  @Test func screensNamedLikeTheProjectKeepTheirNames() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let old = try sandbox.projectName()
    let new = try GeneratedName(Sandbox.unique("renamed"), kind: "project").upper
    let suffix = try GeneratedName(Sandbox.unique("settings"), kind: "screen").upper
    #expect(sandbox.run("screen", old + suffix).status == 0)
    let bare = sandbox.exists("Modules/Features/\(old)") ? nil : old
    if let bare { #expect(sandbox.run("screen", bare).status == 0) }
    let result = sandbox.run("rename", new)
    #expect(result.status == 0, "\(result.errors)")
    let manifest = try sandbox.read("Package.swift")
    // In both lists: its modules' and its test module's (which a rename that took it for the
    // project's name would point at folders and modules that do not exist).
    let parsed = PackageManifest(source: manifest)
    for list in [parsed.features, parsed.featuresWithTests] {
      #expect(list.contains(old + suffix) && !list.contains(new + suffix))
      if bare != nil { #expect(list.contains(old) && !list.contains(new)) }
    }
    #expect(manifest.contains(".executable(name: \"\(new)\", targets: [\"\(new)\"])"))
    let composition = try sandbox.read("App/CompositionRoot.swift")
    #expect(composition.contains("import \(old)\(suffix)FeatureFront\n"))
    #expect(manifest.contains("name: \"\(new)Core\""))
    #expect(composition.contains("\(old)\(suffix)ViewController("))
    #expect(!composition.contains("\(new)\(suffix)"))
    #expect(
      try sandbox.read("App/AppServices.swift").contains("\(old)\(suffix)ViewServiceProvider"))
  }

  /// A new feature may not be named like a module (`trellis-core` would list `TrellisCore`,
  /// which a rename takes for the project's module); one already listed so, by hand or by an
  /// older generator, keeps its name in both lists through a rename, as its folders do.
  @Test func aFeatureNamedLikeAModuleIsRefusedOrKeptByARename() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let project = try sandbox.projectSpellings()
    let before = try sandbox.snapshot()
    let refused = sandbox.run("screen", project.kebab + "-core")
    #expect(refused.status != 0)
    #expect(refused.errors.contains("named like the module \(project.upper)Core"))
    #expect(try sandbox.snapshot() == before)
    let module = project.upper + "Core"
    var manifest = try sandbox.read("Package.swift")
    for marker in ["  // trellis:features\n", "  // trellis:feature-tests\n"] {
      manifest = manifest.replacingOccurrences(of: marker, with: "  \"\(module)\",\n" + marker)
    }
    try sandbox.write(manifest, to: "Package.swift")
    let new = try GeneratedName(project.upper == "Acme" ? "Abacus" : "Acme", kind: "project")
    let result = sandbox.run("rename", new.upper)
    #expect(result.status == 0, "\(result.errors)")
    let renamed = try sandbox.read("Package.swift")
    let parsed = PackageManifest(source: renamed)
    for list in [parsed.features, parsed.featuresWithTests] {
      #expect(list.contains(module) && !list.contains(new.upper + "Core"))
    }
    // The module itself is renamed.
    #expect(renamed.contains("name: \"\(new.upper)Core\""))
  }

  /// A lowercase identifier spelled like the project is renamed at its declaration
  /// (`trellis: URL`, followed by a colon) as at its uses, or the renamed app would not build;
  /// the `trellis:name` markers and `trellis://` links are not identifiers and stay.
  @Test func aLowercaseIdentifierIsRenamedAtItsDeclarationToo() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    // The project's identifier in code (`trellis`, `acmeNotes`) and its word in text
    // (`trellis`, `acme-notes`).
    let current = try sandbox.projectSpellings()
    let (old, word) = (current.lower, current.kebab)
    let new = try GeneratedName(current.upper == "Acme" ? "Abacus" : "Acme", kind: "project")
    try sandbox.write(
      """
      let \(old): String = "x"  // \(word):marker \(word)://tasks
      func use() -> String { \(old) + "\(word)-gen" }

      """, to: "Tests/AppTests/Identity.swift")
    let project = try sandbox.projectName()
    try sandbox.write(
      "import Testing\nimport \(project)Core\n\nlet x = 1\n", to: "Tests/TestSupport/Sorted.swift")
    let result = sandbox.run("rename", new.upper)
    #expect(result.status == 0, "\(result.errors)")
    // Renamed imports are sorted again, as swift format wants them (`Acme` before `Testing`).
    #expect(
      try sandbox.read("Tests/TestSupport/Sorted.swift")
        == "import \(new.upper)Core\nimport Testing\n\nlet x = 1\n")
    // The identifier is renamed in code, the link in the comment; the `word:marker` comment
    // and the `word-gen` string are not the project's identity and stay.
    #expect(
      try sandbox.read("Tests/AppTests/Identity.swift") == """
        let \(new.lower): String = "x"  // \(word):marker \(new.kebab)://tasks
        func use() -> String { \(new.lower) + "\(word)-gen" }

        """)
  }

  /// Names a team picks: several words, digits, one word; in any order, and back again to
  /// the same tree. Files that are not text (an image in `docs/`, a binary beside the CI
  /// scripts, one in `Templates/`) pass through untouched.
  @Test func aNameOfSeveralWordsOrWithDigitsRoundTrips() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let original = try sandbox.projectName()
    // Bytes no UTF-8 decoder accepts, the project's name among them.
    let binary =
      Data([0x89, 0x50, 0x4E, 0x47, 0xFF, 0xFE, 0x00, 0xC3]) + Data(original.utf8)
      + Data([0xFF, 0x80])
    for path in ["docs/diagram.png", ".ci/fixture.bin", "Templates/logo.png"] {
      try binary.write(to: URL(fileURLWithPath: sandbox.root + "/" + path))
    }
    let before = try sandbox.snapshot()
    #expect(before["docs/diagram.png"]?.hasPrefix("(bytes) ") == true)
    // Four of these, never the project's own name (renaming to it is refused): a tree renamed
    // to "Acme Notes" runs this test too.
    let names = ["Acme Notes", "Notes2", "orbit", "Field Guide 3", "Harbor Log"].filter {
      (try? GeneratedName($0, kind: "project").upper) != original
    }.prefix(4)
    for name in names {
      let result = sandbox.run("rename", name)
      #expect(result.status == 0, "\(name): \(result.errors)")
      let spellings = try GeneratedName(
        try GeneratedName(name, kind: "project").upper, kind: "project")
      #expect(try sandbox.projectName() == spellings.upper)
      #expect(
        try sandbox.read("App/CompositionRoot.swift").contains(
          "linkScheme = \"\(spellings.kebab)\""))
    }
    #expect(sandbox.run("rename", original).status == 0)
    let after = try sandbox.snapshot()
    for (path, text) in before where after[path] != text {
      Issue.record("\(path) differs after the round trip")
    }
    #expect(Set(after.keys) == Set(before.keys))
  }

  /// After a rename the app's links use the new scheme everywhere a user meets them: its
  /// help, README, and the scheme the app accepts; DemoServer names the renamed product.
  @Test func theLinksAndCommandsFollowTheRename() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let old = try sandbox.projectName()
    let oldScheme = try sandbox.projectSpellings().kebab
    let (upper, lower) = old == "Acme" ? ("Abacus", "abacus") : ("Acme", "acme")
    #expect(sandbox.run("rename", old == "MyApp" ? "Your App" : "My App").status == 0)
    #expect(sandbox.run("rename", upper).status == 0)
    let help = try sandbox.read("App/AppConfiguration+Usage.swift")
    #expect(help.contains("\(lower)://home"))
    #expect(!help.contains("\(oldScheme)://"))
    #expect(try sandbox.read("App/CompositionRoot.swift").contains("linkScheme = \"\(lower)\""))
    let readme = try sandbox.read("README.md")
    #expect(readme.contains("\(lower)://"))
    #expect(!readme.contains("\(oldScheme)://"))
    #expect(!readme.contains("my-app"))
    if sandbox.exists("Modules/DemoServer/main.swift") {  // the demo's (gone once stripped)
      let server = try sandbox.read("Modules/DemoServer/main.swift")
      #expect(server.contains("swift run \(upper) --server"))
      #expect(!server.contains("swift run \(old) "))
    }
  }

  /// Names the next rename could not undo are refused, the tree untouched: a keyword (the
  /// app's code names the project in lowercase), the start of a module that is not the
  /// project's (`Demo` and `DemoServer`), a word the app's files already use.
  @Test(arguments: [
    ("guard", "is a Swift keyword"), ("default", "is a Swift keyword"),
    ("demo", "starts the name of DemoServer"), ("embedded", "already appears in"),
    ("cache", "already appears in README.md"),
  ])
  func aNameTheNextRenameCouldNotUndoIsRefused(name: String, reason: String) throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    // The fixtures each case needs, where the project has them not (the demo stripped).
    let manifest = try sandbox.read("Package.swift")
    if name == "demo", !manifest.contains("name: \"DemoServer\"") {
      try sandbox.write(
        manifest.replacingOccurrences(
          of: "  targets: [\n",
          with: "  targets: [\n    .executableTarget(name: \"DemoServer\", path: \"Demo\"),\n"),
        to: "Package.swift")
    }
    let readme = try sandbox.read("README.md")
    if name == "cache", !readme.contains(" cache") {
      try sandbox.write(readme + "\nA cache.\n", to: "README.md")
    }
    let before = try sandbox.snapshot()
    let result = sandbox.run("rename", name)
    #expect(result.status == 1)
    #expect(result.errors.contains(reason), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  /// A screen named like the project (`TrellisSettings`) keeps its name and does not stand in
  /// the way of renaming back.
  @Test func aScreenNamedLikeTheProjectDoesNotBlockRenamingBack() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let original = try sandbox.projectName()
    #expect(sandbox.run("screen", original + "-" + Sandbox.unique("settings")).status == 0)
    let before = try sandbox.snapshot()
    #expect(sandbox.run("rename", original == "Orbit" ? "Quasar" : "orbit").status == 0)
    let back = sandbox.run("rename", original)
    #expect(back.status == 0, "\(back.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  /// A name that spells a product of the package another way is refused (`trellis-gen` would
  /// make `TrellisGen` beside it).
  @Test(arguments: ["trellis-gen", "TrellisGen", "trellis_gen"])
  func aNameThatCollidesWithAProductIsRefused(name: String) throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let before = try sandbox.snapshot()
    let result = sandbox.run("rename", name)
    #expect(result.status == 1)
    #expect(result.errors.contains("is the name of a product of the package"), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  /// A file that already names a module the rename would make cannot be renamed back (the
  /// next rename would take it for the project's module): the rename is refused, nothing
  /// changed.
  @Test func aNameWhoseModulesAFileAlreadyNamesIsRefused() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let new = try sandbox.projectName() == "Zephyr" ? "Quasar" : "Zephyr"
    try sandbox.write(
      "// Compare with \(new)Core, the other project's.\nlet x = 1\n",
      to: "Tests/TestSupport/Mention.swift")
    let before = try sandbox.snapshot()
    let result = sandbox.run("rename", new)
    #expect(result.status == 1)
    #expect(
      result.errors.contains(
        "\"\(new)Core\" already appears in Tests/TestSupport/Mention.swift"), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  @Test func renamingToTheCurrentNameIsRefused() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let name = try sandbox.projectName()
    let before = try sandbox.snapshot()
    // Another spelling of the same name (`trellis`, `acme-notes`) is the same name.
    let result = sandbox.run("rename", try sandbox.projectSpellings().kebab)
    #expect(result.status == 1)
    #expect(result.errors.contains("the project is already named \(name)"), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  @Test func aRenameCannotTakeTheNameOfAGeneratedScreensModule() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let name = try GeneratedName(Sandbox.unique("notes"), kind: "screen")
    #expect(sandbox.run("screen", name.kebab).status == 0)
    let before = try sandbox.snapshot()
    let result = sandbox.run("rename", name.kebab + "-feature")
    #expect(result.status == 1)
    #expect(
      result.errors.contains("is the name of a module of the project (\(name.upper)Feature)"),
      "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  @Test func renamingKeepsEachFilesPermissions() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    let script = sandbox.root + "/.ci/run"
    #expect(try LocalFileSystem().permissions(of: script) == 0o755)
    let name = try sandbox.projectName() == "Zephyr" ? "Quasar" : "Zephyr"
    #expect(sandbox.run("rename", name).status == 0)
    #expect(try LocalFileSystem().permissions(of: script) == 0o755)
  }
}

@Suite("The journal's content digest")
struct ContentDigestTests {
  /// FIPS 180-4's examples, and a text across several blocks.
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      String(repeating: "a", count: 1_000_000),
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    ),
  ])
  func knownDigests(text: String, digest: String) {
    #expect(ContentDigest.of(text) == digest)
  }
}

@Suite("Swift source split into code and the rest")
struct SwiftSegmentsTests {
  /// Comments, strings (raw, multi-line, interpolated) are text; the rest, interpolations
  /// included, is code. A line comment ends at any line ending, `\r\n` too.
  @Test func codeAndTextAreToldApart() {
    let source =
      "let a = 1 // note\r\nlet b = \"x \\(c) y\" /* d */ let e = #\"f\"#\n\"\"\"\ng\n\"\"\"\nh"
    let code = SwiftSegments.split(source).filter(\.isCode).map(\.text).joined()
    let text = SwiftSegments.split(source).filter { !$0.isCode }.map(\.text).joined()
    #expect(SwiftSegments.split(source).map(\.text).joined() == source)
    for word in ["let a", "let b", "c", "let e", "h"] { #expect(code.contains(word), "\(word)") }
    for word in ["note", "x ", " y", "d", "f", "g"] { #expect(text.contains(word), "\(word)") }
    #expect(!code.contains("note") && !text.contains("let b"))
  }
}
