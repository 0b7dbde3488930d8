import Foundation

/// The `trellis-gen` command line: parses the arguments, runs, and says what happened.
public enum GeneratorCommand {
  /// The help text.
  public static let usage = """
    Usage: trellis-gen <command> NAME [options]

    Commands:
      screen NAME        Add a screen: its ViewReactor, ViewServiceProvider and ViewController
                         in the feature module NAMEFeature (Modules/Features/NAME, listed in
                         Package.swift), a reactor test and a view test in the feature's test
                         module NAMEFeatureTests (Tests/Features/NAME), its conformances on
                         AppServices and TestServices, and an entry in the main menu
                         (App/CompositionRoot.swift).
      service NAME       Add a service (protocol + implementation) with a test, created in the
                         composition root and kept in AppServices for screens to use.
      repository NAME    Add a repository (DataAPI, DataModels model, Repo) with a test, created
                         in the composition root.
      api PATH           Add the Repository layer an OpenAPI 3.0/3.1 document (YAML or JSON)
                         describes: per tag a DataAPI, a Repo and RepoImpl, a fake and tests,
                         the models of its schemas (Modules/Repository/API), each repository
                         created in the composition root. Run again after the document
                         changed: it updates what it generated and leaves the files edited
                         since, with the diff to apply by hand.
      rename NEWNAME     Rename the project: the package, the app's executable and product, and
                         its identity (window title, data folder, help text).
      strip-demo         Remove the demo (its screens, services, repositories, data APIs,
                         backend, server, tests and scripts) and start the app on a placeholder
                         home screen that talks to your server (--server, or
                         CompositionRoot.defaultServer). Keeps the auth service and plugin, the
                         session store, the layers, the generator and CI. Only on a clean git
                         tree (`git checkout . && git clean -fd` then brings the demo back),
                         before any screen, service or repository is generated (it rewrites
                         their wiring). Templates/StripDemo/strip.map lists what it does.

    Options:
      --services A,B     screen: the services its ServiceProvider exposes, among those in
                         App/AppServices.swift (user, task, or a generated one such as billing).
      --route PATH       screen: the link trellis://PATH opens it (such as reports/weekly).
      --feature NAME     screen: put it in the feature module NAMEFeature with the feature's
                         other screens (made if new), instead of a module of its own: fewer
                         modules build faster (docs/performance.md).
      --list             screen: a list searched as you type (debounced) and loaded a page at
                         a time, with sample items to replace, instead of the note example.
      --outbox           repository: it also creates, changes and deletes, each write kept in
                         an outbox on the device (the user's, across launches) and sent in
                         order with its idempotency key when the server can be reached.
      --tag NAME[,NAME]  api: only the operations of these tags (repeatable).
      --prefix NAME      api: begin every generated type with NAME (PetstoreUserModel,
                         PetstorePetsRepo), so the document's names never meet the project's.
      --strict           api: what the document holds that cannot be generated is an error
                         (by default it is left out, named with why, and the rest generated).
      --dry-run          Print every new file and the diff of every changed file; write nothing.
      --root PATH        The project (default: the current directory).
      -h, --help         Show this help.

    Names may be written profile, user-settings, user_settings or UserSettings: they become
    UpperCamelCase, at most 35 characters. A trailing kind word is dropped (billing-service is
    the service Billing, SettingsViewController the screen Settings). What each command writes
    is listed in Templates/<Kind>/templates.map. Nothing is written unless everything can be;
    running the same command twice fails the second time and changes nothing.
    """

  /// Runs `arguments` (without the program name); returns the exit status (0 done, 1 refused
  /// or failed, 2 bad usage) after writing to `output` and `errors`.
  ///
  /// - Parameter uncommittedChanges: what is not committed in the project at a path, `nil` for
  ///   nothing (`strip-demo` runs only then); by default `git status`.
  public static func run(
    _ arguments: [String], currentDirectory: String, output: (String) -> Void,
    errors: (String) -> Void, fileSystem: any GeneratorFileSystem = LocalFileSystem(),
    uncommittedChanges: (String) -> String? = gitStatus
  ) -> Int32 {
    var positional: [String] = []
    var services: [String] = []
    var route: String?
    var feature: String?
    var isList = false
    var hasOutbox = false
    var isDryRun = false
    var isStrict = false
    var prefix = ""
    var tags: [String] = []
    var root = currentDirectory
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "-h", "--help":
        output(usage)
        return 0
      case "--dry-run": isDryRun = true
      case "--strict": isStrict = true
      case "--list": isList = true
      case "--outbox": hasOutbox = true
      case "--services":
        guard let list = iterator.next() else {
          errors("trellis-gen: --services needs a list such as User,Task\n\n\(usage)")
          return 2
        }
        services = list.split(separator: ",").map(String.init)
      case "--route":
        guard let path = iterator.next() else {
          errors("trellis-gen: --route needs a path such as reports/weekly\n\n\(usage)")
          return 2
        }
        route = path
      case "--feature":
        guard let name = iterator.next() else {
          errors("trellis-gen: --feature needs a name such as orders\n\n\(usage)")
          return 2
        }
        feature = name
      case "--prefix":
        guard let value = iterator.next() else {
          errors("trellis-gen: --prefix needs a name such as Petstore\n\n\(usage)")
          return 2
        }
        prefix = value
      case "--tag":
        guard let list = iterator.next() else {
          errors("trellis-gen: --tag needs a tag of the document, such as pets\n\n\(usage)")
          return 2
        }
        tags += list.split(separator: ",").map(String.init)
      case "--root":
        guard let path = iterator.next() else {
          errors("trellis-gen: --root needs a path\n\n\(usage)")
          return 2
        }
        root = path
      default:
        if argument.hasPrefix("-") {
          errors("trellis-gen: unknown option \(argument)\n\n\(usage)")
          return 2
        }
        positional.append(argument)
      }
    }
    guard
      (positional.count == 2 && positional.first != "strip-demo") || positional == ["strip-demo"]
    else {
      if positional.first == "strip-demo" {
        errors("trellis-gen: strip-demo takes no name\n\n\(usage)")
      } else if positional.count > 2 {
        // `screen my screen`, `--route bad route`: a word the command has no place for.
        let extra = positional.dropFirst(2).map { "\"\($0)\"" }.joined(separator: ", ")
        errors(
          "trellis-gen: did not understand \(extra) after \(positional[0]) \"\(positional[1])\": "
            + "a command takes one name, and an option one value; quote a name or a value with "
            + "spaces (trellis-gen screen \"user settings\"), or join its words "
            + "(user-settings, --route reports/weekly)\n\n\(usage)")
      } else {
        errors("trellis-gen: expected a command and a name\n\n\(usage)")
      }
      return 2
    }
    let generator = Generator(root: root, fileSystem: fileSystem)
    let (command, name) = (positional[0], positional.count > 1 ? positional[1] : "")
    guard ["screen", "service", "repository", "rename", "strip-demo", "api"].contains(command)
    else {
      errors("trellis-gen: unknown command \(command)\n\n\(usage)")
      return 2
    }
    do {
      if let recovery = try generator.recoverInterruptedRun(performing: !isDryRun) {
        report(recovery, isDryRun: isDryRun, output: output)
        // The tree still holds part of the interrupted run: a plan made against it would show
        // nothing the real command does.
        if isDryRun { return 0 }
        if !recovery.leftAlone.isEmpty {
          errors(
            "trellis-gen: some of what the interrupted run wrote needs checking and was left "
              + "alone:\n" + recovery.leftAlone.map { "  - " + $0 }.joined(separator: "\n")
              + "\nCheck these (`git status`, `git diff`), then run the command again.")
          return 1
        }
      }
      if !tags.isEmpty || isStrict || !prefix.isEmpty, command != "api" {
        errors("trellis-gen: --tag, --prefix and --strict apply to api only")
        return 2
      }
      if hasOutbox, command != "repository" {
        errors("trellis-gen: --outbox applies to repositories only")
        return 2
      }
      if command == "api" {
        let path = name.hasPrefix("/") ? name : currentDirectory + "/" + name
        let plan = try generator.planAPI(path, tags: tags, prefix: prefix)
        if isStrict, !plan.skipped.isEmpty {
          throw GeneratorError(
            "--strict: \(plan.skipped.count) operation(s) cannot be generated; nothing was "
              + "written:\n" + plan.skipped.map { "  \($0)" }.joined(separator: "\n"))
        }
        return try runAPI(plan, generator: generator, isDryRun: isDryRun, output: output)
      }
      let changes: ChangeSet
      switch command {
      case "screen":
        changes = try generator.planScreen(
          name, services: services, route: route, feature: feature, isList: isList)
      case "service": changes = try generator.planService(name)
      case "repository": changes = try generator.planRepository(name, hasOutbox: hasOutbox)
      case "rename": changes = try generator.planRename(name)
      case "strip-demo":
        if !isDryRun, let uncommitted = uncommittedChanges(root) {
          errors(
            "trellis-gen: strip-demo runs only on a tree whose changes are all committed (so "
              + "`git checkout . && git clean -fd` brings the demo back); commit or stash first; "
              + "nothing was changed:\n" + uncommitted)
          return 1
        }
        changes = try generator.planStripDemo()
      default:
        errors("trellis-gen: unknown command \(command)\n\n\(usage)")
        return 2
      }
      if !services.isEmpty || route != nil || feature != nil || isList, command != "screen" {
        errors("trellis-gen: --services, --route, --feature and --list apply to screens only")
        return 2
      }
      if isDryRun {
        output(generator.describe(changes))
        output("(dry run: nothing was written)")
        return 0
      }
      try generator.apply(changes)
      for file in changes.newFiles { output("created \(file.path)") }
      for edit in changes.edits { output("updated \(edit.path)") }
      for removal in changes.removals { output("deleted \(removal.path)") }
      output("")
      if let note = kindNote(command: command, raw: name) { output(note) }
      // Written already: a hint that cannot be worked out is not a failure.
      output(
        (try? nextSteps(
          after: command, name: name, route: route, feature: feature, generator: generator,
          changes: changes))
          ?? "Next: swift build, then swift test.")
      return 0
    } catch {
      errors("trellis-gen: \(error)")
      return 1
    }
  }

  /// Writes (or, dry, shows) what `trellis-gen api` planned, and says what it left.
  static func runAPI(
    _ plan: APIPlan, generator: Generator, isDryRun: Bool, output: (String) -> Void
  ) throws(GeneratorError) -> Int32 {
    // An edit the new version changes differently, or one that cannot be merged: nothing is
    // written (the tests and the other files would no longer match the edited file).
    if !plan.conflicts.isEmpty || !plan.leftAlone.isEmpty {
      for (path, regions) in plan.conflicts {
        output(
          "conflict: \(path): your edit and the new generated version change the same lines:\n"
            + regions.map { "  " + $0 }.joined(separator: "\n"))
      }
      for file in plan.leftAlone {
        // No diff is shown: applied, a diff to the new version would undo the edit.
        output(
          "cannot merge: \(file.path) (\(file.reason)): keep your edit aside (an extension "
            + "in a file of your own, or a copy), restore the generated text (`git checkout`), "
            + "run again (its text is then kept), then put the edit back")
      }
      throw GeneratorError(
        "\(plan.conflicts.count + plan.leftAlone.count) edited generated file(s) cannot take "
          + "the new version (shown above); nothing was written. Make the edit agree with the "
          + "new version (or move it into a file of your own, such as an extension), or restore "
          + "the generated text with `git checkout`, then run again")
    }
    let changes = plan.changes
    let hasChanges =
      !changes.newFiles.isEmpty || !changes.edits.isEmpty || !changes.removals.isEmpty
    // The kept generated texts (`.trellis-gen/`) are counted, not listed: they repeat the files.
    let isKept = { (path: String) in path.hasPrefix(Generator.basePath(of: "")) }
    var shown = changes
    shown.newFiles.removeAll { isKept($0.path) }
    shown.edits.removeAll { isKept($0.path) }
    shown.removals.removeAll { isKept($0.path) }
    let keptCount =
      changes.newFiles.filter { isKept($0.path) }.count
      + changes.edits.filter { isKept($0.path) }.count
    if isDryRun {
      if !shown.newFiles.isEmpty || !shown.edits.isEmpty || !shown.removals.isEmpty {
        output(generator.describe(shown))
      }
    } else if hasChanges {
      try generator.apply(changes)
      for file in shown.newFiles { output("created \(file.path)") }
      for edit in shown.edits { output("updated \(edit.path)") }
      for removal in shown.removals { output("deleted \(removal.path)") }
    }
    if keptCount > 0 {
      output(
        "\(isDryRun ? "would keep" : "kept") the generated text of \(keptCount) file(s) in "
          + "\(Generator.basePath(of: "")) (commit it: the next run merges your edits from it)")
    }
    if !plan.upToDate.isEmpty {
      output("up to date: \(plan.upToDate.count) generated file(s)")
    }
    for path in plan.merged {
      output("merged: \(path) keeps your edit and takes the new generated version")
    }
    for path in plan.orphans {
      output(
        "no longer generated: \(path) (its tag is gone from the document); delete it once "
          + "nothing uses it")
    }
    for reason in plan.skipped { output("left out: \(reason)") }
    for note in plan.notes { output("note: \(note)") }
    output(
      "\(plan.operationCount) operation(s) generated, \(plan.skipped.count) left out"
        + (plan.skipped.isEmpty ? "" : " (each named above, with why)"))
    if !hasChanges { output("nothing to change") }
    if isDryRun {
      output("(dry run: nothing was written)")
    } else if hasChanges {
      output("")
      output(
        [
          "Next:",
          "  swift build && swift test",
          "  Each repository is made in App/CompositionRoot.swift (`_ = nameRepo` holds it): give",
          "  it to the service that needs it (`repo: any NameRepo`), then delete that line.",
          "  Edit a generated file freely: the next run merges your edit with the new version",
          "  (from the text kept in .trellis-gen/; commit it), or stops if both change a line.",
        ].joined(separator: "\n"))
    }
    return 0
  }

  /// What the generator made of a name that ended with its kind's word, if it did.
  static func kindNote(command: String, raw: String) -> String? {
    switch command {
    case "screen":
      guard let name = try? GeneratedName(raw, kind: "screen") else { return nil }
      return name.kindNote(
        raw: raw, kind: "screen",
        types: [
          "\(name.upper)ViewReactor", "\(name.upper)ViewController", "menu \"\(name.title)\"",
        ])
    case "service":
      guard let name = try? GeneratedName(raw, kind: "service") else { return nil }
      return name.kindNote(
        raw: raw, kind: "service", types: ["\(name.upper)Service", "\(name.upper)ServiceImpl"])
    case "repository":
      guard let name = try? GeneratedName(raw, kind: "repository") else { return nil }
      return name.kindNote(
        raw: raw, kind: "repository", types: ["\(name.upper)Repo", "\(name.upper)DataAPI"])
    default:
      return nil
    }
  }

  /// Prints what undoing an interrupted run did, or (dry run) would do.
  private static func report(_ recovery: Recovery, isDryRun: Bool, output: (String) -> Void) {
    let lines = (recovery.undone + recovery.leftAlone.map { "left alone: " + $0 })
      .map { "  " + $0 }
    if isDryRun {
      output(
        "trellis-gen: an earlier run was interrupted (its journal \(Transaction.journalName) is "
          + "still there); the next command without --dry-run first undoes it:")
    } else {
      output("trellis-gen: undid an interrupted earlier run (its journal was still there):")
    }
    output(
      lines.isEmpty ? "  nothing of it had reached the project" : lines.joined(separator: "\n"))
    if isDryRun {
      output(
        "(dry run: nothing was written, the undo included; run a command without --dry-run to "
          + "undo it, then --dry-run again to see its plan)")
    }
  }

  /// What to do after a command: the tests to run, how to open the new screen, where to write
  /// the code.
  ///
  /// After a screen that made a feature of its own, once ``groupingHintThreshold`` or more
  /// features are listed, it suggests `--feature`.
  static func nextSteps(
    after command: String, name raw: String, route: String?, feature: String?,
    generator: Generator, changes: ChangeSet
  ) throws(GeneratorError) -> String {
    let product = try generator.currentProjectName(
      in: try generator.read(Generator.manifestPath))
    switch command {
    case "screen":
      let name = try GeneratedName(raw, kind: "screen")
      let reactor = changes.newFiles.first { $0.path.hasSuffix("/\(name.upper)ViewReactor.swift") }
      var lines = [
        "Next:",
        "  swift test --filter '\(name.upper)ViewReactorTests|\(name.upper)ViewControllerTests'",
        "  swift run \(product), then \"\(name.title)\" in the menu (Ctrl-O)",
      ]
      if let route, let scheme = linkScheme(generator) {
        let path = route.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        lines.append("  swift run \(product) --open \(scheme)://\(path)")
      }
      if let reactor {
        lines.append("  Its state, actions and effects: \(reactor.path)")
      }
      let features = PackageManifest(source: try generator.read(Generator.manifestPath))
        .features
      if feature == nil, features.count >= groupingHintThreshold {
        lines += [
          "Tip: \(features.count) features, up to three targets each, are in "
            + "\(Generator.manifestPath). Put the next",
          "  screens of one feature together (--feature NAME): SwiftPM plans every target on every",
          "  build; at 200 screens, a feature per screen against ten screens per feature: a",
          "  reactor edit built in 2.7 s against 1.7 s, a clean build took 144 s against 59 s",
          "  (docs/performance.md).",
        ]
      }
      return lines.joined(separator: "\n")
    case "service":
      let name = try GeneratedName(raw, kind: "service")
      return [
        "Next:",
        "  swift test --filter \(name.upper)ServiceTests",
        "  Write its calls in Modules/Service/\(name.upper)Service.swift (it returns sample items",
        "  until then); a screen gets it with: trellis-gen screen NAME --services \(name.kebab)",
      ].joined(separator: "\n")
    case "repository":
      let name = try GeneratedName(raw, kind: "repository")
      return [
        "Next:",
        "  swift test --filter \(name.upper)RepoTests",
        "  Its endpoints: Modules/Repository/\(name.upper)DataAPI.swift.",
        "  The composition root makes \(name.lower)Repo and holds it (`_ = \(name.lower)Repo`)",
        "  until a service takes it: give the service's Impl an initializer parameter",
        "  (`repo: any \(name.upper)Repo`), pass \(name.lower)Repo to it in App/CompositionRoot.swift,",
        "  then delete that line.",
      ].joined(separator: "\n")
    case "strip-demo":
      return [
        "Next:",
        "  swift build && swift test",
        "  swift run \(product) --server https://your.api   (or set CompositionRoot.defaultServer)",
        "  swift run trellis-gen screen NAME   (a screen on the home screen and in the menu)",
        "  Then rewrite what still speaks of the demo: the layers' README files and docs/.",
      ].joined(separator: "\n")
    case "rename":
      return [
        "Next:",
        "  swift format format -i -r Package.swift Modules App Tests .ci/consumer",
        "    (a longer name can push lines past the width `swift format lint` allows)",
        "  swift build && swift test   (the modules are renamed: the first build is a full one)",
        "  swift run \(product)" + (linkScheme(generator).map { "   (links: \($0)://...)" } ?? ""),
      ].joined(separator: "\n")
    default:
      return "Next: swift build, then swift test."
    }
  }

  /// How many generated features make a screen's next steps suggest grouping screens with
  /// `--feature` (measured: see the scale benchmark in docs/performance.md).
  static let groupingHintThreshold = 30

  /// What `git status --porcelain` lists at `root`, or why it could not tell; `nil` when the
  /// tree is clean.
  public static func gitStatus(at root: String) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "-C", root, "status", "--porcelain"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do {
      try process.run()
    } catch {
      return "  git could not be run (\(error)): strip-demo needs a git repository"
    }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
      return "  \(root) is not a git repository (git: \(text.prefix(200)))"
    }
    let lines = text.split(separator: "\n")
    guard !lines.isEmpty else { return nil }
    return lines.prefix(20).map { "  " + $0 }.joined(separator: "\n")
      + (lines.count > 20 ? "\n  ..." : "")
  }

  /// The app's link scheme, as the composition root declares it (`linkScheme = "trellis"`).
  private static func linkScheme(_ generator: Generator) -> String? {
    guard let text = try? generator.read("App/CompositionRoot.swift"),
      let start = text.range(of: "static let linkScheme = \""),
      let end = text[start.upperBound...].firstIndex(of: "\"")
    else { return nil }
    return String(text[start.upperBound..<end])
  }
}
