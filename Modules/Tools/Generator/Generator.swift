import Foundation

/// Adds screens, services and repositories to a Trellis project, already wired into the
/// composition root and with passing tests, from the files in `Templates/`; and renames the
/// project. Every operation is all or nothing.
public struct Generator: Sendable {
  /// The project's root directory.
  public let root: String
  let fileSystem: any GeneratorFileSystem

  /// Where the composition root is.
  public static let compositionRootPath = "App/CompositionRoot.swift"

  /// Where the package manifest, which lists the generated screens' modules, is.
  public static let manifestPath = "Package.swift"

  /// A generated screen's line in the manifest's `generatedScreens`.
  static func manifestLine(forScreen name: String) -> String { "  \"\(name)\"," }

  /// The services screens can name in `--services`, with the fakes their generated tests use.
  static let builtInServices: [String: String] = [
    "Auth": "FakeAuthService()", "User": "FakeUserService()", "Task": "FakeTaskService()",
    "File": "FakeFileService()", "Connection": "FakeConnectionService()",
  ]

  /// A generator for the project at `root`.
  public init(root: String, fileSystem: any GeneratorFileSystem = LocalFileSystem()) {
    self.root = root
    self.fileSystem = fileSystem
  }

  // MARK: Planning

  /// The files a new screen adds, its module in the manifest, and the composition-root edit
  /// that wires it into the main menu.
  ///
  /// The screen's reactor and service provider form a module of their own, `<Name>Reactor`
  /// (see `generatedScreens` in `Package.swift`), so editing one screen does not recompile the
  /// others.
  public func planScreen(_ rawName: String, services rawServices: [String]) throws(GeneratorError)
    -> ChangeSet
  {
    let name = try GeneratedName(rawName, kind: "screen")
    let folder = "\(name.upper)View"
    let files = [
      (
        "Screen/ViewReactor.swift.template",
        "Modules/Reactor/\(folder)/\(name.upper)ViewReactor.swift"
      ),
      (
        "Screen/ViewServiceProvider.swift.template",
        "Modules/Reactor/\(folder)/\(name.upper)ViewServiceProvider.swift"
      ),
      (
        "Screen/ViewController.swift.template",
        "Modules/Front/Views/\(folder)/\(name.upper)ViewController.swift"
      ),
      (
        "Screen/ViewControllerProvider.swift.template",
        "Modules/Front/Views/\(folder)/\(name.upper)ViewControllerProvider.swift"
      ),
      (
        "Screen/ViewReactorTests.swift.template",
        "Tests/ReactorTests/\(name.upper)ViewReactorTests.swift"
      ),
      (
        "Screen/ViewControllerTests.swift.template",
        "Tests/FrontTests/\(name.upper)ViewControllerTests.swift"
      ),
    ]
    try refuseExisting(
      kind: "screen", name: name, paths: files.map(\.1),
      types: [
        "ViewController", "ViewControllerProvider", "ViewReactor", "ViewServiceProvider", "Reactor",
      ])
    let manifest = try read(Self.manifestPath)
    let composition = try read(Self.compositionRootPath)
    let services = try resolveServices(rawServices, composition: composition)
    var values = Self.values(for: name)
    values["services"] = .list(services)
    var changes = ChangeSet()
    for (template, path) in files {
      changes.newFiles.append(.init(path: path, contents: try render(template, values)))
    }
    let listed = try insert(
      Self.manifestLine(forScreen: name.upper), above: "// trellis:screens", in: manifest,
      path: Self.manifestPath)
    changes.edits.append(.init(path: Self.manifestPath, original: manifest, updated: listed))
    var updated = try insert(
      try render("Screen/CompositionRoot.factory.template", values),
      above: "// trellis:screen-factories",
      in: composition)
    updated = try insert(
      try render("Screen/CompositionRoot.menu-entry.template", values),
      above: "// trellis:menu-entries",
      in: updated)
    updated = try addImport(of: "\(name.upper)Reactor", to: updated, path: Self.compositionRootPath)
    changes.edits.append(
      .init(path: Self.compositionRootPath, original: composition, updated: updated))
    return changes
  }

  /// The files a new service adds and its line in the composition root.
  public func planService(_ rawName: String) throws(GeneratorError) -> ChangeSet {
    let name = try GeneratedName(rawName, kind: "service")
    let files = [
      ("Service/Service.swift.template", "Modules/Service/\(name.upper)Service.swift"),
      ("Service/ServiceTests.swift.template", "Tests/ServiceTests/\(name.upper)ServiceTests.swift"),
    ]
    try refuseExisting(
      kind: "service", name: name, paths: files.map(\.1), types: ["Service", "ServiceImpl"])
    let values = Self.values(for: name)
    let composition = try read(Self.compositionRootPath)
    var changes = ChangeSet()
    for (template, path) in files {
      changes.newFiles.append(.init(path: path, contents: try render(template, values)))
    }
    let updated = try insert(
      try render("Service/CompositionRoot.service.template", values), above: "// trellis:services",
      in: composition)
    changes.edits.append(
      .init(path: Self.compositionRootPath, original: composition, updated: updated))
    return changes
  }

  /// The files a new repository adds and its lines in the composition root.
  public func planRepository(_ rawName: String) throws(GeneratorError) -> ChangeSet {
    let name = try GeneratedName(rawName, kind: "repository")
    let files = [
      ("Repository/DataAPI.swift.template", "Modules/Repository/\(name.upper)DataAPI.swift"),
      ("Repository/Model.swift.template", "Modules/Repository/DataModels/\(name.upper)Model.swift"),
      ("Repository/Repo.swift.template", "Modules/Repository/\(name.upper)Repo.swift"),
      ("Repository/RepoTests.swift.template", "Tests/RepositoryTests/\(name.upper)RepoTests.swift"),
    ]
    try refuseExisting(
      kind: "repository", name: name, paths: files.map(\.1),
      types: ["DataAPI", "Model", "Repo", "RepoImpl"])
    let values = Self.values(for: name)
    let composition = try read(Self.compositionRootPath)
    var changes = ChangeSet()
    for (template, path) in files {
      changes.newFiles.append(.init(path: path, contents: try render(template, values)))
    }
    let updated = try insert(
      try render("Repository/CompositionRoot.repository.template", values),
      above: "// trellis:repositories", in: composition)
    changes.edits.append(
      .init(path: Self.compositionRootPath, original: composition, updated: updated))
    return changes
  }

  // MARK: Applying

  /// Undoes an earlier run that was interrupted part-way (its journal is still there);
  /// returns whether there was one. Every command runs it first.
  public func recoverInterruptedRun() throws(GeneratorError) -> Bool {
    try Transaction(root: root, fileSystem: fileSystem).recoverInterruptedRun()
  }

  /// Writes `changes`: all of them, or none.
  public func apply(_ changes: ChangeSet) throws(GeneratorError) {
    try Transaction(root: root, fileSystem: fileSystem).apply(changes)
  }

  /// What `changes` would do: each new file in full, and a diff of each edited file.
  public func describe(_ changes: ChangeSet) -> String {
    var lines: [String] = []
    for file in changes.newFiles {
      lines.append("=== new file: \(file.path)")
      lines.append(file.contents)
    }
    for edit in changes.edits {
      lines.append("=== changed: \(edit.path)")
      lines.append(UnifiedDiff.render(old: edit.original, new: edit.updated, path: edit.path))
    }
    return lines.joined(separator: "\n")
  }

  // MARK: Helpers

  static func values(for name: GeneratedName) -> [String: Template.Value] {
    [
      "Name": .text(name.upper), "name": .text(name.lower), "title": .text(name.title),
      "path": .text(name.kebab),
    ]
  }

  func read(_ path: String) throws(GeneratorError) -> String {
    do {
      return try fileSystem.read(root + "/" + path)
    } catch {
      throw GeneratorError("cannot read \(path) (is \(root) a Trellis project?)")
    }
  }

  private func render(_ template: String, _ values: [String: Template.Value]) throws(GeneratorError)
    -> String
  {
    let source = try read("Templates/" + template)
    let rendered = Self.closingEmptyLists(
      try Template(source: source, name: "Templates/" + template).render(values))
    return template.hasSuffix(".swift.template") ? Self.sortingImports(rendered) : rendered
  }

  /// `source` with the argument lists and bodies that a section left empty written as `()`
  /// and `{}`: a screen without services gets `init() {}`, as `swift format` writes it.
  static func closingEmptyLists(_ source: String) -> String {
    source.replacing(#/\(\n *\)/#, with: "()").replacing(#/\{\n *\}/#, with: "{}")
  }

  /// `source` with each run of consecutive `import` lines sorted, as `swift format` orders
  /// them: a template's imports include the screen's module, whose place depends on its name.
  static func sortingImports(_ source: String) -> String {
    var lines = source.components(separatedBy: "\n")
    var start = 0
    while start < lines.count {
      guard lines[start].hasPrefix("import ") else {
        start += 1
        continue
      }
      var end = start
      while end < lines.count, lines[end].hasPrefix("import ") { end += 1 }
      lines.replaceSubrange(start..<end, with: lines[start..<end].sorted())
      start = end
    }
    return lines.joined(separator: "\n")
  }

  /// Adds `import <module>` to the first run of imports in `source`, in its sorted place.
  func addImport(of module: String, to source: String, path: String) throws(GeneratorError)
    -> String
  {
    var lines = source.components(separatedBy: "\n")
    let line = "import \(module)"
    guard !lines.contains(line) else { return source }
    guard let first = lines.firstIndex(where: { $0.hasPrefix("import ") }) else {
      throw GeneratorError("\(path) has no import lines to add `import \(module)` to")
    }
    lines.insert(line, at: first)
    return Self.sortingImports(lines.joined(separator: "\n"))
  }

  /// Inserts `text` on the lines above the line holding `marker` in `source`, the contents of
  /// the file at `path` (the composition root unless said otherwise).
  func insert(
    _ text: String, above marker: String, in source: String,
    path: String = Generator.compositionRootPath
  ) throws(GeneratorError) -> String {
    var lines = source.components(separatedBy: "\n")
    let markerLines = lines.enumerated().filter { $0.element.contains(marker) }
    guard let line = markerLines.first, markerLines.count == 1 else {
      throw GeneratorError(
        markerLines.isEmpty
          ? "\(path) has no \"\(marker)\" marker: put it back where generated "
            + "code goes (see Templates/README.md); nothing was changed"
          : "\(path) has the \"\(marker)\" marker \(markerLines.count) times; "
            + "keep one; nothing was changed")
    }
    let insertion = text.hasSuffix("\n") ? String(text.dropLast()) : text
    lines.insert(contentsOf: insertion.components(separatedBy: "\n"), at: line.offset)
    return lines.joined(separator: "\n")
  }

  /// Modules no generated code imports (demo and tooling): their types cannot collide.
  static let invisibleToGeneratedCode = [
    "DemoBackend", "DemoServer", "LoopbackServer", "Tools", "CoreTesting",
  ]

  /// Refuses a name whose files or types already exist.
  private func refuseExisting(
    kind: String, name: GeneratedName, paths: [String], types suffixes: [String]
  )
    throws(GeneratorError)
  {
    if let existing = paths.first(where: { fileSystem.exists(root + "/" + $0) }) {
      throw GeneratorError(
        "the \(kind) \(name.upper) already exists (\(existing)); nothing was changed")
    }
    let types = Set([name.upper] + suffixes.map { name.upper + $0 })
    let declaration = try? Regex(
      "(class|struct|enum|protocol|actor|typealias)\\s+([A-Za-z_][A-Za-z0-9_]*)")
    for folder in ["Modules", "App"] {
      for file in fileSystem.swiftFiles(under: root + "/" + folder)
      where !Self.invisibleToGeneratedCode.contains(where: { file.contains("/Modules/\($0)/") }) {
        guard let text = try? fileSystem.read(file), let declaration else { continue }
        // Declarations only: a type named in a comment or a doc example is not a collision.
        let source = text.split(separator: "\n", omittingEmptySubsequences: false)
          .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
          .joined(separator: "\n")
        for match in source.matches(of: declaration) {
          guard let typeName = match.output[2].substring.map(String.init), types.contains(typeName)
          else {
            continue
          }
          let relative = file.hasPrefix(root + "/") ? String(file.dropFirst(root.count + 1)) : file
          throw GeneratorError(
            "\"\(name.upper)\" would collide with the existing type \(typeName) in \(relative); "
              + "choose another name")
        }
      }
    }
  }

  /// The services a screen's provider exposes: built-in ones (with their test fakes) and
  /// generated ones (tested with their real implementation).
  private func resolveServices(_ rawNames: [String], composition: String) throws(GeneratorError)
    -> [[String: String]]
  {
    var seen: Set<String> = []
    var services: [[String: String]] = []
    for raw in rawNames where !raw.trimmingCharacters(in: .whitespaces).isEmpty {
      // A reference to an existing service: "Task" is fine here (it names TaskService).
      var base = try GeneratedName(raw, kind: "service", checksReservedTypes: false).upper
      if base.hasSuffix("Service"), base != "Service" {
        base = String(base.dropLast("Service".count))
      }
      guard seen.insert(base).inserted else { continue }
      let property = base.prefix(1).lowercased() + base.dropFirst() + "Service"
      let fake: String
      if let builtIn = Self.builtInServices[base] {
        fake = builtIn
      } else if fileSystem.exists(root + "/Modules/Service/\(base)Service.swift"),
        composition.contains("let \(property) = ")
      {
        fake = "\(base)ServiceImpl()"
      } else {
        let known = (Self.builtInServices.keys.sorted()).joined(separator: ", ")
        throw GeneratorError(
          "there is no service \"\(base)\": use one of \(known), or generate it first with "
            + "`trellis-gen service \(base)`")
      }
      services.append([
        "serviceType": "\(base)Service", "serviceProperty": property, "serviceFake": fake,
        "serviceValue": property, "serviceTitle": base,
      ])
    }
    return services
  }
}
