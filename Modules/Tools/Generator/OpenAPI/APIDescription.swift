import Foundation

/// What `trellis-gen api` generates from: the operations of an OpenAPI 3.0 or 3.1 document and
/// the schemas they use, with every `$ref` resolved and every construct it cannot express
/// refused, named by where it is in the document (`paths./tasks.get.parameters[1]`).
struct APIDescription: Equatable {
  /// A JSON schema, as far as generated Swift can express it.
  indirect enum Schema: Equatable {
    /// A schema of `components/schemas`, by name.
    case reference(String)
    /// Text; `format` such as `date-time`, `uuid`, `byte`, `binary`.
    case string(format: String?)
    /// A whole number; `format` `int32` or `int64`.
    case integer(format: String?)
    /// A number; `format` `float` or `double`.
    case number(format: String?)
    /// `true` or `false`.
    case boolean
    /// A list.
    case array(Schema)
    /// An object whose keys are not known (`additionalProperties` only).
    case map(Schema)
    /// An object with named properties (written inline, or merged from `allOf`).
    case object(Object)
    /// Text from a fixed list.
    case enumeration([String])
    /// One of several schemas; with a discriminator, named by one of its properties.
    case oneOf([Schema], discriminator: Discriminator?)
    /// Any JSON value (a schema without a type).
    case any
    /// `null` allowed as well.
    case nullable(Schema)
  }

  /// An object schema's properties, in the document's order.
  struct Object: Equatable {
    /// One property.
    struct Property: Equatable {
      /// Its name in JSON.
      var name: String
      /// Its schema.
      var schema: Schema
      /// Whether it must be present.
      var isRequired: Bool
      /// Its description, if any.
      var summary: String?
    }
    /// The properties.
    var properties: [Property]
    /// The object's description, if any.
    var summary: String?
  }

  /// How a `oneOf` names its variant: the property, and each value's schema name.
  struct Discriminator: Equatable {
    /// The property holding the variant's name.
    var property: String
    /// Each value of the property and the schema it selects, in order.
    var mapping: [(value: String, schema: String)]

    static func == (left: Self, right: Self) -> Bool {
      left.property == right.property
        && left.mapping.map(\.value) == right.mapping.map(\.value)
        && left.mapping.map(\.schema) == right.mapping.map(\.schema)
    }
  }

  /// A parameter of an operation.
  struct Parameter: Equatable {
    /// Where it goes.
    enum Location: String, Equatable { case path, query, header }
    /// Its name in the request.
    var name: String
    /// Where it goes.
    var location: Location
    /// Whether it must be given.
    var isRequired: Bool
    /// Its schema (text, numbers, booleans, enumerations, or a list of them).
    var schema: Schema
    /// Its description, if any.
    var summary: String?
    /// How a list is written in a query (OpenAPI's `style` and `explode`): each element as an
    /// item of its own (`form`, exploded: the default), or one item whose elements are joined
    /// by a separator (`,` for `form` without explode, a space for `spaceDelimited`, `|` for
    /// `pipeDelimited`).
    var listSeparator: String?
    /// How a value that is not text, a number, a boolean, an enumeration or a list of them (an
    /// object, a dictionary, a `oneOf`, a list in a path or a header) is written: the Swift
    /// expression of its `ParameterStyle` (`.deepObject`, `.form(explode: true)`), else `nil`.
    var style: String?
    /// Whether the value is sent as JSON text (`content: application/json`).
    var isJSON = false
  }

  /// What an operation sends.
  enum Body: Equatable {
    /// A JSON value of the schema.
    case json(Schema)
    /// Bytes of a content type (`application/octet-stream`, `image/png`).
    case data(contentType: String)
    /// `multipart/form-data` parts.
    case multipart
    /// `application/x-www-form-urlencoded` fields.
    case form
  }

  /// What an operation answers with when it succeeds.
  enum Response: Equatable {
    /// Nothing to read (`204`, or no content described).
    case none
    /// A JSON value of the schema.
    case json(Schema)
    /// Bytes of another content type.
    case data
    /// Server-sent events (`text/event-stream`): not a repository's; `EventStreamClient`
    /// reads them.
    case eventStream
  }

  /// One operation: a method on a path.
  struct Operation: Equatable {
    /// Its `operationId`, or one made of its method and path.
    var id: String
    /// The tag it is generated under (its first).
    var tag: String
    /// `GET`, `POST`...
    var method: String
    /// Its path, with `{name}` for each path parameter.
    var path: String
    /// Its summary or description, if any.
    var summary: String?
    /// Its parameters: the path's, then its own (an operation's replaces the path's of the same
    /// name and location).
    var parameters: [Parameter]
    /// What it sends, if anything; `isBodyRequired` says whether it must.
    var body: Body?
    /// Whether the body must be given.
    var isBodyRequired: Bool
    /// What it answers.
    var response: Response
    /// The error answers whose JSON body the document types, in the order they are matched:
    /// exact statuses, then ranges (`4XX`), then `default`.
    var errorAnswers: [ErrorAnswer] = []
    /// Whether it needs the signed-in session (its `security`, or the document's).
    var requiresAuthentication: Bool
    /// The security schemes besides the session it needs (API keys, HTTP Basic), by name.
    var credentialSchemes: [String] = []
    /// Why its `security` cannot be met by what the app sends, when it cannot (it is then sent
    /// without credentials, and the output says so).
    var unmetSecurity: String?
    /// Where it is in the document, for messages.
    var location: String
  }

  /// An error answer the document types: a status (`404`), a range (`4XX`) or `default`
  /// (any status it names no other way), and the schema of its JSON body.
  struct ErrorAnswer: Equatable {
    /// `404`, `4XX` or `default`, as the document writes it (a range in capitals).
    var status: String
    /// The body's schema.
    var schema: Schema

    /// The statuses it stands for as a Swift `case` pattern (`404`, `400...499`), or `nil`
    /// for `default`.
    var pattern: String? {
      if let code = Int(status) { return String(code) }
      guard status.count == 3, status.hasSuffix("XX"), let first = Int(status.prefix(1)) else {
        return nil
      }
      return "\(first)00...\(first)99"
    }
  }

  /// A security scheme the document declares (`components.securitySchemes`), as the app sends it.
  enum SecurityScheme: Equatable {
    /// The session's bearer token (`http` `bearer`, `oauth2`, `openIdConnect`).
    case session
    /// An API key in a header or a query item of this name.
    case apiKey(header: Bool, name: String)
    /// HTTP Basic.
    case basic
    /// Something the app has no way to send (an API key in a cookie, `http` `digest`...).
    case unsupported(String)
  }

  /// The document's title.
  var title: String
  /// The OpenAPI version it declares.
  var version: String
  /// The operations, in the document's order.
  var operations: [Operation]
  /// The named schemas the operations use, directly or through other schemas, in the
  /// document's order.
  var schemas: [(name: String, schema: Schema)]
  /// The operations left out, each with why.
  var skipped: [String] = []
  /// The security schemes the operations need besides the session, by name.
  var credentialSchemes: [String: SecurityScheme] = [:]

  static func == (left: Self, right: Self) -> Bool {
    left.title == right.title && left.version == right.version
      && left.operations == right.operations
      && left.schemas.map(\.name) == right.schemas.map(\.name)
      && left.schemas.map(\.schema) == right.schemas.map(\.schema)
  }

  /// The HTTP methods an OpenAPI path item may hold, in the order generated.
  static let methods = ["get", "put", "post", "delete", "options", "head", "patch"]

  /// Reads `document`, keeping the operations of `tags` (all when empty).
  ///
  /// - Throws: ``GeneratorError`` naming where the document says what cannot be generated: not
  ///   OpenAPI 3.0 or 3.1, a `$ref` that resolves nowhere (or outside this document), a schema
  ///   or parameter it cannot express, two operations of one tag with one name.
  /// - Parameter keepsErrorSchemaUntyped: Whether an error answer whose body is the named
  ///   schema given stays untyped (its status a plain ``RepositoryError``): the project declares
  ///   that schema's type itself (the starter's `APIErrorModel` for an `Error` schema), and a
  ///   type for an error answer is not worth refusing the document for.
  init(
    _ document: DocumentValue, tags: [String] = [],
    keepsErrorSchemaUntyped: @escaping (String) -> Bool = { _ in false }
  ) throws(GeneratorError) {
    guard case .object(let root) = document else {
      throw GeneratorError("the document is not an OpenAPI object (it has no `openapi` key)")
    }
    guard let version = root["openapi"].flatMap(Self.text),
      version.hasPrefix("3.0") || version.hasPrefix("3.1")
    else {
      let found = root["swagger"] != nil ? "Swagger 2.0" : "no `openapi: 3.x` key"
      throw GeneratorError(
        "the document is not OpenAPI 3.0 or 3.1 (\(found)); convert it first (Swagger 2.0 "
          + "converts with common tools)")
    }
    self.version = version
    title = root["info"]?["title"]?.string ?? "API"
    var reader = SchemaReader(root: root, keepsErrorSchemaUntyped: keepsErrorSchemaUntyped)
    let globalSecurity = root["security"]?.array
    let schemes = Self.securitySchemes(root["components"]?["securitySchemes"])
    var operations: [Operation] = []
    var skipped: [String] = []
    var credentialSchemes: [String: SecurityScheme] = [:]
    for entry in root["paths"]?.object?.entries ?? [] {
      let path = entry.key
      guard let item = entry.value.object else {
        skipped.append("paths.\(path): not an object; its operations are left out")
        continue
      }
      let shared: [Parameter]
      do {
        shared =
          try item["parameters"].map { (value) throws(GeneratorError) in
            try reader.parameters(value, at: "paths.\(path).parameters")
          } ?? []
      } catch {
        skipped.append("\(path) (every operation): \(error.message)")
        continue
      }
      for method in Self.methods {
        guard let value = item[method] else { continue }
        let location = "paths.\(path).\(method)"
        // What one operation cannot express leaves that operation out, with why, and the
        // schemas it alone read with it; the others are generated.
        let before = reader
        do throws(GeneratorError) {
          guard let operation = value.object else {
            throw GeneratorError("\(location) is not an object")
          }
          let tag = operation["tags"]?.array?.first?.string ?? "Default"
          guard
            tags.isEmpty
              || tags.contains(where: {
                $0.lowercased() == tag.lowercased()
                  || SwiftNames.upperCamel($0) == SwiftNames.upperCamel(tag)
              })
          else {
            continue
          }
          if let read = try Self.operation(
            operation, method: method, path: path, tag: tag, shared: shared,
            globalSecurity: globalSecurity, schemes: schemes, reader: &reader)
          {
            operations.append(read)
            for name in read.credentialSchemes { credentialSchemes[name] = schemes[name] }
          } else {
            skipped.append(
              "\(method.uppercased()) \(path): a stream of server-sent events; read it with "
                + "EventStreamClient (see Modules/Network/Stream)")
          }
        } catch {
          reader = before
          skipped.append("\(method.uppercased()) \(path): \(error.message)")
        }
      }
    }
    if operations.isEmpty, !skipped.isEmpty, tags.isEmpty {
      throw GeneratorError(
        "no operation of the document could be generated:\n"
          + skipped.map { "  \($0)" }.joined(separator: "\n"))
    }
    if operations.isEmpty {
      throw GeneratorError(
        tags.isEmpty
          ? "the document describes no operation (its `paths` is empty)"
          : "no operation has the tag \(tags.joined(separator: ", ")); the document's tags: "
            + Set(
              (root["paths"]?.object?.entries ?? []).flatMap { entry in
                Self.methods.compactMap { entry.value[$0]?["tags"]?.array?.first?.string }
              }
            ).sorted().joined(separator: ", "))
    }
    self.operations = operations
    self.skipped = skipped
    self.credentialSchemes = credentialSchemes
    schemas = try reader.usedSchemas()
  }

  /// The document's security schemes, as the app sends them.
  private static func securitySchemes(_ value: DocumentValue?) -> [String: SecurityScheme] {
    var schemes: [String: SecurityScheme] = [:]
    for entry in value?.object?.entries ?? [] {
      let scheme = entry.value
      switch (scheme["type"]?.string, scheme["scheme"]?.string?.lowercased()) {
      case ("http", "bearer"), ("oauth2", _), ("openIdConnect", _):
        schemes[entry.key] = .session
      case ("http", "basic"):
        schemes[entry.key] = .basic
      case ("apiKey", _):
        let name = scheme["name"]?.string ?? ""
        switch scheme["in"]?.string {
        case "header" where !name.isEmpty: schemes[entry.key] = .apiKey(header: true, name: name)
        case "query" where !name.isEmpty: schemes[entry.key] = .apiKey(header: false, name: name)
        default:
          schemes[entry.key] = .unsupported(
            "an API key in a \(scheme["in"]?.string ?? "place it does not name")")
        }
      case (let type, let httpScheme):
        schemes[entry.key] = .unsupported(
          [type, httpScheme].compactMap { $0 }.joined(separator: " ").isEmpty
            ? "a scheme of no type"
            : "the \([type, httpScheme].compactMap { $0 }.joined(separator: " ")) scheme")
      }
    }
    return schemes
  }

  /// The operation `value` describes (`nil` for an event stream), its schemas read by `reader`.
  private static func operation(
    _ operation: DocumentObject, method: String, path: String, tag: String,
    shared: [Parameter], globalSecurity: [DocumentValue]?, schemes: [String: SecurityScheme],
    reader: inout SchemaReader
  ) throws(GeneratorError) -> Operation? {
    let location = "paths.\(path).\(method)"
    var parameters = shared
    for parameter in try operation["parameters"].map({ (value) throws(GeneratorError) in
      try reader.parameters(value, at: location + ".parameters")
    }) ?? [] {
      parameters.removeAll { $0.name == parameter.name && $0.location == parameter.location }
      parameters.append(parameter)
    }
    for name in placeholders(in: path)
    where !parameters.contains(where: { $0.name == name && $0.location == .path }) {
      throw GeneratorError(
        "\(location): the path has {\(name)} but no path parameter \"\(name)\" describes it")
    }
    for parameter in parameters where parameter.location == .path {
      guard placeholders(in: path).contains(parameter.name) else {
        throw GeneratorError(
          "\(location): the path parameter \"\(parameter.name)\" is not in the path \(path)")
      }
    }
    let (body, isBodyRequired) = try reader.body(
      operation["requestBody"], at: location + ".requestBody")
    let response = try reader.response(operation["responses"], at: location + ".responses")
    if response == .eventStream { return nil }
    let errorAnswers = reader.errorAnswers(operation["responses"], at: location + ".responses")
    let security = operation["security"]?.array ?? globalSecurity ?? []
    let (requiresAuthentication, credentials, unmet) = Self.credentials(
      for: security, schemes: schemes)
    let id = operation["operationId"]?.string ?? operationID(method: method, path: path)
    return Operation(
      id: id, tag: tag, method: method.uppercased(), path: path,
      summary: text(operation["summary"] ?? operation["description"] ?? .null),
      parameters: parameters, body: body, isBodyRequired: isBodyRequired,
      response: response, errorAnswers: errorAnswers,
      requiresAuthentication: requiresAuthentication,
      credentialSchemes: credentials, unmetSecurity: unmet, location: location)
  }

  /// What an operation with `security` sends: the session's token, the credentials of other
  /// schemes, or (none of its requirements met by what the app can send) nothing, and why.
  /// The first requirement the app can meet is the one sent; an empty requirement (`- {}`)
  /// makes credentials optional: none are sent. A scheme the document does not declare is
  /// taken for the session's (as before schemes were read).
  private static func credentials(
    for security: [DocumentValue], schemes: [String: SecurityScheme]
  ) -> (session: Bool, credentials: [String], unmet: String?) {
    guard !security.isEmpty, !security.contains(where: { $0.object?.entries.isEmpty == true })
    else { return (false, [], nil) }
    var reasons: [String] = []
    for requirement in security {
      let names = requirement.object?.keys ?? []
      var session = false
      var credentials: [String] = []
      var unmet: String?
      for name in names {
        switch schemes[name] ?? .session {
        case .session: session = true
        case .apiKey, .basic: credentials.append(name)
        case .unsupported(let what): unmet = "\(name) (\(what))"
        }
      }
      if let unmet {
        reasons.append(unmet)
        continue
      }
      return (session, credentials.sorted(), nil)
    }
    return (
      false, [],
      "its security needs \(reasons.joined(separator: " or ")), which the app cannot send; it is "
        + "sent without credentials"
    )
  }

  /// The `{name}` placeholders of `path`.
  static func placeholders(in path: String) -> [String] {
    path.matches(of: #/\{([^}/]+)\}/#).map { String($0.output.1) }
  }

  /// An id for an operation without `operationId`: `get /tasks/{id}` is `getTasksId`.
  static func operationID(method: String, path: String) -> String {
    let words = path.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    return method + words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
  }

  /// The text of a scalar (numbers too: `version: 3.1` in YAML is a number).
  static func text(_ value: DocumentValue) -> String? {
    switch value {
    case .string(let text): text
    case .int(let number): String(number)
    case .double(let number): String(number)
    case .bool(let flag): String(flag)
    default: nil
    }
  }
}

/// Reads schemas, parameters, bodies and responses, resolving `$ref`s, and remembers the named
/// schemas used so far.
private struct SchemaReader {
  let root: DocumentObject
  /// See ``APIDescription/init(_:tags:keepsErrorSchemaUntyped:)``.
  let keepsErrorSchemaUntyped: (String) -> Bool
  /// The named schemas used, in the order first met.
  private var used: [String] = []
  private var read: [String: APIDescription.Schema] = [:]
  /// The named schemas being read (a `$ref` to one of them is a recursive use).
  private var reading: [String] = []
  /// The named schemas whose properties an `allOf` is merging.
  private var merging: [String] = []
  /// The properties each `$ref`'d `allOf` part merges to, once worked out.
  private var mergedParts: [String: APIDescription.Object] = [:]
  /// What each `$ref`'d part of an `allOf` is, once worked out.
  private var partKinds: [String: PartKind] = [:]
  /// The schemas read at local `$ref`s outside `components/schemas`, by reference.
  private var pointed: [String: APIDescription.Schema] = [:]
  /// The named schemas that could not be read, with why.
  private var failed: [String: GeneratorError] = [:]
  /// How deep the schema being read is.
  private var depth = 0
  /// The deepest schema read.
  static let maximumDepth = 64

  init(root: DocumentObject, keepsErrorSchemaUntyped: @escaping (String) -> Bool) {
    self.root = root
    self.keepsErrorSchemaUntyped = keepsErrorSchemaUntyped
  }

  /// The component `#/components/<kind>/<name>` that `reference` names.
  private func component(_ reference: String, at location: String) throws(GeneratorError)
    -> (kind: String, name: String, value: DocumentValue)
  {
    let prefix = "#/components/"
    guard reference.hasPrefix(prefix) else {
      throw GeneratorError(
        "\(location): the $ref \"\(reference)\" points outside this document's components; "
          + "bundle the document into one file first")
    }
    let parts = reference.dropFirst(prefix.count).split(separator: "/", maxSplits: 1)
    guard parts.count == 2 else {
      throw GeneratorError("\(location): the $ref \"\(reference)\" names no component")
    }
    let name = Self.unescaped(parts[1])
    guard let value = root["components"]?[String(parts[0])]?[name] else {
      throw GeneratorError("\(location): the $ref \"\(reference)\" resolves nowhere")
    }
    return (String(parts[0]), name, value)
  }

  /// A JSON Pointer token as text: percent-decoded (a pointer in a URI fragment may be), then
  /// `~1` is "/" and `~0` is "~".
  private static func unescaped(_ token: Substring) -> String {
    (String(token).removingPercentEncoding ?? String(token))
      .replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
  }

  /// Whether `reference` names a whole component (`#/components/<kind>/<name>`, nothing
  /// deeper).
  private static func isComponent(_ reference: String) -> Bool {
    guard reference.hasPrefix("#/components/") else { return false }
    return reference.dropFirst("#/components/".count).split(
      separator: "/", omittingEmptySubsequences: false
    ).count == 2
  }

  /// The value a local `$ref` (`#/paths/~1pets/get/parameters/0`, `#/$defs/Tag`,
  /// `#/components/schemas/Pet/properties/tag`) points at in this document.
  private func pointee(_ reference: String, at location: String) throws(GeneratorError)
    -> DocumentValue
  {
    guard reference.hasPrefix("#/") else {
      throw GeneratorError(
        "\(location): the $ref \"\(reference)\" "
          + (reference == "#"
            ? "names the whole document, which is not a schema"
            : "points into another file; bundle the document into one file first"))
    }
    var current = DocumentValue.object(root)
    for token in reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) {
      let key = Self.unescaped(token)
      switch current {
      case .object(let object) where object[key] != nil:
        current = object[key] ?? .null
      case .array(let list) where Int(key).map(list.indices.contains) == true:
        current = list[Int(key) ?? 0]
      default:
        throw GeneratorError("\(location): the $ref \"\(reference)\" resolves nowhere")
      }
    }
    return current
  }

  /// `value`, or what its `$ref` names (followed through references to references, at most
  /// 32 deep).
  private func resolved(_ value: DocumentValue, kind: String, at location: String)
    throws(GeneratorError) -> DocumentValue
  {
    var current = value
    for _ in 0..<32 {
      guard let reference = current["$ref"]?.string else { return current }
      guard Self.isComponent(reference) else {
        // Any other place in this document (`#/paths/...`): what is there, of whatever kind.
        current = try pointee(reference, at: location)
        continue
      }
      let target = try component(reference, at: location)
      guard target.kind == kind else {
        throw GeneratorError(
          "\(location): the $ref \"\(reference)\" names a \(target.kind) entry where a \(kind) "
            + "one belongs")
      }
      current = target.value
    }
    throw GeneratorError("\(location): $refs refer to each other in a loop")
  }

  // MARK: Schemas

  /// The schema `value` at `location`.
  mutating func schema(_ value: DocumentValue, at location: String) throws(GeneratorError)
    -> APIDescription.Schema
  {
    depth += 1
    defer { depth -= 1 }
    guard depth <= Self.maximumDepth else {
      throw GeneratorError(
        "\(location): schemas nested deeper than \(Self.maximumDepth) levels are not generated")
    }
    if case .bool(true) = value { return .any }
    guard case .object(let object) = value else {
      throw GeneratorError("\(location) is not a schema (an object)")
    }
    if let reference = object["$ref"]?.string {
      guard Self.isComponent(reference) else {
        // A schema elsewhere in the document (`$defs`, a property of another schema, a path's
        // body) has no name of its own: it is read where it is used (once: a shared one is
        // not read again at each use).
        if let known = pointed[reference] { return known }
        let read = try schema(try pointee(reference, at: location), at: location)
        pointed[reference] = read
        return read
      }
      let target = try component(reference, at: location)
      guard target.kind == "schemas" else {
        throw GeneratorError(
          "\(location): the $ref \"\(reference)\" names \(target.kind), not a schema")
      }
      try use(target.name, target.value)
      return .reference(target.name)
    }
    var types: [String] = []
    switch object["type"] {
    case .string(let type)?: types = [type]
    case .array(let list)?: types = list.compactMap(\.string)
    default: break
    }
    // 3.1 writes `type: [string, "null"]`; 3.0 writes `nullable: true`.
    let isNullable = types.contains("null") || object["nullable"] == .bool(true)
    types.removeAll { $0 == "null" }
    let schema = try nonNullSchema(object, types: types, at: location)
    if isNullable, case .nullable = schema { return schema }
    return isNullable ? .nullable(schema) : schema
  }

  private mutating func nonNullSchema(
    _ object: DocumentObject, types: [String], at location: String
  ) throws(GeneratorError) -> APIDescription.Schema {
    if let parts = object["allOf"]?.array {
      return try allOf(parts, holder: object, types: types, at: location + ".allOf")
    }
    // `const` (3.1): a value of its own; text is an enumeration of one value.
    if let constant = object["const"] {
      switch constant {
      case .string(let text): return .enumeration([text])
      case .int: return .integer(format: object["format"]?.string)
      case .double: return .number(format: object["format"]?.string)
      case .bool: return .boolean
      default: return .any
      }
    }
    for key in ["oneOf", "anyOf"] {
      guard let variants = object[key]?.array else { continue }
      var schemas: [APIDescription.Schema] = []
      var nullable = false
      for (index, variant) in variants.enumerated() {
        // `oneOf: [{$ref: X}, {type: "null"}]` is a nullable X.
        if variant["type"]?.string == "null" {
          nullable = true
          continue
        }
        schemas.append(try schema(variant, at: "\(location).\(key)[\(index)]"))
      }
      guard !schemas.isEmpty else {
        throw GeneratorError("\(location).\(key) has no variant but null")
      }
      let result: APIDescription.Schema
      if schemas.count == 1 {
        result = schemas[0]
      } else if let values = Self.constants(variants) {
        // `oneOf: [{const: a}, {const: b}]` (3.1's way to document each value) is an enum.
        result = values
      } else {
        result = .oneOf(
          schemas, discriminator: try discriminator(object, variants: schemas, at: location))
      }
      return nullable ? .nullable(result) : result
    }
    if let values = object["enum"]?.array {
      let texts = values.compactMap(\.string)
      if texts.count == values.count, types.isEmpty || types == ["string"] {
        guard !texts.isEmpty else { throw GeneratorError("\(location).enum is empty") }
        return .enumeration(texts)
      }
      // Numbers from a list, or a list mixing null: the type says enough; without a type,
      // the values do.
      if types.isEmpty {
        let present = values.filter { $0 != .null }
        if !present.isEmpty, present.allSatisfy({ if case .int = $0 { true } else { false } }) {
          return .integer(format: object["format"]?.string)
        }
        if !present.isEmpty,
          present.allSatisfy({
            switch $0 {
            case .int, .double: true
            default: false
            }
          })
        {
          return .number(format: object["format"]?.string)
        }
        if !present.isEmpty, present.allSatisfy({ if case .bool = $0 { true } else { false } }) {
          return .boolean
        }
      }
    }
    guard types.count <= 1 else {
      throw GeneratorError(
        "\(location): a value of several types (\(types.joined(separator: ", "))) cannot be "
          + "generated; describe it with oneOf")
    }
    let format = object["format"]?.string
    switch types.first {
    case "string": return .string(format: format)
    case "integer": return .integer(format: format)
    case "number": return .number(format: format)
    case "boolean": return .boolean
    case "array":
      // Without `items`, the elements may be anything.
      guard let items = object["items"] else { return .array(.any) }
      return .array(try schema(items, at: location + ".items"))
    case "object", nil:
      if object["properties"] == nil, types.isEmpty, object["additionalProperties"] == nil {
        return .any
      }
      if object["properties"]?.object?.entries.isEmpty ?? true {
        switch object["additionalProperties"] {
        case .object(let values)?:
          return .map(try schema(.object(values), at: location + ".additionalProperties"))
        case .bool(true)?:
          return .map(.any)
        case nil where object["properties"] == nil:
          return .map(.any)
        default: break
        }
      }
      return .object(try properties(of: object, at: location))
    case let other?:
      throw GeneratorError("\(location): the type \"\(other)\" is not a JSON Schema type")
    }
  }

  /// An object schema's properties.
  private mutating func properties(of object: DocumentObject, at location: String)
    throws(GeneratorError) -> APIDescription.Object
  {
    let required = Set(object["required"]?.array?.compactMap(\.string) ?? [])
    var properties: [APIDescription.Object.Property] = []
    for entry in object["properties"]?.object?.entries ?? [] {
      properties.append(
        .init(
          name: entry.key,
          schema: try schema(entry.value, at: "\(location).properties.\(entry.key)"),
          isRequired: required.contains(entry.key),
          summary: entry.value["description"]?.string))
    }
    return .init(properties: properties, summary: object["description"]?.string)
  }

  /// The keys that make a schema say what its value is (a part of an `allOf` without any of
  /// them only annotates: a description, `nullable`, `readOnly`, an example, a bound).
  private static let shapingKeys: Set<String> = [
    "$ref", "type", "properties", "additionalProperties", "patternProperties", "items",
    "allOf", "oneOf", "anyOf", "enum", "const",
  ]

  /// What a part of an `allOf` is, as far as merging goes.
  private enum PartKind { case annotation, object, other }

  /// What the part `value` of an `allOf` is: only annotations (`{description}`,
  /// `{nullable: true}`, `{type: object}` alone), an object whose properties merge, or
  /// another kind of value (text, a number, a list, a `oneOf`).
  private mutating func partKind(
    _ value: DocumentValue, at location: String, from origin: String? = nil, depth: Int = 0
  ) throws(GeneratorError) -> PartKind {
    // A named schema's kind is worked out once: parts shared by many `allOf`s (or by both
    // parts of one, level after level) are not walked again.
    let reference = value["$ref"]?.string
    if let reference, let known = partKinds[reference] { return known }
    let kind = try uncachedPartKind(value, at: location, from: origin, depth: depth)
    if let reference { partKinds[reference] = kind }
    return kind
  }

  private mutating func uncachedPartKind(
    _ value: DocumentValue, at location: String, from origin: String?, depth: Int
  ) throws(GeneratorError) -> PartKind {
    let origin = origin ?? location.split(separator: ".").prefix(3).joined(separator: ".")
    // Named by the schema a `$ref` reaches, so a long chain is found by its last link.
    var location = location
    if let reference = value["$ref"]?.string, Self.isComponent(reference),
      let name = reference.split(separator: "/").last
    {
      location = "components.schemas." + Self.unescaped(name)
    }
    guard depth < Self.maximumDepth else {
      throw GeneratorError(
        "\(location): allOf nested deeper than \(Self.maximumDepth) levels (from \(origin)) is "
          + "not generated")
    }
    let resolved = try resolved(value, kind: "schemas", at: location)
    guard case .object(let object) = resolved else {
      if case .bool = resolved { return .annotation }
      throw GeneratorError("\(location) is not a schema")
    }
    if !object.keys.contains(where: Self.shapingKeys.contains) { return .annotation }
    if object["properties"] != nil || object["additionalProperties"] != nil
      || object["patternProperties"] != nil
    {
      return .object
    }
    if let parts = object["allOf"]?.array {
      var kinds: [PartKind] = []
      for (index, part) in parts.enumerated() {
        kinds.append(
          try partKind(part, at: "\(location).allOf[\(index)]", from: origin, depth: depth + 1))
      }
      if kinds.contains(.other) { return .other }
      return kinds.contains(.object) || object["type"]?.string == "object" ? .object : .annotation
    }
    if object["oneOf"] != nil || object["anyOf"] != nil || object["enum"] != nil
      || object["const"] != nil || object["items"] != nil
    {
      return .other
    }
    switch object["type"] {
    case .string("object")?: return .annotation  // `{type: object}` alone adds nothing
    case .array(let list)? where list.compactMap(\.string).filter({ $0 != "null" }) == ["object"]:
      return .annotation
    default: return .other
    }
  }

  /// An `allOf`: its parts that only annotate (a description, `nullable`, `{type: object}`)
  /// add nothing but `nullable`; one part left is that schema (a `$ref` keeps its name);
  /// objects merge into one struct; parts of other kinds are the most precise of them (an
  /// enumeration over text); objects mixed with other kinds are any JSON value.
  private mutating func allOf(
    _ parts: [DocumentValue], holder: DocumentObject, types: [String], at location: String
  ) throws(GeneratorError) -> APIDescription.Schema {
    var kinds: [PartKind] = []
    var nullable = false
    for (index, part) in parts.enumerated() {
      let kind = try partKind(part, at: "\(location)[\(index)]")
      kinds.append(kind)
      if kind == .annotation, part["$ref"] == nil,
        part["nullable"] == .bool(true) || part["type"]?.array?.contains(.string("null")) == true
      {
        nullable = true
      }
    }
    let holderHasProperties = holder["properties"] != nil
    let substantive = parts.indices.filter { kinds[$0] != .annotation }
    let result: APIDescription.Schema
    if substantive.isEmpty, !holderHasProperties {
      result = types == ["object"] || kinds.contains(.object) ? .map(.any) : .any
    } else if substantive.count == 1, !holderHasProperties,
      holder["required"] == nil || kinds[substantive[0]] != .object
    {
      let index = substantive[0]
      result = try schema(parts[index], at: "\(location)[\(index)]")
    } else if substantive.allSatisfy({ kinds[$0] == .object }) {
      result = .object(try merged(parts, extra: holder, at: location))
    } else if !holderHasProperties, !substantive.contains(where: { kinds[$0] == .object }) {
      // Text and an enumeration of it, a number and its bounds: the most precise part.
      var best: APIDescription.Schema?
      for index in substantive {
        let read = try schema(parts[index], at: "\(location)[\(index)]")
        if best == nil { best = read }
        if case .enumeration = read { best = read }
        if case .reference = read,
          best.map({ if case .enumeration = $0 { false } else { true } })
            ?? true
        {
          best = read
        }
      }
      result = best ?? .any
    } else {
      result = .any
    }
    return nullable ? .nullable(result) : result
  }

  /// The values of a `oneOf` whose every variant is one `const` (or a one-value `enum`): an
  /// enumeration when they are text, a number or a whole number when they are numbers.
  private static func constants(_ variants: [DocumentValue]) -> APIDescription.Schema? {
    var values: [DocumentValue] = []
    for variant in variants where variant["type"]?.string != "null" {
      if let constant = variant["const"] {
        values.append(constant)
      } else if let list = variant["enum"]?.array, list.count == 1 {
        values.append(list[0])
      } else {
        return nil
      }
    }
    guard !values.isEmpty else { return nil }
    let texts = values.compactMap(\.string)
    if texts.count == values.count { return .enumeration(texts) }
    if values.allSatisfy({ if case .int = $0 { true } else { false } }) {
      return .integer(format: nil)
    }
    if values.allSatisfy({
      switch $0 {
      case .int, .double: true
      default: false
      }
    }) {
      return .number(format: nil)
    }
    return nil
  }

  /// The properties of every part of an `allOf`, merged (a later one's replaces an earlier
  /// one's of the same name), with those `extra` (the schema holding `allOf`) declares.
  private mutating func merged(
    _ parts: [DocumentValue], extra: DocumentObject, at location: String
  ) throws(GeneratorError) -> APIDescription.Object {
    var result = APIDescription.Object(properties: [], summary: extra["description"]?.string)
    func add(_ object: APIDescription.Object) {
      for property in object.properties {
        if let index = result.properties.firstIndex(where: { $0.name == property.name }) {
          result.properties[index].schema = property.schema
          result.properties[index].isRequired =
            result.properties[index].isRequired || property.isRequired
        } else {
          result.properties.append(property)
        }
      }
    }
    for (index, part) in parts.enumerated() {
      let partLocation = "\(location)[\(index)]"
      // A part whose properties are being merged already includes itself: no struct can.
      if let reference = part["$ref"]?.string {
        let name = String(reference.split(separator: "/").last ?? "")
        if merging.contains(name) {
          throw GeneratorError(
            "\(partLocation): allOf includes \(name), which includes this schema; a struct "
              + "cannot hold itself")
        }
        merging.append(name)
      }
      defer { if part["$ref"] != nil { merging.removeLast() } }
      // Each level is a frame of this function: a chain thousands deep would exhaust the stack.
      guard merging.count <= 64 else {
        throw GeneratorError(
          "components.schemas.\(merging.last ?? ""): allOf nested deeper than 64 levels (from "
            + "\(location.split(separator: ".").prefix(3).joined(separator: "."))) is not generated"
        )
      }
      let value = try resolved(part, kind: "schemas", at: partLocation)
      guard case .object(let object) = value else {
        if case .bool = value { continue }
        throw GeneratorError("\(partLocation) is not a schema")
      }
      // A part that only annotates (a description, `nullable`) has no properties to add.
      if try partKind(value, at: partLocation) == .annotation {
        for name in object["required"]?.array?.compactMap(\.string) ?? [] {
          if let index = result.properties.firstIndex(where: { $0.name == name }) {
            result.properties[index].isRequired = true
          }
        }
        continue
      }
      if let nested = object["allOf"]?.array {
        // A named part's merge is worked out once (parts shared level after level would
        // otherwise be merged again and again).
        let reference = part["$ref"]?.string
        if let reference, let known = mergedParts[reference] {
          add(known)
        } else {
          let read = try merged(nested, extra: object, at: partLocation + ".allOf")
          if let reference { mergedParts[reference] = read }
          add(read)
        }
        continue
      }
      let schema = try nonNullSchema(
        object, types: object["type"]?.string.map { [$0] } ?? [], at: partLocation)
      switch schema {
      case .object(let properties): add(properties)
      case .map, .any: break  // an object of any keys adds no property
      default:
        throw GeneratorError(
          "\(partLocation): allOf can only merge objects; this part is not one")
      }
      // Properties the part only marks required (`required: [id]` beside a $ref).
      for name in object["required"]?.array?.compactMap(\.string) ?? [] {
        if let index = result.properties.firstIndex(where: { $0.name == name }) {
          result.properties[index].isRequired = true
        }
      }
    }
    if extra["properties"] != nil {
      add(try properties(of: extra, at: location))
    }
    for name in extra["required"]?.array?.compactMap(\.string) ?? [] {
      if let index = result.properties.firstIndex(where: { $0.name == name }) {
        result.properties[index].isRequired = true
      }
    }
    return result
  }

  /// A `oneOf`'s discriminator, its mapping completed with the variants' own names.
  private func discriminator(
    _ object: DocumentObject, variants: [APIDescription.Schema], at location: String
  ) throws(GeneratorError) -> APIDescription.Discriminator? {
    guard let value = object["discriminator"] else { return nil }
    guard let propertyName = value["propertyName"]?.string else {
      throw GeneratorError("\(location).discriminator has no propertyName")
    }
    var mapping: [(value: String, schema: String)] = []
    for entry in value["mapping"]?.object?.entries ?? [] {
      guard let reference = entry.value.string else { continue }
      let name =
        reference.hasPrefix("#/components/schemas/")
        ? String(reference.dropFirst("#/components/schemas/".count)) : reference
      mapping.append((entry.key, name))
    }
    // A mapping to a schema that is not a variant names nothing this oneOf can hold.
    mapping.removeAll { !variants.contains(.reference($0.schema)) }
    for (index, variant) in variants.enumerated() {
      switch variant {
      case .reference(let name):
        if !mapping.contains(where: { $0.schema == name }) { mapping.append((name, name)) }
      case .object(let object):
        // An inline variant is named by its place (`#1`): the values its discriminator
        // property may take (a `const`, a one-value enum) select it.
        guard
          let property = object.properties.first(where: { $0.name == propertyName }),
          case .enumeration(let values) = property.schema
        else { return nil }  // nothing says which it is: the variants are read in turn
        for value in values where !mapping.contains(where: { $0.value == value }) {
          mapping.append((value, "#\(index)"))
        }
      default:
        return nil
      }
    }
    return .init(property: propertyName, mapping: mapping)
  }

  /// Notes the named schema `name` as used, reading it the first time. A schema that could not
  /// be read fails every use with the same error (an operation using it is left out).
  private mutating func use(_ name: String, _ value: DocumentValue) throws(GeneratorError) {
    if let failure = failed[name] { throw failure }
    guard read[name] == nil, !reading.contains(name) else { return }
    reading.append(name)
    defer { reading.removeLast() }
    do {
      let schema = try schema(value, at: "components.schemas.\(name)")
      read[name] = schema
      used.append(name)
    } catch {
      failed[name] = error
      throw error
    }
  }

  /// The named schemas used, in the document's order.
  func usedSchemas() throws(GeneratorError) -> [(name: String, schema: APIDescription.Schema)] {
    let order = root["components"]?["schemas"]?.object?.keys ?? []
    return order.compactMap { name in read[name].map { (name, $0) } }
  }

  // MARK: Operations

  /// The parameters listed in `value`.
  mutating func parameters(_ value: DocumentValue, at location: String) throws(GeneratorError)
    -> [APIDescription.Parameter]
  {
    if value == .null { return [] }  // `parameters:` with nothing under it
    guard let list = value.array else { throw GeneratorError("\(location) is not a list") }
    var parameters: [APIDescription.Parameter] = []
    for (index, item) in list.enumerated() {
      let itemLocation = "\(location)[\(index)]"
      let parameter = try resolved(item, kind: "parameters", at: itemLocation)
      guard let name = parameter["name"]?.string, let place = parameter["in"]?.string else {
        throw GeneratorError("\(itemLocation) has no `name` or no `in`")
      }
      guard let position = APIDescription.Parameter.Location(rawValue: place) else {
        throw GeneratorError(
          "\(itemLocation): the \(place) parameter \"\(name)\" cannot be generated (path, "
            + "query and header parameters can)")
      }
      // `content` (one media type) instead of `schema`: JSON is sent as JSON text.
      var isJSON = false
      var schemaLocation = itemLocation + ".schema"
      var schemaValue = parameter["schema"]
      if schemaValue == nil, let content = parameter["content"]?.object,
        let type = content.keys.first
      {
        isJSON = Self.isJSON(type)
        schemaLocation = "\(itemLocation).content.\(type).schema"
        schemaValue = content[type]?["schema"] ?? .bool(true)
      }
      guard let schemaValue else {
        throw GeneratorError(
          "\(itemLocation): the parameter \"\(name)\" has neither a schema nor a content")
      }
      let schema = try self.schema(schemaValue, at: schemaLocation)
      if let cycle = Self.referenceCycle(from: schema, in: self) {
        throw GeneratorError(
          "\(itemLocation): the parameter \"\(name)\" is of a schema that refers to itself ("
            + "\(cycle.joined(separator: " → "))): it describes no value")
      }
      let isSimple = Self.isSimple(schema, in: self)
      let isSimpleList = Self.isSimpleList(schema, in: self)
      let style = parameter["style"]?.string ?? (position == .query ? "form" : "simple")
      let explode = parameter["explode"].map { $0 == .bool(true) } ?? (style == "form")
      var separator: String?
      var structured: String?
      if isJSON {
        // Written as JSON text, whatever the schema.
      } else if position == .query, isSimpleList, !explode {
        // The query's list styles (OpenAPI 3, "Style Values").
        switch style {
        case "form": separator = ","
        case "spaceDelimited": separator = " "
        case "pipeDelimited": separator = "|"
        default:
          throw GeneratorError(
            "\(itemLocation): the query parameter \"\(name)\" has the style \"\(style)\", "
              + "which a list in a query cannot take (form, spaceDelimited and pipeDelimited can)")
        }
      } else if !isSimple, !(isSimpleList && position == .query) {
        // An object, a dictionary, a `oneOf`, or a list in a path or a header: written by the
        // Network layer's `ParameterStyle`.
        switch (position, style) {
        case (.query, "form"): structured = ".form(explode: \(explode))"
        case (.query, "deepObject"): structured = ".deepObject"
        case (.query, "spaceDelimited"): structured = ".spaceDelimited"
        case (.query, "pipeDelimited"): structured = ".pipeDelimited"
        case (.path, "simple"), (.header, "simple"): structured = ".simple(explode: \(explode))"
        default:
          throw GeneratorError(
            "\(itemLocation): the \(place) parameter \"\(name)\" has the style \"\(style)\", "
              + "which is not generated (form, deepObject, spaceDelimited and pipeDelimited in a "
              + "query, simple in a path or a header are)")
        }
      }
      parameters.append(
        .init(
          name: name, location: position,
          isRequired: position == .path || parameter["required"] == .bool(true),
          schema: schema, summary: parameter["description"]?.string, listSeparator: separator,
          style: structured, isJSON: isJSON))
    }
    return parameters
  }

  /// Whether `schema` is text, a number, a boolean or an enumeration (through references: at
  /// most 64 of them, so references that lead back to themselves end).
  static func isSimple(
    _ schema: APIDescription.Schema, in reader: SchemaReader, depth: Int = 0
  ) -> Bool {
    guard depth < 64 else { return false }
    switch schema {
    case .string, .integer, .number, .boolean, .enumeration: return true
    case .nullable(let inner): return isSimple(inner, in: reader, depth: depth + 1)
    case .reference(let name):
      return reader.read[name].map { isSimple($0, in: reader, depth: depth + 1) } ?? false
    default: return false
    }
  }

  /// The names of schemas that only refer to one another in a ring, when `schema` leads into
  /// one (`Loop` → `Loop2` → `Loop`); `nil` when its references end in a schema.
  static func referenceCycle(from schema: APIDescription.Schema, in reader: SchemaReader)
    -> [String]?
  {
    var seen: [String] = []
    var current = schema
    while true {
      switch current {
      case .reference(let name):
        if seen.contains(name) { return seen + [name] }
        seen.append(name)
        guard let next = reader.read[name] else { return nil }
        current = next
      case .nullable(let inner):
        current = inner
      default:
        return nil
      }
    }
  }

  /// Whether `schema` is a list of simple values.
  static func isSimpleList(_ schema: APIDescription.Schema, in reader: SchemaReader) -> Bool {
    if case .array(let element) = schema { return isSimple(element, in: reader) }
    return false
  }

  /// The request body `value` describes, and whether it must be sent.
  mutating func body(_ value: DocumentValue?, at location: String) throws(GeneratorError)
    -> (APIDescription.Body?, Bool)
  {
    guard let value else { return (nil, false) }
    let body = try resolved(value, kind: "requestBodies", at: location)
    let isRequired = body["required"] == .bool(true)
    guard let content = body["content"]?.object, !content.entries.isEmpty else {
      return (nil, false)
    }
    if let type = content.keys.first(where: Self.isJSON) {
      guard let schemaValue = content[type]?["schema"] else {
        return (.json(.any), isRequired)
      }
      return (.json(try schema(schemaValue, at: "\(location).content.\(type).schema")), isRequired)
    }
    if content["multipart/form-data"] != nil { return (.multipart, isRequired) }
    if content["application/x-www-form-urlencoded"] != nil { return (.form, isRequired) }
    return (.data(contentType: content.keys[0]), isRequired)
  }

  /// What the first success the responses describe answers: `200`, then other `2XX`, then
  /// `default`.
  mutating func response(_ value: DocumentValue?, at location: String) throws(GeneratorError)
    -> APIDescription.Response
  {
    guard let responses = value?.object else { return .none }
    let successes = responses.keys.filter { $0.hasPrefix("2") }.sorted()
    guard let status = successes.first ?? (responses["default"] != nil ? "default" : nil),
      let entry = responses[status]
    else { return .none }
    let response = try resolved(entry, kind: "responses", at: "\(location).\(status)")
    guard let content = response["content"]?.object, !content.entries.isEmpty else {
      return .none
    }
    // An operation that answers JSON or a stream (a `stream: true` flag in its body) is
    // generated for its JSON answer; `EventStreamClient` reads the stream.
    if let type = content.keys.first(where: Self.isJSON) {
      guard let schemaValue = content[type]?["schema"] else { return .json(.any) }
      return .json(
        try schema(schemaValue, at: "\(location).\(status).content.\(type).schema"))
    }
    if content.keys.allSatisfy({ $0.lowercased().hasPrefix("text/event-stream") }) {
      return .eventStream
    }
    return .data  // bytes (`audio/mpeg`), even when a stream is offered too
  }

  /// The error answers of `value` (an operation's `responses`) with a JSON body: exact
  /// statuses from 300 to 599, then ranges (`4XX`, `5XX`), then `default` (when a success is
  /// described, else `default` is the success). An answer whose schema cannot be read is left
  /// out of them (its status is then thrown as a ``RepositoryError`` alone), never the
  /// operation.
  mutating func errorAnswers(_ value: DocumentValue?, at location: String)
    -> [APIDescription.ErrorAnswer]
  {
    guard let responses = value?.object else { return [] }
    // Statuses as three digits, ranges as `4XX` (any case), each once.
    var keys: [String] = []
    for key in responses.keys {
      let status = key.uppercased() == "DEFAULT" ? "default" : key.uppercased()
      if !keys.contains(status) { keys.append(status) }
    }
    let exact = keys.filter { key in
      key.count == 3 && key.allSatisfy(\.isASCII) && key.allSatisfy(\.isNumber)
        && (300...599).contains(Int(key) ?? 0)
    }.sorted()
    let ranges = keys.filter { ["3XX", "4XX", "5XX"].contains($0) }.sorted()
    let hasSuccess = keys.contains { $0.hasPrefix("2") }
    var answers: [APIDescription.ErrorAnswer] = []
    for status in exact + ranges + (hasSuccess && keys.contains("default") ? ["default"] : []) {
      guard
        let key = responses.keys.first(where: {
          ($0.uppercased() == "DEFAULT" ? "default" : $0.uppercased()) == status
        }),
        let entry = responses[key]
      else { continue }
      let saved = self
      do throws(GeneratorError) {
        let response = try resolved(entry, kind: "responses", at: "\(location).\(key)")
        guard let content = response["content"]?.object,
          let type = content.keys.first(where: Self.isJSON),
          let schemaValue = content[type]?["schema"]
        else { continue }
        if let reference = schemaValue["$ref"]?.string,
          reference.hasPrefix("#/components/schemas/"),
          keepsErrorSchemaUntyped(String(reference.dropFirst("#/components/schemas/".count)))
        {
          continue
        }
        answers.append(
          .init(
            status: status,
            schema: try schema(schemaValue, at: "\(location).\(key).content.\(type).schema")))
      } catch {
        self = saved
      }
    }
    return answers
  }

  /// Whether a content type is JSON (`application/json`, `application/problem+json`, with
  /// parameters).
  static func isJSON(_ contentType: String) -> Bool {
    let base = (contentType.split(separator: ";").first ?? "")
      .trimmingCharacters(in: .whitespaces).lowercased()
    return base == "application/json" || base.hasSuffix("+json")
  }
}
