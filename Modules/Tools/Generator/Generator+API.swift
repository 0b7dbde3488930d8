import Foundation

/// What `trellis-gen api` would do: the changes to write, and the files it leaves as they are
/// because the team edited them since they were generated.
public struct APIPlan: Sendable {
  /// A generated file the team edited that cannot be merged (no kept text): the run stops.
  public struct LeftFile: Equatable, Sendable {
    /// Its path, relative to the project root.
    public var path: String
    /// Why it was left.
    public var reason: String
  }

  /// The files to create and change.
  public var changes: ChangeSet
  /// The files left alone.
  public var leftAlone: [LeftFile]
  /// Generated files the team edited whose edits were merged with the new version.
  public var merged: [String] = []
  /// Generated files the team edited where the edit and the new version change the same lines
  /// differently: the run writes nothing, and each place is shown.
  public var conflicts: [(path: String, regions: [String])] = []
  /// Generated files unchanged, already up to date.
  public var upToDate: [String]
  /// Files generated from this document for a tag it no longer has (left; delete them when
  /// nothing uses them).
  public var orphans: [String]
  /// The operations left out, each with why.
  public var skipped: [String] = []
  /// How many operations were generated.
  public var operationCount = 0
  /// What the team must know: credentials to give, security the app cannot meet.
  public var notes: [String] = []
}

extension Generator {
  /// `message` with the line and column of the document location it names
  /// (`paths./pets.get.parameters[0]` becomes `paths./pets.get.parameters[0] (line 12,
  /// column 11)`): a meaning error is found in a document of 60,000 lines as a YAML one is.
  static func locating(_ message: String, in positions: DocumentPositions) -> String {
    guard
      let start = ["paths.", "components."].compactMap({ message.range(of: $0)?.lowerBound })
        .min()
    else { return message }
    // The location ends where its message goes on: at ": " or at a space.
    let rest = message[start...]
    let end =
      [rest.range(of: ": ")?.lowerBound, rest.firstIndex(of: " ")].compactMap { $0 }.min()
      ?? rest.endIndex
    guard let position = positions.position(of: String(message[start..<end])) else {
      return message
    }
    return String(message[..<end]) + " (line \(position.line), column \(position.column))"
      + message[end...]
  }

  /// Where the text a generated file was last generated as is kept (`.trellis-gen/` and the
  /// file's path): a team's edit to the file is merged from it into the next version. Outside
  /// every target, so it is never compiled; committed with the tree.
  static func basePath(of path: String) -> String { ".trellis-gen/" + path }

  /// Where `trellis-gen api` writes the DataAPIs, repositories and models.
  public static let apiFolder = "Modules/Repository/API"
  /// The models file, shared by the tags.
  static let apiModelsPath = apiFolder + "/APIModels.swift"

  /// The Repository layer for the OpenAPI document at `documentPath` (absolute, or relative
  /// to the project root): for each tag (or those of `tags`), its DataAPI, repository, fake and
  /// tests; the models of the schemas they use; and each repository created in the
  /// composition root. Files generated before are updated unless edited since (see
  /// ``APIPlan``).
  ///
  /// - Throws: ``GeneratorError`` when the document cannot be read (with its line and column),
  ///   is not OpenAPI 3.0 or 3.1, or describes what cannot be generated; nothing is written.
  public func planAPI(_ documentPath: String, tags: [String] = [], prefix: String = "")
    throws(GeneratorError) -> APIPlan
  {
    guard prefix.isEmpty || (SwiftNames.upperCamel(prefix) == prefix && prefix.count <= 20)
    else {
      throw GeneratorError(
        "--prefix takes an UpperCamelCase name of at most 20 letters and digits, such as Petstore "
          + "(\"\(prefix)\" is not one); nothing was changed")
    }
    // The document is named by its path in the project: the generated files say where they
    // come from (never this machine's own folders), and a document is known by it.
    let projectRoot = URL(fileURLWithPath: root).standardizedFileURL.path
    let absolute =
      URL(fileURLWithPath: documentPath.hasPrefix("/") ? documentPath : root + "/" + documentPath)
      .standardizedFileURL.path
    guard fileSystem.exists(absolute), !fileSystem.isDirectory(absolute) else {
      throw GeneratorError("there is no file \(documentPath); nothing was changed")
    }
    guard absolute.hasPrefix(projectRoot.hasSuffix("/") ? projectRoot : projectRoot + "/") else {
      throw GeneratorError(
        "\(documentPath) is outside the project (\(root)): copy the document into it (docs/, "
          + "say) and commit it beside what it generates; nothing was changed")
    }
    let shown = String(String(absolute.dropFirst(projectRoot.count)).trimmingPrefix("/"))
    let text: String
    do {
      text = try fileSystem.read(absolute)
    } catch {
      throw GeneratorError(
        "cannot read \(documentPath) as UTF-8 text (\(error.localizedDescription)); nothing was "
          + "changed")
    }
    let document: DocumentValue
    let positions: DocumentPositions
    do {
      (document, positions) = try YAMLReader.readWithPositions(text)
    } catch {
      throw GeneratorError("\(shown): \(error); nothing was changed")
    }
    // With --tag, the tags generated before stay: their models are in the shared file.
    var selected = tags
    if !tags.isEmpty {
      selected += generatedTags(source: shown).map { name in
        name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)) : name
      }
    }
    // An error answer whose body is a schema the project already declares (the starter's
    // `APIErrorModel`, for an `Error` schema) stays untyped rather than the run refused.
    let declared = declaredTypesOutside(source: shown)
    let description = try APIDescription(document, tags: selected) { schema in
      let base = prefix + SwiftNames.upperCamel(schema)
      return declared.contains(
        (base.hasSuffix("Model") ? String(base.dropLast(5)) : base) + "Model")
    }
    var models = try ModelWriter(description, prefix: prefix)
    var tagOrder: [String] = []
    var byTag: [String: [APIDescription.Operation]] = [:]
    for operation in description.operations {
      let name = SwiftNames.upperCamel(operation.tag)
      if byTag[name] == nil { tagOrder.append(name) }
      byTag[name, default: []].append(operation)
    }
    var writers: [EndpointWriter] = []
    var skipped = description.skipped
    for name in tagOrder {
      let writer = try EndpointWriter(
        tag: name, operations: byTag[name] ?? [], models: &models, source: shown,
        title: description.title, prefix: prefix)
      skipped += writer.skipped
      // A tag all of whose operations were left out has no files.
      if !writer.calls.isEmpty { writers.append(writer) }
    }
    guard !writers.isEmpty else {
      throw GeneratorError(
        "no operation of the document could be generated:\n"
          + skipped.map { "  \($0)" }.joined(separator: "\n"))
    }
    try models.checkCycles()
    let project = try currentProjectName(in: read(Self.manifestPath))

    var files: [(path: String, contents: String)] = []
    files += Self.modelFiles(
      models.declarations,
      shared: (models.usesJSONValue ? [ModelWriter.jsonValueDeclaration] : [])
        + (models.usesIndirect ? [ModelWriter.indirectDeclaration] : []),
      prefix: prefix)
    for writer in writers {
      files.append(
        ("\(Self.apiFolder)/\(writer.name)DataAPI.swift", writer.dataAPI(project: project)))
      files.append(("\(Self.apiFolder)/\(writer.name)Repo.swift", writer.repo(project: project)))
      files.append(
        ("Tests/TestSupport/Fake\(writer.name)Repo.swift", writer.fake(project: project)))
      files.append(
        ("Tests/RepositoryTests/\(writer.name)RepoTests.swift", writer.tests(project: project)))
    }
    files.append(
      (
        "Tests/RepositoryTests/APIModelsTests.swift",
        modelTests(models, project: project, source: shown)
      ))

    // The last guard against text from the document becoming code: every comment and literal
    // was written through `SwiftNames`, which turns every line break but `\n` into a space or
    // an escape; one that is still here came through a writer that forgot.
    for (path, contents) in files
    where contents.unicodeScalars.contains(where: { $0 != "\n" && SwiftNames.isLineSeparator($0) })
    {
      throw GeneratorError(
        "internal error: \(path) would hold a line break from \(shown) outside a comment or a "
          + "literal's escapes; nothing was written (please report it with the document)")
    }
    // Each repository, made in the composition root the first time (formatted with the
    // files, as the project's CI lints it: a long name makes a long line).
    var notes: [String] = []
    var composition = try read(Self.compositionRootPath)
    let original = composition
    for writer in writers where !Self.contains(word: "\(writer.name)RepoImpl(", in: composition) {
      let variable = SwiftNames.lowerCamel(writer.name) + "Repo"
      if composition.contains("let \(variable) ") {
        throw GeneratorError(
          "\(Self.compositionRootPath) already has `let \(variable)`; rename it (or the tag "
            + "\(writer.name)); nothing was changed")
      }
      // The credentials its operations need besides the session's: a plugin per scheme, with
      // no credential until the team gives it one (a request fails, saying so, until then).
      let schemes = Set(writer.calls.flatMap(\.operation.credentialSchemes)).sorted()
      var pluginList = "plugins"
      if !schemes.isEmpty {
        let made = schemes.compactMap { name -> String? in
          let literal = SwiftNames.literal(name)
          switch description.credentialSchemes[name] {
          case .apiKey(let header, let field)?:
            let placement = header ? "header" : "query"
            let fieldLiteral = SwiftNames.literal(field)
            return
              "APIKeyPlugin(scheme: \"\(literal)\", placement: .\(placement)(\"\(fieldLiteral)\")) "
              + "{ nil }"
          case .basic?:
            return "BasicAuthPlugin(scheme: \"\(literal)\") { nil }"
          default:
            return nil
          }
        }
        pluginList =
          "plugins + [\n          // The credentials of the document's security schemes: give "
          + "each plugin its value\n          // (from the Keychain, say) in place of nil.\n          "
          + made.joined(separator: ",\n          ") + ",\n        ]"
        for name in schemes {
          notes.append(
            "\(writer.name)RepoImpl's operations need the credential \"\(name)\" "
              + "(\(Self.describe(description.credentialSchemes[name]))): give its plugin in "
              + "\(Self.compositionRootPath) the value (from the Keychain, say)")
        }
      }
      composition = try insert(
        """
            let \(variable) = \(writer.name)RepoImpl(
              requester: HTTPRequester<\(writer.name)DataAPI>(
                baseURL: baseURL, transport: transport, plugins: \(pluginList),
                configuration: .iso8601Dates))
            // Give it to the service that needs it, then remove the next line.
            _ = \(variable)

        """, above: "// trellis:repositories", in: composition)
    }
    for operation in writers.flatMap(\.calls).map(\.operation) {
      if let unmet = operation.unmetSecurity {
        notes.append("\(operation.method) \(operation.path): \(unmet)")
      }
    }
    var toFormat = Dictionary(
      files.map { ($0.path, $0.contents) }, uniquingKeysWith: { first, _ in first })
    if composition != original { toFormat[Self.compositionRootPath] = composition }
    let formatted = formatter(toFormat, root)
    var plan = APIPlan(
      changes: ChangeSet(), leftAlone: [], upToDate: [], orphans: [],
      skipped: skipped.map { Self.locating($0, in: positions) },
      operationCount: writers.map(\.calls.count).reduce(0, +))
    plan.notes += notes
    var written: [String] = []
    for (path, contents) in files {
      let body = formatted?[path] ?? contents
      let generated =
        Self.generatedHeader(source: shown, body: body) + body
      guard fileSystem.exists(root + "/" + path) else {
        plan.changes.newFiles.append(.init(path: path, contents: generated))
        written.append(path)
        continue
      }
      let current = try read(path)
      guard let recorded = Self.recordedDigest(in: current) else {
        throw GeneratorError(
          "\(path) exists and was not generated by `trellis-gen api`; move it away or choose "
            + "another --tag; nothing was changed")
      }
      guard current.hasPrefix(Self.headerFirstLine(source: shown) + "\n") else {
        let origin = current.prefix { $0 != "\n" }
        throw GeneratorError(
          "\(path) says \"\(origin.dropFirst(3))\": it belongs to another document (or to this "
            + "one at another path). `trellis-gen api` writes one document's layer into "
            + "\(Self.apiFolder); run it with that document, or move the generated files away "
            + "first; nothing was changed")
      }
      let currentBody = Self.bodyAfterHeader(current)
      // The text it was generated as, kept beside the tree (see `basePath`): what a team's
      // edit is merged from.
      let base =
        fileSystem.exists(root + "/" + Self.basePath(of: path))
        ? try? read(Self.basePath(of: path)) : nil
      if current == generated {
        plan.upToDate.append(path)
      } else if Self.digest(of: currentBody) != recorded {
        // Edited by the team: their edit and the new version are merged, three-way, from the
        // text it was generated as. Lines both changed differently stop the run.
        guard let base, Self.recordedDigest(in: base) == recorded else {
          plan.leftAlone.append(
            .init(
              path: path,
              reason: "edited since it was generated, and the text it was generated as is not "
                + "kept in \(Self.basePath(of: path)) (generated by an older trellis-gen)",
            ))
          continue
        }
        switch ThreeWayMerge.merge(base: base, ours: current, theirs: generated) {
        case .merged(let text):
          if text != current {
            plan.changes.edits.append(.init(path: path, original: current, updated: text))
            plan.merged.append(path)
          } else {
            plan.upToDate.append(path)
          }
        case .conflicts(let regions):
          plan.conflicts.append(
            (
              path,
              regions.map { region in
                "line \(region.baseLine) as generated before:\n"
                  + region.base.map { "    " + $0 }.joined(separator: "\n")
                  + "\n  your version:\n" + region.ours.map { "    " + $0 }.joined(separator: "\n")
                  + "\n  the new generated version:\n"
                  + region.theirs.map { "    " + $0 }.joined(separator: "\n")
              }
            ))
        }
      } else {
        plan.changes.edits.append(.init(path: path, original: current, updated: generated))
        written.append(path)
      }
    }
    // New types: those of new files, and those an edit adds to a generated file.
    var declaring = plan.changes.newFiles
    for edit in plan.changes.edits {
      let before = Set(Self.declaredTypes(in: edit.original))
      let added = Self.declaredTypes(in: edit.updated).filter { !before.contains($0) }
      if !added.isEmpty {
        declaring.append(
          .init(path: edit.path, contents: added.map { "struct \($0) {}" }.joined(separator: "\n")))
      }
    }
    // (This document's models files of letters no longer used are removed below: their types
    // are the ones the new files declare.)
    try refuseTypeCollisions(
      declaring, except: Set(files.map(\.path) + generatedModelFiles(source: shown)))
    if composition != original {
      plan.changes.edits.append(
        .init(
          path: Self.compositionRootPath, original: original,
          updated: formatted?[Self.compositionRootPath] ?? composition))
    }
    // The files of this document's tags that it no longer has: they use models it no longer
    // writes, so they are named for the team to delete (with their line in the composition
    // root).
    let current = Set(writers.map(\.name))
    for tag in generatedTags(source: shown) where !current.contains(tag) {
      for path in [
        "\(Self.apiFolder)/\(tag)DataAPI.swift", "\(Self.apiFolder)/\(tag)Repo.swift",
        "Tests/TestSupport/Fake\(tag)Repo.swift", "Tests/RepositoryTests/\(tag)RepoTests.swift",
      ] where fileSystem.exists(root + "/" + path) {
        plan.orphans.append(path)
      }
      plan.orphans.append(
        "the lines of \(SwiftNames.lowerCamel(tag))Repo in \(Self.compositionRootPath)")
    }
    // Models files of letters no name has any more: removed when untouched (they declare
    // types nothing generates now), named for the team when edited.
    let modelPaths = Set(files.map(\.path))
    for path in generatedModelFiles(source: shown) where !modelPaths.contains(path) {
      let text = try read(path)
      if Self.recordedDigest(in: text) == Self.digest(of: Self.bodyAfterHeader(text)) {
        plan.changes.removals.append(.init(path: path, original: text))
        if fileSystem.exists(root + "/" + Self.basePath(of: path)) {
          plan.changes.removals.append(
            .init(path: Self.basePath(of: path), original: try read(Self.basePath(of: path))))
        }
      } else {
        plan.orphans.append(path)
      }
    }
    // Each generated file's text, kept to merge a team's edit into the next version.
    for (path, contents) in files {
      let body = formatted?[path] ?? contents
      let generated = Self.generatedHeader(source: shown, body: body) + body
      let keptPath = Self.basePath(of: path)
      if fileSystem.exists(root + "/" + keptPath) {
        let kept = try read(keptPath)
        // Only its `import` lines differ after a rename (the digest leaves them out): what is
        // kept still merges, as the team's file has the same imports as the new version.
        if kept != generated, Self.recordedDigest(in: kept) != Self.recordedDigest(in: generated) {
          plan.changes.edits.append(.init(path: keptPath, original: kept, updated: generated))
        }
      } else {
        plan.changes.newFiles.append(.init(path: keptPath, contents: generated))
      }
    }
    return plan
  }

  /// How a security scheme is sent, in words.
  static func describe(_ scheme: APIDescription.SecurityScheme?) -> String {
    switch scheme {
    case .apiKey(let header, let name)?:
      "an API key in the \(header ? "header" : "query item") \(name)"
    case .basic?: "HTTP Basic"
    case .session?, nil: "the session's token"
    case .unsupported(let what)?: what
    }
  }

  /// Whether `text` has `word` where no letter, digit or `_` comes before it (`UsersRepoImpl(`
  /// is not in `AdminUsersRepoImpl(`).
  static func contains(word: String, in text: String) -> Bool {
    var searchStart = text.startIndex
    while let found = text.range(of: word, range: searchStart..<text.endIndex) {
      if found.lowerBound == text.startIndex { return true }
      let before = text[text.index(before: found.lowerBound)]
      if !(before.isLetter || before.isNumber || before == "_") { return true }
      searchStart = found.upperBound
    }
    return false
  }

  /// The most lines of models kept in one `APIModels.swift`, and (but for one declaration
  /// longer than it) in each file of a letter; more are split by the first letter of their
  /// names (`APIModels+A.swift`...), and a letter of more into parts in the document's order
  /// (`APIModels+G2.swift`...), so no generated file is a wall (a document of 1,400 schemas
  /// makes about 40 files, not one of 80,000 lines) and they format side by side. A name keeps
  /// its letter; a letter's part moves when models before it grow or shrink.
  static let modelLinesPerFile = 2000

  /// The models files: `APIModels.swift` with everything when it is short, else with what is
  /// shared (`JSONValue`, `Indirect`) and a file per first letter of the types' names (after
  /// `prefix`).
  static func modelFiles(_ declarations: [String], shared: [String], prefix: String)
    -> [(path: String, contents: String)]
  {
    let all = declarations + shared
    // Bytes, not characters: the text is large and holds no `\r` (descriptions are cleaned).
    let lineCount = all.reduce(0) { $0 + nonEmptyLineCount($1) }
    func file(_ parts: [String]) -> String {
      "import Foundation\n\n" + parts.joined(separator: "\n\n") + "\n"
    }
    guard lineCount > modelLinesPerFile else { return [(apiModelsPath, file(all))] }
    var byLetter: [String: [String]] = [:]
    for declaration in declarations {
      let name = declaredModelName(declaration)
      let stem = name.hasPrefix(prefix) ? name.dropFirst(prefix.count) : Substring(name)
      let letter =
        stem.first.map { $0.isASCII && $0.isLetter ? String($0).uppercased() : "_" } ?? "_"
      byLetter[letter, default: []].append(declaration)
    }
    var result: [(path: String, contents: String)] = [
      (
        apiModelsPath,
        file(
          [
            "// The models are in APIModels+<letter>.swift, by the first letter of their names "
              + "(a letter of many in APIModels+<letter>2.swift and on)."
          ] + shared)
      )
    ]
    // A letter of many models is split again, in the document's order, so no file is a wall
    // (and files format side by side: `swift format` takes a 26,000-line file seven times as
    // long as one of 5,000 lines): `APIModels+G.swift`, `APIModels+G2.swift`...
    for letter in byLetter.keys.sorted() {
      var parts: [[String]] = [[]]
      var lines = 0
      for declaration in byLetter[letter] ?? [] {
        let count = declaration.utf8.count { $0 == UInt8(ascii: "\n") } + 2
        if lines > 0, lines + count > modelLinesPerFile {
          parts.append([])
          lines = 0
        }
        parts[parts.count - 1].append(declaration)
        lines += count
      }
      for (index, part) in parts.enumerated() {
        let suffix = index == 0 ? "" : String(index + 1)
        result.append(("\(apiFolder)/APIModels+\(letter)\(suffix).swift", file(part)))
      }
    }
    return result
  }

  /// How many lines of `text` are not empty.
  static func nonEmptyLineCount(_ text: String) -> Int {
    text.utf8.split(separator: UInt8(ascii: "\n")).count
  }

  /// The name a model's declaration gives: that of its first line `public struct Name`,
  /// `public enum Name`, `public indirect enum Name` or `public typealias Name`; empty if none.
  static func declaredModelName(_ declaration: String) -> String {
    for bytes in declaration.utf8.split(separator: UInt8(ascii: "\n")) {
      guard bytes.starts(with: "public ".utf8) else { continue }
      var rest = Substring(bytes).dropFirst("public ".count)
      if rest.hasPrefix("indirect ") { rest = rest.dropFirst("indirect ".count) }
      guard let keyword = ["struct ", "enum ", "typealias "].first(where: rest.hasPrefix) else {
        continue
      }
      let name = rest.dropFirst(keyword.count).prefix {
        $0.isLetter || $0.isNumber || $0 == "_"
      }
      if !name.isEmpty { return String(name) }
    }
    return ""
  }

  /// The models files this project has from the document `source`, beside `APIModels.swift`.
  private func generatedModelFiles(source: String) -> [String] {
    fileSystem.entries(in: root + "/" + Self.apiFolder).sorted().compactMap { name in
      guard name.hasPrefix("APIModels+"), name.hasSuffix(".swift"),
        let text = try? read("\(Self.apiFolder)/\(name)"),
        text.hasPrefix(Self.headerFirstLine(source: source) + "\n")
      else { return nil }
      return "\(Self.apiFolder)/\(name)"
    }
  }

  /// The tags (their Swift names) whose DataAPI this project has from the document `source`.
  private func generatedTags(source: String) -> [String] {
    fileSystem.entries(in: root + "/" + Self.apiFolder).sorted().compactMap { name in
      guard name.hasSuffix("DataAPI.swift"),
        let text = try? read("\(Self.apiFolder)/\(name)"),
        text.hasPrefix(Self.headerFirstLine(source: source) + "\n")
      else { return nil }
      return String(name.dropLast("DataAPI.swift".count))
    }
  }

  /// The tests of the models: each sample survives being written and read back.
  private func modelTests(_ models: ModelWriter, project: String, source: String) -> String {
    var lines = [
      "import Foundation",
      "import \(project)Repository",
      "import Testing",
      "",
      "@Suite(\"The API's models (generated from \(SwiftNames.literal(source)))\")",
      "struct APIModelsTests {",
      "  private func roundTrip<Value: Codable>(_ value: Value) throws -> Value {",
      "    let encoder = JSONEncoder()",
      "    encoder.dateEncodingStrategy = .iso8601",
      "    let decoder = JSONDecoder()",
      "    decoder.dateDecodingStrategy = .iso8601",
      "    return try decoder.decode(Value.self, from: encoder.encode(value))",
      "  }",
      "",
      "  /// Each model's sample is written as JSON and read back the same.",
      "  @Test func eachSampleIsReadBackAsItWasWritten() throws {",
    ]
    let types = models.sampledTypes
    for type in types {
      lines.append("    #expect(try roundTrip(\(type).sample) == \(type).sample)")
    }
    if types.isEmpty { lines.append("    #expect(try roundTrip([1]) == [1])") }
    lines.append("  }")
    if let enumeration = models.firstEnumeration {
      lines += [
        "",
        "  /// A value the document did not list (a newer server's) is kept, not a failure.",
        "  @Test func anUndocumentedValueIsKept() throws {",
        "    let value = try JSONDecoder().decode(\(enumeration).self, from: Data(#\"\"a value from a newer server\"\"#.utf8))",
        "    #expect(value == .undocumented(\"a value from a newer server\"))",
        "    #expect(try roundTrip(value) == value)",
        "  }",
      ]
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The types the Repository module, its tests and the test support declare in files not
  /// generated from `source` (those a run from it replaces).
  private func declaredTypesOutside(source: String) -> Set<String> {
    var types: Set<String> = []
    for folder in ["Modules/Repository", "Tests/TestSupport", "Tests/RepositoryTests"] {
      for file in fileSystem.swiftFiles(under: root + "/" + folder) {
        guard let text = try? fileSystem.read(file),
          !text.hasPrefix(Self.headerFirstLine(source: source) + "\n")
        else { continue }
        types.formUnion(Self.declaredTypes(in: text))
      }
    }
    return types
  }

  /// Refuses new files that declare a type the Repository module, its tests or the test
  /// support already declare in a file the run does not write.
  private func refuseTypeCollisions(_ newFiles: [ChangeSet.NewFile], except generated: Set<String>)
    throws(GeneratorError)
  {
    var newTypes: [String: String] = [:]
    for file in newFiles where file.path.hasSuffix(".swift") {
      for type in Self.declaredTypes(in: file.contents) { newTypes[type] = file.path }
    }
    guard !newTypes.isEmpty else { return }
    let writing = generated.union(newFiles.map(\.path))
    for folder in ["Modules/Repository", "Tests/TestSupport", "Tests/RepositoryTests"] {
      for file in fileSystem.swiftFiles(under: root + "/" + folder).sorted() {
        let relative = String(file.dropFirst(root.count + 1))
        guard !writing.contains(relative), let text = try? fileSystem.read(file) else { continue }
        if let type = Self.declaredTypes(in: text).first(where: { newTypes[$0] != nil }) {
          throw GeneratorError(
            "\(newTypes[type] ?? "") would declare \(type), which \(relative) declares already; "
              + "give the generated types a prefix of their own (--prefix Petstore), rename the "
              + "schema or the tag in the document, or generate only the tags that do not use "
              + "it (--tag); nothing was changed")
        }
      }
    }
  }

  // MARK: The header and its digest

  /// The first line of every file generated from `source`.
  static func headerFirstLine(source: String) -> String {
    "// Generated by `trellis-gen api` from \(source)."
  }

  /// The header of a generated file: where it came from, and the digest of `body` that tells
  /// an edited file from an untouched one (see ``digest(of:)``).
  static func generatedHeader(source: String, body: String) -> String {
    headerFirstLine(source: source) + "\n"
      + "// Updated by the next run unless edited since (digest "
      + "\(digest(of: body))).\n"
  }

  /// The digest of a generated file's body, as a rename leaves it: without its `import` lines
  /// (the only lines of generated code that name the project: a rename changes them, and the
  /// file must not be taken for one the team edited).
  static func digest(of body: String) -> String {
    // Bytes, not characters (a large document's run spent a sixth of its time splitting
    // characters); the same lines, as no generated body holds a `\r`.
    guard !body.utf8.contains(UInt8(ascii: "\r")) else {
      let kept = body.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
      return String(ContentDigest.of(kept).prefix(32))
    }
    var kept: [UInt8] = []
    kept.reserveCapacity(body.utf8.count)
    var isFirst = true
    for line in body.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    where !line.starts(with: "import ".utf8) {
      if !isFirst { kept.append(UInt8(ascii: "\n")) }
      isFirst = false
      kept.append(contentsOf: line)
    }
    return String(ContentDigest.of(bytes: kept).prefix(32))
  }

  /// The digest a generated file's header records, if it has that header.
  static func recordedDigest(in text: String) -> String? {
    let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
    guard lines.count >= 2, lines[0].hasPrefix("// Generated by `trellis-gen api` from "),
      let match = lines[1].firstMatch(of: #/\(digest ([0-9a-f]{32})\)\.$/#)
    else { return nil }
    return String(match.output.1)
  }

  /// A generated file's text after its two header lines.
  static func bodyAfterHeader(_ text: String) -> String {
    let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
    return lines.count == 3 ? String(lines[2]) : ""
  }
}

/// Formats Swift files with the toolchain's `swift format` and the project's `.swift-format`,
/// so what the generator writes passes `swift format lint`; `nil` when it cannot run (the files
/// are then written as generated).
public enum SwiftFormatting {
  /// The longest a run may take.
  static let deadline: TimeInterval = 120

  /// Whether the file at `path` is written laid out as `swift format` lays it out, except for
  /// its lines over the width: the models (`ModelWriter`'s `APIModels*.swift`), seven tenths
  /// of a large document's text. Only those lines are formatted (`--offsets`), in half the
  /// time, to the same text (`formattingOnlyTheLongLinesOfModelsGivesTheWholeFormatting`; CI
  /// lints the trees it generates).
  static func isLaidOutExceptLongLines(_ path: String) -> Bool {
    let name = path.split(separator: "/").last ?? ""
    return name.hasPrefix("APIModels") && path.contains("/API/")
  }

  /// `files` (path to text) formatted: a file `swift format` cannot take is left out (the
  /// caller writes it as it is), the others are formatted; `nil` when it cannot run at all or
  /// takes longer than ``deadline``.
  public static func format(_ files: [String: String], root: String) -> [String: String]? {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-gen-format-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      var configurationArguments: [String] = []
      let configuration = root + "/.swift-format"
      if FileManager.default.fileExists(atPath: configuration) {
        configurationArguments = ["--configuration", configuration]
      }
      let width = lineLength(configuration: configuration)
      var names: [String: URL] = [:]
      var whole: [String] = []
      // Each job: its arguments, and the files it formats.
      var jobs: [(arguments: [String], paths: [String])] = []
      for (index, (path, text)) in files.sorted(by: { $0.key < $1.key }).enumerated() {
        let url = folder.appendingPathComponent("\(index).swift")
        try Data(text.utf8).write(to: url)
        names[path] = url
        if isLaidOutExceptLongLines(path) {
          let ranges = longLineRanges(text, width: width)
          if !ranges.isEmpty {
            jobs.append(
              (ranges.map { "--offsets=\($0.lowerBound):\($0.upperBound)" } + [url.path], [path]))
          }
        } else {
          whole.append(path)
        }
      }
      // Files in parallel, across the machine's cores (a large document's models are split
      // into files by letter, so they format side by side).
      if !whole.isEmpty {
        jobs.insert((["--parallel"] + whole.compactMap { names[$0]?.path }, whole), at: 0)
      }
      let command = formatCommand()
      let start = Date()
      guard
        var failed = run(
          jobs, command: command, configurationArguments: configurationArguments, from: start)
      else { return nil }
      // A batch that failed (one file it cannot take, such as a team's own that does not
      // parse): each of its files again, alone, from its text, so the others are formatted.
      if jobs.first?.paths == whole, whole.count > 1, failed.isSuperset(of: whole) {
        for path in whole { try Data((files[path] ?? "").utf8).write(to: names[path]!) }
        guard
          let again = run(
            whole.map { ([names[$0]!.path], [$0]) }, command: command,
            configurationArguments: configurationArguments, from: start)
        else { return nil }
        failed.subtract(whole)
        failed.formUnion(again)
      }
      var result: [String: String] = [:]
      for (path, url) in names where !failed.contains(path) {
        result[path] = try String(contentsOf: url, encoding: .utf8)
      }
      return result
    } catch {
      return nil
    }
  }

  /// Runs `jobs`, as many at once as the machine has cores (a job starts as soon as any
  /// ends); the files of those that failed, or `nil` when one could not start or the
  /// ``deadline`` after `start` passed (every job still running is then stopped).
  private static func run(
    _ jobs: [(arguments: [String], paths: [String])],
    command: (executable: URL, arguments: [String]), configurationArguments: [String],
    from start: Date
  ) -> Set<String>? {
    // Made at 0 and raised to the count: a semaphore released below its starting value traps.
    let slots = DispatchSemaphore(value: 0)
    for _ in 0..<max(1, ProcessInfo.processInfo.activeProcessorCount) { slots.signal() }
    var running: [(process: Process, finished: DispatchSemaphore, paths: [String])] = []
    func stopAll() {
      for job in running where job.process.isRunning { job.process.terminate() }
    }
    for job in jobs {
      guard
        slots.wait(timeout: .now() + max(0, deadline - Date().timeIntervalSince(start)))
          == .success
      else {
        stopAll()
        return nil
      }
      let process = Process()
      process.executableURL = command.executable
      process.arguments =
        command.arguments + ["--in-place"] + configurationArguments + job.arguments
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      let finished = DispatchSemaphore(value: 0)
      process.terminationHandler = { _ in
        finished.signal()
        slots.signal()
      }
      do {
        try process.run()
      } catch {
        stopAll()
        return nil
      }
      running.append((process, finished, job.paths))
    }
    var failed: Set<String> = []
    for job in running {
      let left = max(0, deadline - Date().timeIntervalSince(start))
      guard job.finished.wait(timeout: .now() + left) == .success else {
        stopAll()
        return nil
      }
      if job.process.terminationStatus != 0 { failed.formUnion(job.paths) }
    }
    return failed
  }

  /// How `swift format format` is run: the toolchain's `swift-format` beside the first `swift`
  /// on `PATH` (its links followed), in the folder of the toolchain's `swift-frontend`, as
  /// `swift format` runs it; else `swift
  /// format` through `env`. Started directly, each of a large document's fifty runs saves
  /// starting the driver first (0.05 s against 0.03 s for an empty file, measured).
  static func formatCommand(
    path: String? = ProcessInfo.processInfo.environment["PATH"]
  ) -> (executable: URL, arguments: [String]) {
    let files = FileManager.default
    for folder in (path ?? "").split(separator: ":") where !folder.isEmpty {
      let swift = URL(fileURLWithPath: String(folder)).appendingPathComponent("swift")
      guard files.isExecutableFile(atPath: swift.path) else { continue }
      // A toolchain's `bin` (it has the compiler): a shim or wrapper elsewhere may sit beside
      // another `swift-format` than the one its `swift format` runs.
      let bin = swift.resolvingSymlinksInPath().deletingLastPathComponent()
      let formatter = bin.appendingPathComponent("swift-format")
      if files.isExecutableFile(atPath: bin.appendingPathComponent("swift-frontend").path),
        files.isExecutableFile(atPath: formatter.path)
      {
        return (formatter, ["format"])
      }
      break
    }
    return (URL(fileURLWithPath: "/usr/bin/env"), ["swift", "format", "format"])
  }

  /// The UTF-8 offsets of the lines of `text` longer than `width` characters, but for lines
  /// that are only a comment (`swift format` leaves a comment's text as it is).
  static func longLineRanges(_ text: String, width: Int) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var offset = 0
    for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      // A line's characters are at most its bytes: only a long one is counted.
      if line.count > width, !line.drop(while: { $0 == UInt8(ascii: " ") }).starts(with: "//".utf8),
        Substring(line).count > width
      {
        ranges.append(offset..<(offset + line.count))
      }
      offset += line.count + 1
    }
    return ranges
  }

  /// The configuration's `lineLength` (100, `swift format`'s default, when it says none).
  static func lineLength(configuration: String) -> Int {
    guard let data = FileManager.default.contents(atPath: configuration),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let width = object["lineLength"] as? Int, width > 0
    else { return 100 }
    return width
  }
}
