import Foundation

/// Writes the Swift data models of an ``APIDescription``: a `Codable, Sendable, Equatable`
/// struct per object schema (`Task` is `TaskModel`), an enum per text enumeration (with a case
/// for values this version does not know, so a server adding one breaks no app), an enum with
/// associated values per `oneOf`, a `typealias` per other named schema; each with a `sample`
/// value for stubs, previews and tests.
struct ModelWriter {
  /// A Swift type for a schema, and a sample value of it.
  struct TypeRef {
    /// The type, without `?`.
    var name: String
    /// Whether `nil` is a value too.
    var isOptional: Bool
    /// A Swift expression of a sample value.
    var sample: String
    /// The named or nested type whose `sample` the sample uses, if any.
    var dependency: String?
    /// Whether the sample is a value built of other types (a `nil` is used for it where a
    /// value is optional, so samples never chase each other around).
    var isComposite: Bool

    /// The declared type: `name` or `name?`.
    var declared: String { isOptional ? name + "?" : name }
  }

  /// Where the types of inline schemas go: nested in a type, or at the top level.
  struct Scope {
    /// The qualified name of the enclosing type (`TaskModel.Owner`); empty at the top level.
    var owner: String
    /// The nested declarations written so far.
    var declarations: [String] = []
    /// The nested names taken.
    var names: Set<String> = []
  }

  /// Each named schema's Swift type.
  private(set) var typeNames: [String: String] = [:]
  private let schemas: [String: APIDescription.Schema]
  /// The top-level declarations, in order.
  private(set) var declarations: [String] = []
  /// Whether some schema is any JSON value (`JSONValue` is then declared).
  private(set) var usesJSONValue = false
  /// Whether some property is stored out of line (`Indirect` is then declared).
  private(set) var usesIndirect = false
  /// The named schema whose declaration is being written.
  private var currentSchema: String?
  /// The named object schemas each named schema holds directly (not in a list, a dictionary
  /// or a `oneOf`, whose enum is `indirect`), through aliases and nested inline objects.
  private var directHolds: [String: Set<String>] = [:]
  /// The structs each type holds directly (not in a list or a dictionary).
  private var holds: [String: Set<String>] = [:]
  /// The types whose samples each type's sample uses.
  private var sampleUses: [String: Set<String>] = [:]
  /// The struct types (qualified names).
  private var structs: Set<String> = []
  /// The `typealias` schemas' types, written on first use.
  private var aliases: [String: TypeRef] = [:]
  private var aliasesBeingWritten: [String] = []
  /// For a variant of a `oneOf` with a discriminator (by type), its property and the first
  /// value that names it.
  private var discriminatorSamples: [String: (property: String, value: String)] = [:]

  /// Calls `found` with each discriminator in `schema`, nested ones too.
  private static func collectDiscriminators(
    in schema: APIDescription.Schema, _ found: (APIDescription.Discriminator) -> Void
  ) {
    switch schema {
    case .oneOf(let variants, let discriminator):
      if let discriminator { found(discriminator) }
      for variant in variants { collectDiscriminators(in: variant, found) }
    case .array(let inner), .map(let inner), .nullable(let inner):
      collectDiscriminators(in: inner, found)
    case .object(let object):
      for property in object.properties { collectDiscriminators(in: property.schema, found) }
    default: break
    }
  }

  /// What each `typealias` stands for, by its name.
  private var aliasTargets: [String: TypeRef] = [:]

  /// `reference` with a `typealias` (a named text, number, list...) replaced by what it
  /// stands for: how a parameter of it is written into a request.
  func unaliased(_ reference: TypeRef) -> TypeRef {
    var result = reference
    if let target = aliasTargets[reference.name] {
      result = target
      result.isOptional = reference.isOptional || target.isOptional
    }
    // A list of aliases (`[SnowflakeModel]`, a named text): a list of what they stand for.
    if result.name.hasPrefix("["), !result.name.hasPrefix("[String:"), result.name.hasSuffix("]") {
      let element = String(result.name.dropFirst().dropLast())
      let isOptional = element.hasSuffix("?")
      let bare = isOptional ? String(element.dropLast()) : element
      if let target = aliasTargets[bare], !target.name.hasPrefix("[") {
        result.name = "[" + target.name + (isOptional ? "?" : "") + "]"
      }
    }
    return result
  }

  /// The top-level types that have a `sample`, in order.
  private(set) var sampledTypes: [String] = []
  /// The first top-level enumeration, if any.
  private(set) var firstEnumeration: String?
  /// The top-level types written for inline schemas (an operation's body, an alias's items).
  private var topLevelNames: Set<String> = []

  /// Names each schema of `description` and writes their declarations.
  init(_ description: APIDescription, prefix: String = "") throws(GeneratorError) {
    schemas = Dictionary(
      description.schemas.map { ($0.name, $0.schema) }, uniquingKeysWith: { first, _ in first })
    var owners: [String: String] = [:]
    for (name, _) in description.schemas {
      let base = prefix + SwiftNames.upperCamel(name)
      let stem = base.hasSuffix("Model") ? String(base.dropLast(5)) : base
      // Schemas whose names meet in Swift (`Folder--Mini` and `Folder_Mini`) are told apart by
      // a number.
      var type = stem + "Model"
      var counter = 2
      while owners[type] != nil {
        // (`Model2`, never `2Model`, for a schema named `Model` itself.)
        type = stem.isEmpty ? "Model\(counter)" : stem + String(counter) + "Model"
        counter += 1
      }
      owners[type] = name
      typeNames[name] = type
    }
    // A variant of a oneOf with a discriminator: its sample names it.
    var everySchema = description.schemas.map(\.schema)
    for operation in description.operations {
      everySchema += operation.parameters.map(\.schema)
      if case .json(let schema)? = operation.body { everySchema.append(schema) }
      if case .json(let schema) = operation.response { everySchema.append(schema) }
    }
    for schema in everySchema {
      Self.collectDiscriminators(in: schema) { discriminator in
        for entry in discriminator.mapping.reversed() {
          guard let type = typeNames[entry.schema] else { continue }
          discriminatorSamples[type] = (discriminator.property, entry.value)
        }
      }
    }
    for (name, schema) in description.schemas {
      directHolds[name] = heldDirectly(by: schema)
    }
    for (name, schema) in description.schemas {
      guard let type = typeNames[name] else { continue }
      currentSchema = name
      defer { currentSchema = nil }
      switch schema {
      case .object, .enumeration, .oneOf:
        var scope = Scope(owner: "")
        declarations.append(
          try declaration(of: schema, named: type, qualified: type, summary: nil, in: &scope))
      case .nullable(let inner) where Self.isDeclared(inner):
        // 3.0's `nullable: true` beside an object (or an enumeration): the type itself, and
        // every use of it optional.
        var scope = Scope(owner: "")
        declarations.append(
          try declaration(of: inner, named: type, qualified: type, summary: nil, in: &scope))
      default:
        _ = try alias(name)
      }
    }
  }

  /// Whether `schema` is written as a declaration of its own (a struct or an enum).
  static func isDeclared(_ schema: APIDescription.Schema) -> Bool {
    switch schema {
    case .object, .enumeration, .oneOf: true
    default: false
    }
  }

  /// The named object schemas a value of `schema` holds directly: a struct holding one holds
  /// its storage inline (a list, a dictionary or an `indirect` enum does not).
  private func heldDirectly(
    by schema: APIDescription.Schema, depth: Int = 0, through aliases: Set<String> = []
  ) -> Set<String> {
    guard depth < 64 else { return [] }
    switch schema {
    case .reference(let name):
      guard let target = schemas[name] else { return [] }
      switch target {
      case .object: return [name]
      case .nullable(.object): return [name]  // 3.0's `nullable: true` object: a struct too
      // An alias (of another schema): what it stands for, each alias followed once (a shared
      // one is not walked again and again).
      case .nullable, .reference:
        guard !aliases.contains(name) else { return [] }
        return heldDirectly(by: target, depth: depth + 1, through: aliases.union([name]))
      default: return []
      }
    case .nullable(let inner): return heldDirectly(by: inner, depth: depth + 1, through: aliases)
    case .object(let object):
      return object.properties.reduce(into: []) { result, property in
        result.formUnion(heldDirectly(by: property.schema, depth: depth + 1, through: aliases))
      }
    default: return []
    }
  }

  /// Whether the named schema `start` leads back to `target` through what each holds
  /// directly (itself included).
  private func reaches(_ start: String, _ target: String) -> Bool {
    var seen: Set<String> = []
    var pending = [start]
    while let name = pending.popLast() {
      if name == target { return true }
      guard seen.insert(name).inserted else { continue }
      pending += directHolds[name] ?? []
    }
    return false
  }

  /// Whether a property of `schema` in the schema being written must be stored out of line:
  /// it holds a struct that holds this one back (a tree's `parent`), which no struct can
  /// hold inline.
  private func mustBox(_ schema: APIDescription.Schema) -> Bool {
    guard let currentSchema else { return false }
    return heldDirectly(by: schema).contains { reaches($0, currentSchema) }
  }

  /// The declaration of the named type `type` for `schema` (an object, an enumeration or a
  /// `oneOf`), at the top level or nested (`qualified` is its full name).
  private mutating func declaration(
    of schema: APIDescription.Schema, named type: String, qualified: String, summary: String?,
    in scope: inout Scope
  ) throws(GeneratorError) -> String {
    if !qualified.contains(".") {
      sampledTypes.append(type)
      if case .enumeration = schema, firstEnumeration == nil { firstEnumeration = type }
    }
    switch schema {
    case .object(let object):
      return try structDeclaration(object, named: type, qualified: qualified)
    case .enumeration(let values):
      return try enumDeclaration(values, named: type, summary: summary)
    case .oneOf(let variants, let discriminator):
      return try oneOfDeclaration(
        variants, discriminator: discriminator, named: type, qualified: qualified,
        summary: summary)
    default:
      throw GeneratorError("internal: \(type) is not a declaration")
    }
  }

  /// The type `schema` has at `name` (a property's, a parameter's, a body's), declaring the
  /// types of inline schemas in `scope`.
  ///
  /// - Parameter isDirect: whether a value of the enclosing type holds it directly (not in a
  ///   list or a dictionary): a struct held so cannot hold its holder back.
  mutating func type(
    of schema: APIDescription.Schema, name: String, summary: String? = nil,
    in scope: inout Scope, isDirect: Bool = true
  ) throws(GeneratorError) -> TypeRef {
    switch schema {
    case .reference(let schemaName):
      guard let type = typeNames[schemaName], let target = schemas[schemaName] else {
        throw GeneratorError("internal: no type for the schema \(schemaName)")
      }
      switch target {
      case .object, .enumeration, .oneOf:
        if isDirect, case .object = target { holds[scope.owner, default: []].insert(type) }
        return TypeRef(
          name: type, isOptional: false, sample: "\(type).sample", dependency: type,
          isComposite: true)
      case .nullable(let inner) where Self.isDeclared(inner):
        if isDirect, case .object = inner { holds[scope.owner, default: []].insert(type) }
        return TypeRef(
          name: type, isOptional: true, sample: "\(type).sample", dependency: type,
          isComposite: true)
      default:
        var reference = try alias(schemaName)
        reference.name = type
        return reference
      }
    case .string(let format):
      if format == "date-time" {
        return TypeRef(
          name: "Date", isOptional: false, sample: "Date(timeIntervalSince1970: 0)",
          dependency: nil, isComposite: false)
      }
      return TypeRef(
        name: "String", isOptional: false, sample: "\"\(SwiftNames.literal(name))\"",
        dependency: nil, isComposite: false)
    case .integer(let format):
      let type = format == "int64" ? "Int64" : format == "int32" ? "Int32" : "Int"
      return TypeRef(
        name: type, isOptional: false, sample: "1", dependency: nil, isComposite: false)
    case .number:
      return TypeRef(
        name: "Double", isOptional: false, sample: "1.5", dependency: nil, isComposite: false)
    case .boolean:
      return TypeRef(
        name: "Bool", isOptional: false, sample: "true", dependency: nil, isComposite: false)
    case .any:
      usesJSONValue = true
      return TypeRef(
        name: "JSONValue", isOptional: false, sample: ".null", dependency: nil, isComposite: true)
    case .nullable(let inner):
      var reference = try type(
        of: inner, name: name, summary: summary, in: &scope, isDirect: isDirect)
      reference.isOptional = true
      return reference
    case .array(let element):
      let item = try type(of: element, name: name, in: &scope, isDirect: false)
      return TypeRef(
        name: "[\(item.declared)]", isOptional: false,
        sample: item.isComposite ? "[]" : "[\(item.sample)]", dependency: nil, isComposite: false)
    case .map(let value):
      let item = try type(of: value, name: name, in: &scope, isDirect: false)
      return TypeRef(
        name: "[String: \(item.declared)]", isOptional: false, sample: "[:]", dependency: nil,
        isComposite: false)
    case .object, .enumeration, .oneOf:
      var base = SwiftNames.upperCamel(name)
      if SwiftNames.reservedTypes.contains(base) || base == "Sample" { base += "Value" }
      var nested = base
      var counter = 2
      // Never the name of a type it is nested in (inside it, that name would mean itself).
      let enclosing = Set(scope.owner.split(separator: ".").map(String.init))
      while scope.names.contains(nested) || enclosing.contains(nested)
        || (scope.owner.isEmpty && isTaken(nested))
      {
        nested = base + String(counter)
        counter += 1
      }
      scope.names.insert(nested)
      if scope.owner.isEmpty { topLevelNames.insert(nested) }
      let qualified = scope.owner.isEmpty ? nested : scope.owner + "." + nested
      if isDirect, case .object = schema { holds[scope.owner, default: []].insert(qualified) }
      scope.declarations.append(
        try declaration(
          of: schema, named: nested, qualified: qualified, summary: summary, in: &scope))
      return TypeRef(
        name: nested, isOptional: false, sample: "\(nested).sample", dependency: qualified,
        isComposite: true)
    }
  }

  /// The type `schema` has at the top level (an operation's body, answer or parameter), its
  /// inline schemas declared as top-level types named after `name`.
  mutating func topLevelType(of schema: APIDescription.Schema, name: String)
    throws(GeneratorError) -> TypeRef
  {
    var scope = Scope(owner: "")
    let reference = try type(of: schema, name: name, in: &scope)
    declarations += scope.declarations
    return reference
  }

  /// A top-level name for a type another writer declares: `base`, or `base` numbered if a
  /// type has it; taken from then on.
  mutating func reserveTopLevelName(_ base: String) -> String {
    var name = base
    var counter = 2
    while isTaken(name) {
      name = base + String(counter)
      counter += 1
    }
    topLevelNames.insert(name)
    return name
  }

  /// Whether a top-level type already has the name `type`.
  private func isTaken(_ type: String) -> Bool {
    typeNames.values.contains(type) || topLevelNames.contains(type)
      || SwiftNames.reservedTypes.contains(type)
  }

  /// A named schema that is neither an object, an enumeration nor a `oneOf`: a `typealias`
  /// (written the first time it is used).
  private mutating func alias(_ name: String) throws(GeneratorError) -> TypeRef {
    if let reference = aliases[name] { return reference }
    guard let type = typeNames[name], let schema = schemas[name] else {
      throw GeneratorError("internal: no type for the schema \(name)")
    }
    guard !aliasesBeingWritten.contains(name) else {
      throw GeneratorError(
        "the schema \(name) is itself, through \(aliasesBeingWritten.joined(separator: " → ")); "
          + "Swift cannot express it")
    }
    aliasesBeingWritten.append(name)
    var scope = Scope(owner: "")
    let target = try self.type(of: schema, name: type + "Item", in: &scope)
    aliasesBeingWritten.removeLast()
    declarations += scope.declarations
    declarations.append(
      "/// The \(SwiftNames.comment(name)) schema.\npublic typealias \(type) = \(target.declared)")
    aliases[name] = target
    aliasTargets[type] = target
    return target
  }

  // MARK: Declarations

  private mutating func structDeclaration(
    _ object: APIDescription.Object, named type: String, qualified: String
  ) throws(GeneratorError) -> String {
    structs.insert(qualified)
    var scope = Scope(owner: qualified)
    var properties:
      [(json: String, swift: String, type: TypeRef, isRequired: Bool, isBoxed: Bool, doc: String)] =
        []
    var taken: [String: String] = [:]
    for property in object.properties {
      // Names that meet in Swift (`created_at` and `createdAt`) are told apart by a number.
      let base = SwiftNames.lowerCamel(property.name)
      var swift = base
      var counter = 2
      while taken[swift] != nil {
        swift = base + String(counter)
        counter += 1
      }
      taken[swift] = property.name
      let isBoxed = mustBox(property.schema)
      var reference = try self.type(
        of: property.schema, name: property.name, summary: property.summary, in: &scope,
        isDirect: !isBoxed)
      if !property.isRequired { reference.isOptional = true }
      if isBoxed { usesIndirect = true }
      properties.append(
        (
          property.name, swift, reference, property.isRequired, isBoxed,
          SwiftNames.documentation(
            property.summary, fallback: "Its `\(property.name)`.", indent: "  ")
        ))
    }
    // The sample: required values in full; optional ones too unless they are built of other
    // types (then `nil`, so samples never use each other in a loop).
    var sampleArguments: [String] = []
    for property in properties {
      let reference = property.type
      if let named = discriminatorSamples[qualified], named.property == property.json {
        // The discriminator's value that names this variant, so the sample reads back as it.
        let text = "\"\(SwiftNames.literal(named.value))\""
        let value = reference.name == "String" ? text : "\(reference.name)(rawValue: \(text))"
        sampleArguments.append("\(SwiftNames.label(property.swift)): \(value)")
        continue
      }
      if reference.isOptional, reference.isComposite {
        sampleArguments.append("\(SwiftNames.label(property.swift)): nil")
        continue
      }
      if let dependency = reference.dependency {
        sampleUses[qualified, default: []].insert(resolve(dependency, from: qualified))
      }
      sampleArguments.append("\(SwiftNames.label(property.swift)): \(reference.sample)")
    }
    var lines: [String] = [
      SwiftNames.documentation(
        object.summary,
        fallback:
          "The \(type.hasSuffix("Model") ? String(type.dropLast(5)) : type) schema, as the API "
          + "sends it.", indent: ""),
      "public struct \(type): Codable, Sendable, Equatable {",
    ]
    for property in properties {
      lines.append(property.doc)
      if property.isBoxed {
        lines.append("  ///")
        lines.append("  /// Stored out of line: it holds a value that holds this one.")
        lines.append("  @Indirect")
      }
      lines.append("  public var \(SwiftNames.escaped(property.swift)): \(property.type.declared)")
    }
    if !properties.isEmpty { lines.append("") }
    lines.append("  /// Creates a value.")
    let parameters = properties.map {
      "\(SwiftNames.escaped($0.swift)): \($0.type.declared)\($0.type.isOptional ? " = nil" : "")"
    }
    lines.append("  public init(\(parameters.joined(separator: ", "))) {")
    for property in properties {
      let name = SwiftNames.escaped(property.swift)
      lines.append("    self.\(name) = \(name)")
    }
    lines.append("  }")
    if properties.contains(where: { $0.json != $0.swift }) {
      lines.append("")
      lines.append("  private enum CodingKeys: String, CodingKey {")
      for property in properties {
        let name = SwiftNames.escaped(property.swift)
        lines.append(
          property.json == property.swift
            ? "    case \(name)" : "    case \(name) = \"\(SwiftNames.literal(property.json))\"")
      }
      lines.append("  }")
    }
    lines.append("")
    lines.append("  /// A sample value, for stubs, previews and tests.")
    lines.append("  public static var sample: Self {")
    lines.append("    Self(\(sampleArguments.joined(separator: ", ")))")
    lines.append("  }")
    for declaration in scope.declarations {
      lines.append("")
      lines.append(Self.indented(declaration))
    }
    lines.append("}")
    return lines.joined(separator: "\n")
  }

  /// The qualified name `name` means inside `qualified`: a nested type's name is relative to
  /// its owner.
  private func resolve(_ name: String, from qualified: String) -> String {
    if typeNames.values.contains(name) || name.contains(".") { return name }
    return qualified.isEmpty ? name : qualified + "." + name
  }

  private func enumDeclaration(_ values: [String], named type: String, summary: String?)
    throws(GeneratorError) -> String
  {
    var cases: [(name: String, value: String)] = []
    for value in values {
      var name = SwiftNames.lowerCamel(value)
      // Names the enum's own members take.
      if ["sample", "rawValue", "init", "self", "Type"].contains(name) { name += "Value" }
      // `undocumented` is the case for values the app does not know.
      if name == "undocumented" { name += "Value" }
      // Values that meet in Swift (`ASC` and `asc`, `user` and `-user`) are told apart by a
      // number; a value written twice is one case.
      if cases.contains(where: { $0.value == value }) { continue }
      let base = name
      var counter = 2
      while cases.contains(where: { $0.name == name }) {
        name = base + String(counter)
        counter += 1
      }
      cases.append((name, value))
    }
    var lines = [
      SwiftNames.documentation(
        summary, fallback: "The values of \(type) the API describes.", indent: ""),
      "public enum \(type): Codable, Sendable, Hashable {",
    ]
    for entry in cases {
      lines.append("  /// `\(SwiftNames.literal(entry.value))`.")
      lines.append("  case \(SwiftNames.escaped(entry.name))")
    }
    lines += [
      "  /// A value this version of the app does not know (the server may be newer).",
      "  case undocumented(String)",
      "",
      "  /// The value as the API writes it.",
      "  public var rawValue: String {",
      "    switch self {",
    ]
    for entry in cases {
      lines.append(
        "    case .\(SwiftNames.escaped(entry.name)): \"\(SwiftNames.literal(entry.value))\"")
    }
    lines += [
      "    case .undocumented(let value): value",
      "    }",
      "  }",
      "",
      "  /// The case of `rawValue`: ``undocumented(_:)`` for one the API did not describe.",
      "  public init(rawValue: String) {",
      "    switch rawValue {",
    ]
    for entry in cases {
      lines.append(
        "    case \"\(SwiftNames.literal(entry.value))\": self = .\(SwiftNames.escaped(entry.name))"
      )
    }
    lines += [
      "    default: self = .undocumented(rawValue)",
      "    }",
      "  }",
      "",
      "  /// Reads the value from its text.",
      "  public init(from decoder: any Decoder) throws {",
      "    self.init(rawValue: try decoder.singleValueContainer().decode(String.self))",
      "  }",
      "",
      "  /// Writes the value as its text.",
      "  public func encode(to encoder: any Encoder) throws {",
      "    var container = encoder.singleValueContainer()",
      "    try container.encode(rawValue)",
      "  }",
      "",
      "  /// A sample value, for stubs, previews and tests.",
      "  public static var sample: Self { .\(SwiftNames.escaped(cases[0].name)) }",
      "}",
    ]
    return lines.joined(separator: "\n")
  }

  private mutating func oneOfDeclaration(
    _ variants: [APIDescription.Schema], discriminator: APIDescription.Discriminator?,
    named type: String, qualified: String, summary: String?
  ) throws(GeneratorError) -> String {
    var scope = Scope(owner: qualified)
    var cases: [(name: String, type: TypeRef, schema: String?)] = []
    for (index, variant) in variants.enumerated() {
      var base: String
      var schemaName: String?
      switch variant {
      case .reference(let name):
        base = SwiftNames.lowerCamel(name)
        schemaName = name
      case .object where discriminator != nil:
        // An inline variant, named in the discriminator's mapping by its place.
        base = "variant\(index + 1)"
        schemaName = "#\(index)"
      case .string: base = "string"
      case .integer: base = "integer"
      case .number: base = "number"
      case .boolean: base = "boolean"
      case .array: base = "array"
      case .map: base = "dictionary"
      default: base = "variant\(index + 1)"
      }
      if base.hasSuffix("Model"), base.count > 5 { base = String(base.dropLast(5)) }
      var name = base
      var counter = 2
      while cases.contains(where: { $0.name == name }) || name == "sample" {
        name = base + String(counter)
        counter += 1
      }
      if let discriminator, let schemaName, schemaName.hasPrefix("#"),
        let first = discriminator.mapping.first(where: { $0.schema == schemaName })
      {
        // An inline variant's sample names it by the discriminator's value, as a `$ref`'d
        // one's does, so it reads back as itself.
        discriminatorSamples[qualified + ".Variant\(index + 1)"] = (
          discriminator.property, first.value
        )
      }
      let reference = try self.type(
        of: variant, name: "Variant\(index + 1)", in: &scope, isDirect: false)
      cases.append((name, reference, schemaName))
    }
    if let dependency = cases[0].type.dependency {
      sampleUses[qualified, default: []].insert(resolve(dependency, from: qualified))
    }
    let names = cases.map(\.type.declared).joined(separator: ", ")
    var lines = [
      SwiftNames.documentation(summary, fallback: "One of \(names).", indent: ""),
      "public indirect enum \(type): Codable, Sendable, Equatable {",
    ]
    for entry in cases {
      lines.append("  /// A `\(entry.type.declared)`.")
      lines.append("  case \(SwiftNames.escaped(entry.name))(\(entry.type.declared))")
    }
    lines.append("")
    if let discriminator {
      lines += [
        "  private enum DiscriminatorKey: String, CodingKey {",
        "    case value = \"\(SwiftNames.literal(discriminator.property))\"",
        "  }",
        "",
        "  /// Reads the variant its `\(SwiftNames.comment(discriminator.property))` names.",
        "  public init(from decoder: any Decoder) throws {",
        "    let container = try decoder.container(keyedBy: DiscriminatorKey.self)",
        "    let name = try container.decode(String.self, forKey: .value)",
        "    let single = try decoder.singleValueContainer()",
        "    switch name {",
      ]
      for entry in cases {
        let values = discriminator.mapping.filter { $0.schema == entry.schema }
          .map { "\"\(SwiftNames.literal($0.value))\"" }
        guard !values.isEmpty else { continue }
        lines.append(
          "    case \(values.joined(separator: ", ")): "
            + "self = .\(SwiftNames.escaped(entry.name))(try single.decode(\(entry.type.declared).self))"
        )
      }
      lines += [
        "    default:",
        "      throw DecodingError.dataCorruptedError(",
        "        forKey: .value, in: container, debugDescription: \"no variant is named \\(name)\")",
        "    }",
        "  }",
      ]
    } else {
      lines.append("  /// Reads the first variant the value is.")
      lines.append("  public init(from decoder: any Decoder) throws {")
      lines.append("    let single = try decoder.singleValueContainer()")
      for (index, entry) in cases.enumerated() {
        let keyword = index == 0 ? "    if" : "    } else if"
        lines.append("\(keyword) let value = try? single.decode(\(entry.type.declared).self) {")
        lines.append("      self = .\(SwiftNames.escaped(entry.name))(value)")
      }
      lines += [
        "    } else {",
        "      throw DecodingError.dataCorrupted(",
        "        .init(codingPath: decoder.codingPath, debugDescription: \"matches no variant of \(type)\"))",
        "    }",
        "  }",
      ]
    }
    lines += [
      "",
      "  /// Writes the variant's value.",
      "  public func encode(to encoder: any Encoder) throws {",
      "    var single = encoder.singleValueContainer()",
      "    switch self {",
    ]
    for entry in cases {
      lines.append(
        "    case .\(SwiftNames.escaped(entry.name))(let value): try single.encode(value)")
    }
    lines += [
      "    }",
      "  }",
      "",
      "  /// A sample value, for stubs, previews and tests.",
      "  public static var sample: Self { .\(SwiftNames.escaped(cases[0].name))(\(cases[0].type.sample)) }",
    ]
    for declaration in scope.declarations {
      lines.append("")
      lines.append(Self.indented(declaration))
    }
    lines.append("}")
    return lines.joined(separator: "\n")
  }

  /// `text` indented by two spaces (blank lines stay empty).
  static func indented(_ text: String) -> String {
    // Bytes, not characters (a large document's models are long); the text holds no `\r`.
    var result = ""
    result.reserveCapacity(text.utf8.count + text.utf8.count / 16)
    var isFirst = true
    for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      if !isFirst { result += "\n" }
      isFirst = false
      if !line.isEmpty { result += "  " + Substring(line) }
    }
    return result
  }

  // MARK: Checks

  /// Refuses what Swift cannot build: a struct holding itself (directly or through other
  /// structs, not through a list), and samples that use each other in a loop.
  func checkCycles() throws(GeneratorError) {
    if let cycle = Self.cycle(in: holds.mapValues { $0.filter(structs.contains) }) {
      throw GeneratorError(
        "a cycle Swift cannot express: \(cycle.joined(separator: " holds ")) (a struct cannot "
          + "hold itself); make one of those properties a list, or describe it with oneOf")
    }
    if let cycle = Self.cycle(in: sampleUses) {
      throw GeneratorError(
        "no sample value can be made: \(cycle.joined(separator: " needs ")), each required "
          + "(make one of those properties optional)")
    }
  }

  /// A path that comes back to where it started in `graph`, if there is one.
  static func cycle(in graph: [String: Set<String>]) -> [String]? {
    var state: [String: Int] = [:]  // 1 visiting, 2 done
    var path: [String] = []
    func visit(_ node: String) -> [String]? {
      if state[node] == 2 { return nil }
      if state[node] == 1 {
        guard let start = path.firstIndex(of: node) else { return nil }
        return Array(path[start...]) + [node]
      }
      state[node] = 1
      path.append(node)
      for next in (graph[node] ?? []).sorted() {
        if let found = visit(next) { return found }
      }
      path.removeLast()
      state[node] = 2
      return nil
    }
    for node in graph.keys.sorted() {
      if let found = visit(node) { return found }
    }
    return nil
  }

  /// `Indirect`, declared when some property is stored out of line.
  static let indirectDeclaration = """
    /// A property stored out of line, so that a model can hold a value of its own type (a
    /// comment's parent, a tree's node): Swift gives every struct a fixed size, and a box has one.
    @propertyWrapper
    public struct Indirect<Value: Sendable>: Sendable {
      private indirect enum Storage: Sendable { case value(Value) }
      private var storage: Storage

      /// Stores `wrappedValue`.
      public init(wrappedValue: Value) { storage = .value(wrappedValue) }

      /// The value.
      public var wrappedValue: Value {
        get {
          switch storage {
          case .value(let value): value
          }
        }
        set { storage = .value(newValue) }
      }
    }

    extension Indirect: Equatable where Value: Equatable {
      /// Whether the values are equal.
      public static func == (left: Self, right: Self) -> Bool {
        left.wrappedValue == right.wrappedValue
      }
    }

    extension Indirect: Decodable where Value: Decodable {
      /// Reads the value as if it were stored inline.
      public init(from decoder: any Decoder) throws {
        self.init(wrappedValue: try Value(from: decoder))
      }
    }

    extension Indirect: Encodable where Value: Encodable {
      /// Writes the value as if it were stored inline.
      public func encode(to encoder: any Encoder) throws {
        try wrappedValue.encode(to: encoder)
      }
    }

    extension KeyedDecodingContainer {
      /// An optional property stored out of line reads as `nil` when the JSON has no such key.
      public func decode<Wrapped: Decodable & Sendable>(
        _ type: Indirect<Wrapped?>.Type, forKey key: Key
      ) throws -> Indirect<Wrapped?> {
        Indirect(wrappedValue: try decodeIfPresent(Wrapped.self, forKey: key))
      }
    }

    extension KeyedEncodingContainer {
      /// An optional property stored out of line writes no key when it is `nil`.
      public mutating func encode<Wrapped: Encodable & Sendable>(
        _ value: Indirect<Wrapped?>, forKey key: Key
      ) throws {
        try encodeIfPresent(value.wrappedValue, forKey: key)
      }
    }
    """

  /// `JSONValue`, declared when some schema is any JSON value.
  static let jsonValueDeclaration = """
    /// Any JSON value, for what the API leaves untyped.
    public enum JSONValue: Codable, Sendable, Equatable {
      /// `null`.
      case null
      /// `true` or `false`.
      case bool(Bool)
      /// A number.
      case number(Double)
      /// Text.
      case string(String)
      /// A list.
      case array([JSONValue])
      /// An object.
      case object([String: JSONValue])

      /// A sample value, for stubs, previews and tests.
      public static var sample: Self { .string("sample") }

      /// Reads any JSON value.
      public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
          self = .null
        } else if let value = try? container.decode(Bool.self) {
          self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
          self = .number(value)
        } else if let value = try? container.decode(String.self) {
          self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
          self = .array(value)
        } else {
          self = .object(try container.decode([String: JSONValue].self))
        }
      }

      /// Writes the value.
      public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
      }
    }
    """
}
