/// What one kind of generated code is made of: the `templates.map` file of its folder in
/// `Templates/` (`Templates/Screen/templates.map` for screens). One directive per line, words
/// separated by spaces, `#` starting a comment line; placeholders such as `{{Name}}` are
/// filled in first, and a line that a section leaves empty
/// (`{{#isNewFeature}}module {{Feature}}Feature{{/isNewFeature}}`) is skipped:
///
/// - `file TEMPLATE DESTINATION`: a new file, `TEMPLATE` rendered to `DESTINATION`;
/// - `insert TEMPLATE FILE MARKER`: `TEMPLATE` rendered and inserted in the existing `FILE`
///   above the line holding `// MARKER`;
/// - `import MODULE FILE`: `import MODULE` added to `FILE`'s imports, in sorted order;
/// - `module NAME`: a module the new code adds (its name must be free);
/// - `services FILE`: where `--services` names are looked up (`let x: any XService` lines).
struct TemplateMap: Equatable {
  /// A new file.
  struct NewFile: Equatable {
    /// The template, relative to the kind's folder.
    var template: String
    /// Where it goes, relative to the project root.
    var destination: String
  }

  /// A change to an existing file.
  enum Edit: Equatable {
    /// A rendered template inserted above a marker.
    case insert(template: String, file: String, marker: String)
    /// An import added.
    case addImport(module: String, file: String)

    /// The file it changes.
    var file: String {
      switch self {
      case .insert(_, let file, _), .addImport(_, let file): file
      }
    }
  }

  /// The new files, in order.
  var files: [NewFile] = []
  /// The edits, in order.
  var edits: [Edit] = []
  /// The modules the new code adds.
  var modules: [String] = []
  /// Where `--services` names are looked up, if this kind takes services.
  var servicesFile: String?

  /// Reads a map, `name` being its path for error messages.
  init(source: String, name: String, values: [String: Template.Value]) throws(GeneratorError) {
    for (offset, rawLine) in source.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let trimmed = rawLine.trimmingCharacters(in: .whitespaces)
      guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
      let location = "\(name):\(offset + 1)"
      let line = try Template(source: trimmed, name: location).render(values)
      let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
      // A directive inside a section that dropped out (`{{#isNewFeature}}...`) is skipped.
      guard let directive = words.first else { continue }
      func expect(_ count: Int, _ shape: String) throws(GeneratorError) {
        guard words.count == count else {
          throw GeneratorError("\(location): expected `\(shape)`, found `\(line)`")
        }
      }
      switch directive {
      case "file":
        try expect(3, "file TEMPLATE DESTINATION")
        files.append(
          NewFile(
            template: try Self.checked(words[1], location),
            destination: try Self.checked(words[2], location)))
      case "insert":
        try expect(4, "insert TEMPLATE FILE MARKER")
        edits.append(
          .insert(
            template: try Self.checked(words[1], location),
            file: try Self.checked(words[2], location),
            marker: words[3]))
      case "import":
        try expect(3, "import MODULE FILE")
        edits.append(.addImport(module: words[1], file: try Self.checked(words[2], location)))
      case "module":
        try expect(2, "module NAME")
        modules.append(words[1])
      case "services":
        try expect(2, "services FILE")
        servicesFile = try Self.checked(words[1], location)
      default:
        throw GeneratorError(
          "\(location): unknown directive \"\(directive)\" (file, insert, import, module, services; "
            + "see Templates/README.md)")
      }
    }
  }

  /// `path` if it stays inside the project: relative, with no `..` or empty component.
  private static func checked(_ path: String, _ location: String) throws(GeneratorError) -> String {
    let components = path.split(separator: "/", omittingEmptySubsequences: false)
    guard !path.hasPrefix("/"),
      !components.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." })
    else {
      throw GeneratorError(
        "\(location): \"\(path)\" must be a path inside the project (relative, without . or ..)")
    }
    return path
  }
}
