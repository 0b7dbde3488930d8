import Foundation

/// Adds screens, services and repositories to a Trellis project, already wired into the
/// composition root and with passing tests, from the files in `Templates/`; and renames the
/// project. Every operation is all or nothing.
public struct Generator: Sendable {
  /// The project's root directory.
  public let root: String
  let fileSystem: any GeneratorFileSystem
  /// Formats generated Swift files (path to text) for the project at a root; `nil` when it
  /// cannot (they are then written as generated).
  let formatter: @Sendable ([String: String], String) -> [String: String]?

  /// Where the composition root is.
  public static let compositionRootPath = "App/CompositionRoot.swift"

  /// Where the package manifest, which lists the generated feature modules, is.
  public static let manifestPath = "Package.swift"

  /// Where the feature modules' folders are (`Modules/Features/<Feature>/`).
  public static let featuresFolder = "Modules/Features"

  /// Where the features' test modules' folders are (`Tests/Features/<Feature>/`).
  public static let featureTestsFolder = "Tests/Features"

  /// A generator for the project at `root`; `formatter` formats the Swift files
  /// `trellis-gen api` writes (by default the toolchain's `swift format`).
  public init(
    root: String, fileSystem: any GeneratorFileSystem = LocalFileSystem(),
    formatter: @escaping @Sendable ([String: String], String) -> [String: String]? =
      SwiftFormatting.format
  ) {
    self.root = root
    self.fileSystem = fileSystem
    self.formatter = formatter
  }

  // MARK: Planning

  /// The files a new screen adds and the edits that wire it in, as
  /// `Templates/Screen/templates.map` lists them: by default its reactor, service provider,
  /// view controller and their tests, its feature's modules in `Package.swift`'s `features`
  /// (unless listed), its feature's test module in `featuresWithTests` (unless listed), its
  /// conformances on `AppServices` and `TestServices`, and its main-menu entry.
  ///
  /// - Parameter rawServices: the services its provider exposes, looked up in the map's
  ///   `services` file (`App/AppServices.swift`): `user`, `UserService` or `user-service`.
  /// - Parameter route: the path of a link that opens the screen (`reports/weekly` for
  ///   `trellis://reports/weekly`), if it should have one.
  /// - Parameter rawFeature: the feature module the screen belongs to (`orders` for
  ///   `OrdersFeature` in `Modules/Features/Orders/`), created if the manifest does not list it
  ///   yet; by default one named like the screen.
  /// - Parameter isList: whether the screen is a searchable, paged list (the map's flag
  ///   `isList`) rather than the note example.
  public func planScreen(
    _ rawName: String, services rawServices: [String], route: String? = nil,
    feature rawFeature: String? = nil, isList: Bool = false
  ) throws(GeneratorError) -> ChangeSet {
    let name = try GeneratedName(rawName, kind: "screen")
    var values = try values(for: name)
    values["isList"] = .flag(isList)
    let feature =
      try rawFeature.map { (raw) throws(GeneratorError) in
        try GeneratedName(raw, kind: "feature")
      } ?? name
    values["Feature"] = .text(feature.upper)
    let manifest = PackageManifest(source: try read(Self.manifestPath))
    let isNewFeature = try isMissing(
      feature, from: manifest.features, list: "features",
      folder: "\(Self.featuresFolder)/\(feature.upper)")
    // A new feature named like a module (`TrellisCore`) would read as that module in the lists,
    // and a rename, which renames the project's modules wherever they are named, could not tell
    // them apart. (One named like the project, the app's target, is a screen the rename knows.)
    if isNewFeature, case .text(let project) = values["Project"],
      let module = manifest.targets.first(where: {
        $0.name != project && $0.name.lowercased() == feature.upper.lowercased()
      })
    {
      throw GeneratorError(
        "the feature \(feature.upper) would be named like the module \(module.name) of "
          + "\(Self.manifestPath); choose another name (--feature); nothing was changed")
    }
    values["isNewFeature"] = .flag(isNewFeature)
    // (An empty folder, left when its tests were deleted, is taken as it is.)
    values["isNewTestModule"] = .flag(
      try isMissing(
        feature, from: manifest.featuresWithTests, list: "featuresWithTests",
        folder: "\(Self.featureTestsFolder)/\(feature.upper)", emptyFolderIsFree: true))
    let composition = try read(Self.compositionRootPath)
    let route = try route.map { (path) throws(GeneratorError) in
      try checkedRoute(path, in: composition)
    }
    values["route"] = .text(route ?? "")
    values["hasRoute"] = .flag(route != nil)
    let map = try templateMap("Screen", values: values)
    values["services"] = .list(try resolveServices(rawServices, declaredIn: map.servicesFile))
    let changes = try plan(map, folder: "Screen", kind: "screen", name: name, values: values)
    try refuseTakenMenuTitle(name, in: composition)
    return changes
  }

  /// Whether `feature` is missing from `list` (`features`, whose entries make its modules in
  /// `folder`; `featuresWithTests`, whose entries make its test module): what the list makes
  /// for it is still to be made. The demo's features are in `features` only, their tests in
  /// `ReactorTests` and `FrontTests`: a screen added to one of them makes its test module.
  ///
  /// - Throws: ``GeneratorError`` when `folder` exists (or, with `emptyFolderIsFree`, holds
  ///   anything) but the list does not name the feature (its files would join the new module
  ///   unseen), or when a listed feature's name differs only in case (one folder on
  ///   case-insensitive file systems).
  func isMissing(
    _ feature: GeneratedName, from listed: [String], list: String, folder: String,
    emptyFolderIsFree: Bool = false
  ) throws(GeneratorError) -> Bool {
    if listed.contains(feature.upper) { return false }
    if let other = listed.first(where: { $0.lowercased() == feature.upper.lowercased() }) {
      throw GeneratorError(
        "the feature \(feature.upper) differs only in case from the feature \(other) in "
          + "\(list) in \(Self.manifestPath); use \(other) or another name; nothing was changed")
    }
    let taken =
      emptyFolderIsFree
      ? !fileSystem.entries(in: root + "/" + folder).isEmpty
      : fileSystem.exists(root + "/" + folder)
    if taken {
      throw GeneratorError(
        "\(folder) exists, but \(list) in \(Self.manifestPath) does not list "
          + "\"\(feature.upper)\": add it there, or move the folder away; nothing was changed")
    }
    return true
  }

  /// The files a new service adds and the edits that create it in the composition root and
  /// make it available to screens (`Templates/Service/templates.map`).
  public func planService(_ rawName: String) throws(GeneratorError) -> ChangeSet {
    let name = try GeneratedName(rawName, kind: "service")
    let values = try values(for: name)
    let map = try templateMap("Service", values: values)
    return try plan(map, folder: "Service", kind: "service", name: name, values: values)
  }

  /// The files a new repository adds and its lines in the composition root
  /// (`Templates/Repository/templates.map`).
  ///
  /// - Parameter hasOutbox: whether it also writes (create, change, delete), each write kept
  ///   in an ``Outbox`` on the device until the server answers it, sent with its idempotency
  ///   key (the map's flag `hasOutbox`).
  public func planRepository(_ rawName: String, hasOutbox: Bool = false) throws(GeneratorError)
    -> ChangeSet
  {
    let name = try GeneratedName(rawName, kind: "repository")
    var values = try values(for: name)
    values["hasOutbox"] = .flag(hasOutbox)
    let map = try templateMap("Repository", values: values)
    return try plan(map, folder: "Repository", kind: "repository", name: name, values: values)
  }

  /// The map of the templates in `Templates/<folder>`.
  func templateMap(_ folder: String, values: [String: Template.Value]) throws(GeneratorError)
    -> TemplateMap
  {
    let path = "Templates/\(folder)/templates.map"
    return try TemplateMap(source: try read(path), name: path, values: values)
  }

  /// The change set `map` describes, after checking that nothing it adds exists already.
  func plan(
    _ map: TemplateMap, folder: String, kind: String, name: GeneratedName,
    values: [String: Template.Value]
  ) throws(GeneratorError) -> ChangeSet {
    for file in map.files {
      try refuseExisting(file.destination, kind: kind, name: name)
    }
    var changes = ChangeSet()
    for file in map.files {
      changes.newFiles.append(
        .init(
          path: file.destination, contents: try render("\(folder)/\(file.template)", values)))
    }
    try refuseCollisions(of: changes.newFiles, modules: map.modules, name: name)
    var order: [String] = []
    var texts: [String: (original: String, updated: String)] = [:]
    for edit in map.edits {
      if texts[edit.file] == nil {
        let original = try read(edit.file)
        texts[edit.file] = (original, original)
        order.append(edit.file)
      }
      guard let current = texts[edit.file]?.updated else { continue }
      switch edit {
      case .insert(let template, let file, let marker):
        let text = try render("\(folder)/\(template)", values)
        // A template whose sections all dropped out (no --route) inserts nothing.
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { continue }
        texts[file]?.updated = Self.normalizingTrailingCommas(
          in: try insert(text, above: "// \(marker)", in: current, path: file),
          before: "// \(marker)")
      case .addImport(let module, let file):
        texts[file]?.updated = try addImport(of: module, to: current, path: file)
      }
    }
    for path in order {
      guard let text = texts[path] else { continue }
      changes.edits.append(.init(path: path, original: text.original, updated: text.updated))
    }
    return changes
  }

  /// `text` with the collection literal that the line holding `marker` ends (the screens'
  /// features in `Package.swift`, the main menu's entries) written as `swift format` writes it:
  /// no comma after an only element, a comma after each of several. The templates end each
  /// element with a comma; the first one inserted into an empty list loses it, and gets it back
  /// when a second one comes. Text that is not such a list is returned as it is.
  ///
  /// An element's last line is a line at the marker's indentation that is not a comment and is
  /// not followed by a deeper one (`MainMenuEntry(...) {` is followed by its body; `},` ends it).
  static func normalizingTrailingCommas(in text: String, before marker: String) -> String {
    var lines = text.components(separatedBy: "\n")
    guard let markerIndex = lines.firstIndex(where: { $0.contains(marker) }) else { return text }
    func indentation(_ line: String) -> Int { line.prefix { $0 == " " }.count }
    func isCode(_ line: String) -> Bool {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      return !trimmed.isEmpty && !trimmed.hasPrefix("//")
    }
    let depth = indentation(lines[markerIndex])
    // The line opening the list: the nearest code line above, less indented, ending with `[`.
    var openIndex = markerIndex - 1
    while openIndex >= 0, !isCode(lines[openIndex]) || indentation(lines[openIndex]) >= depth {
      openIndex -= 1
    }
    guard openIndex >= 0,
      lines[openIndex].trimmingCharacters(in: .whitespaces).hasSuffix("[")
    else { return text }
    var ends: [Int] = []
    for index in (openIndex + 1)..<markerIndex
    where isCode(lines[index]) && indentation(lines[index]) == depth {
      let next = lines[(index + 1)...markerIndex].first(where: isCode) ?? ""
      if next.isEmpty || indentation(next) <= depth { ends.append(index) }
    }
    if ends.count == 1, lines[ends[0]].hasSuffix(",") {
      lines[ends[0]].removeLast()
    } else if ends.count > 1 {
      for index in ends {
        // The comma goes after the code, before a comment the line ends with (`"A"  // mine`).
        let line = lines[index]
        var end = commentStart(in: line) ?? line.endIndex
        while end > line.startIndex, line[line.index(before: end)] == " " {
          end = line.index(before: end)
        }
        guard end > line.startIndex, line[line.index(before: end)] != "," else { continue }
        lines[index] = line[..<end] + "," + line[end...]
      }
    }
    return lines.joined(separator: "\n")
  }

  /// Where the `//` comment of a Swift `line` starts, outside its string literals.
  private static func commentStart(in line: String) -> String.Index? {
    var inString = false
    var isEscaped = false
    for index in line.indices {
      let character = line[index]
      if isEscaped {
        isEscaped = false
      } else if inString, character == "\\" {
        isEscaped = true
      } else if character == "\"" {
        inString.toggle()
      } else if !inString, line[index...].hasPrefix("//") {
        return index
      }
    }
    return nil
  }

  // MARK: Applying

  /// Undoes an earlier run that was interrupted part-way (its journal is still there), except
  /// what changed since it; returns what was undone and left, or `nil` when there was no such
  /// run. Every command runs it first; with `performing` false (`--dry-run`) it changes nothing
  /// and says what it would do.
  public func recoverInterruptedRun(
    performing: Bool = true
  ) throws(GeneratorError) -> Recovery? {
    try Transaction(root: root, fileSystem: fileSystem).recoverInterruptedRun(
      performing: performing)
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
    for removal in changes.removals {
      lines.append("=== deleted: \(removal.path)")
    }
    return lines.joined(separator: "\n")
  }

  // MARK: Helpers

  /// The values every template may use: the name in its spellings, and `Project`, the project's
  /// name, which prefixes its modules (`import {{Project}}Core`).
  func values(for name: GeneratedName) throws(GeneratorError) -> [String: Template.Value] {
    [
      "Name": .text(name.upper), "name": .text(name.lower), "title": .text(name.title),
      "path": .text(name.kebab),
      "Project": .text(try currentProjectName(in: read(Self.manifestPath))),
    ]
  }

  func read(_ path: String) throws(GeneratorError) -> String {
    do {
      return try fileSystem.read(root + "/" + path)
    } catch {
      throw GeneratorError("cannot read \(path) (is \(root) a Trellis project?)")
    }
  }

  func render(_ template: String, _ values: [String: Template.Value]) throws(GeneratorError)
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

  /// Refuses a new file that exists, or whose path differs only in case from one that does
  /// (`LOGINView` beside `LoginView`: one folder on case-insensitive file systems, the default
  /// on macOS).
  private func refuseExisting(_ path: String, kind: String, name: GeneratedName)
    throws(GeneratorError)
  {
    if fileSystem.exists(root + "/" + path) {
      throw GeneratorError(
        "the \(kind) \(name.upper) already exists (\(path)); nothing was changed")
    }
    var folder = root
    var relative: [Substring] = []
    for component in path.split(separator: "/") {
      let entries = fileSystem.entries(in: folder)
      if !entries.contains(String(component)),
        let other = entries.first(where: { $0.lowercased() == component.lowercased() })
      {
        let existing = (relative + [Substring(other)]).joined(separator: "/")
        throw GeneratorError(
          "the \(kind) \(name.upper) would add \(path), but \(existing) exists and differs only "
            + "in case (one file on case-insensitive file systems, such as macOS's); choose "
            + "another name")
      }
      guard entries.contains(String(component)) else { return }
      folder += "/" + component
      relative.append(component)
    }
  }

  /// The types declared at the top level of `source`: `class`, `struct`, `enum`, `protocol`,
  /// `actor` and `typealias` declarations starting a line, after attributes and modifiers on
  /// that line.
  ///
  /// A scan line by line (a regular expression took a third of a large document's run); only
  /// the lines that start with a letter or `@` are read as text.
  static func declaredTypes(in source: String) -> [String] {
    var types: [String] = []
    let newline = UInt8(ascii: "\n")
    for bytes in source.utf8.split(separator: newline) {
      guard let first = bytes.first,
        first == UInt8(ascii: "@") || (first >= UInt8(ascii: "a") && first <= UInt8(ascii: "z"))
      else { continue }
      if let type = declaredType(onLine: Substring(bytes)) { types.append(type) }
    }
    return types
  }

  private static let typeKeywords: Set<Substring> = [
    "class", "struct", "enum", "protocol", "actor", "typealias",
  ]
  private static let declarationModifiers: Set<Substring> = [
    "public", "package", "internal", "fileprivate", "private", "open", "final", "indirect",
    "nonisolated",
  ]

  /// The type `line` declares: its attributes (`@Name`, `@Name(...)`) and modifiers, each
  /// followed by a space, then a type keyword, a space and the name; `nil` if it declares none.
  private static func declaredType(onLine line: Substring) -> String? {
    func isWordCharacter(_ character: Character) -> Bool {
      character.isLetter || character.isNumber || character == "_"
    }
    var rest = line
    while rest.first == "@" {
      let name = rest.dropFirst().prefix { isWordCharacter($0) || $0 == "." }
      guard !name.isEmpty else { return nil }
      rest = rest[name.endIndex...]
      if rest.first == "(" {
        guard let close = rest.firstIndex(of: ")") else { return nil }
        rest = rest[rest.index(after: close)...]
      }
      guard rest.first?.isWhitespace == true else { return nil }
      rest = rest.drop { $0.isWhitespace }
    }
    while true {
      let word = rest.prefix(while: isWordCharacter)
      let after = rest[word.endIndex...]
      guard !word.isEmpty, after.first?.isWhitespace == true else { return nil }
      rest = after.drop { $0.isWhitespace }
      if typeKeywords.contains(word) {
        let name = rest.prefix(while: isWordCharacter)
        return name.isEmpty ? nil : String(name)
      }
      guard declarationModifiers.contains(word) else { return nil }
    }
  }

  /// Refuses new types or modules whose names the code that will see them already uses: the
  /// types declared by the targets the new files' targets and the app depend on (not by
  /// modules they cannot import, such as a demo backend only the app links), and every
  /// module of the package.
  private func refuseCollisions(
    of newFiles: [ChangeSet.NewFile], modules: [String], name: GeneratedName
  ) throws(GeneratorError) {
    let manifest = PackageManifest(source: try read(Self.manifestPath))
    let moduleNames = Set(manifest.targets.map(\.name))
    if let taken = modules.first(where: { moduleNames.contains($0) }) {
      throw GeneratorError(
        "\"\(name.upper)\" would add the module \(taken), which the package already has; "
          + "choose another name")
    }
    var newTypes: [String] = []
    var owners: [String] = manifest.owner(of: Self.compositionRootPath).map { [$0.name] } ?? []
    for file in newFiles where file.path.hasSuffix(".swift") {
      newTypes += Self.declaredTypes(in: file.contents)
      if let owner = manifest.owner(of: file.path) {
        owners.append(owner.name)
      } else if file.path.hasPrefix(Self.featureTestsFolder + "/") {
        // A feature's test module still to be made sees what the layers' test modules see.
        for module in ["Tests/ReactorTests", "Tests/FrontTests"] {
          if let owner = manifest.owner(of: module + "/File.swift") { owners.append(owner.name) }
        }
      }
    }
    let visible = manifest.closure(of: owners)
    let candidates = Set(newTypes + modules)
    for target in manifest.targets where visible.contains(target.name) {
      guard let folder = target.path else { continue }
      for file in fileSystem.swiftFiles(under: root + "/" + folder).sorted() {
        let relative = String(file.dropFirst(root.count + 1))
        guard manifest.owner(of: relative)?.name == target.name,
          let text = try? fileSystem.read(file)
        else { continue }
        if let type = Self.declaredTypes(in: text).first(where: { candidates.contains($0) }) {
          throw GeneratorError(
            "\"\(name.upper)\" would collide with the existing type \(type) in \(relative); "
              + "choose another name")
        }
      }
    }
  }

  /// `path` as a link's route (`reports/weekly`): at most four segments of letters, digits,
  /// `-`, `_` and `.` (not only dots), not registered yet in `composition` (the composition
  /// root's text).
  func checkedRoute(_ path: String, in composition: String) throws(GeneratorError) -> String {
    let trimmed = path.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
    let segments = trimmed.split(separator: "/", omittingEmptySubsequences: false)
    guard !segments.isEmpty, segments.count <= 4,
      segments.allSatisfy({ segment in
        !segment.isEmpty && !segment.allSatisfy { $0 == "." }
          && segment.allSatisfy {
            $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".")
          }
      })
    else {
      throw GeneratorError(
        "\"\(path)\" is not a route: use one to four segments of letters, digits, - and _, "
          + "such as reports/weekly")
    }
    for match in composition.matches(of: #/\.register\(\s*"([^"]*)"/#)
    where match.output.1.lowercased() == trimmed.lowercased() {
      throw GeneratorError(
        "the route \"\(match.output.1)\" is taken (\(Self.compositionRootPath)); choose another")
    }
    return trimmed
  }

  /// Refuses a screen whose menu title is already in the main menu (`composition`, the
  /// composition root's text), ignoring case: two entries called "Tasks" cannot be told apart,
  /// in the menu or by `menu Tasks` in scripts.
  private func refuseTakenMenuTitle(_ name: GeneratedName, in composition: String)
    throws(GeneratorError)
  {
    for match in composition.matches(of: #/MainMenuEntry\(\s*title:\s*"([^"]*)"/#)
    where match.output.1.lowercased() == name.title.lowercased() {
      throw GeneratorError(
        "the main menu already has an entry \"\(match.output.1)\" (\(Self.compositionRootPath)); "
          + "choose a name that tells the screens apart")
    }
  }

  /// The services a screen's provider exposes, found in `path` (`let userService: any
  /// UserService` lines): each as its type, property and title.
  private func resolveServices(_ rawNames: [String], declaredIn path: String?)
    throws(GeneratorError) -> [[String: String]]
  {
    let names = rawNames.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    guard !names.isEmpty else { return [] }
    guard let path else {
      throw GeneratorError(
        "Templates/Screen/templates.map has no `services FILE` line, so --services cannot be "
          + "looked up")
    }
    let text = try read(path)
    let available = text.matches(
      of: #/(?m)^\s*(?:public\s+)?(?:let|var)\s+(\w+)\s*:\s*any\s+(\w+)/#
    )
    .map { (property: String($0.output.1), type: String($0.output.2)) }
    .filter { $0.type.hasSuffix("Service") }
    var seen: Set<String> = []
    var services: [[String: String]] = []
    for raw in names {
      // The spelling that created it works here too: `billing`, `billing-service`, `Billing`.
      let base = try GeneratedName(raw, kind: "service").upper
      guard
        let service = available.first(where: {
          $0.type.lowercased() == (base + "Service").lowercased()
        })
      else {
        let known = available.map { String($0.type.dropLast("Service".count)) }
          .map { $0.prefix(1).lowercased() + $0.dropFirst() }.joined(separator: ", ")
        throw GeneratorError(
          "there is no service \"\(base)\" in \(path): use one of \(known), or generate it first "
            + "with `trellis-gen service \(raw)`")
      }
      guard seen.insert(service.type).inserted else { continue }
      let title =
        (try? GeneratedName(String(service.type.dropLast("Service".count)), kind: "service"))?
        .title ?? service.type
      services.append([
        "serviceType": service.type, "serviceProperty": service.property, "serviceTitle": title,
      ])
    }
    return services
  }
}
