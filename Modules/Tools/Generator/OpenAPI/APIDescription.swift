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
  init(_ document: DocumentValue, tags: [String] = []) throws(GeneratorError) {
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
    var reader = SchemaReader(root: root)
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
    let security = operation["security"]?.array ?? globalSecurity ?? []
    let (requiresAuthentication, credentials, unmet) = Self.credentials(
      for: security, schemes: schemes)
    let id = operation["operationId"]?.string ?? operationID(method: method, path: path)
    return Operation(
      id: id, tag: tag, method: method.uppercased(), path: path,
      summary: text(operation["summary"] ?? operation["description"] ?? .null),
      parameters: parameters, body: body, isBodyRequired: isBodyRequired,
      response: response, requiresAuthentication: requiresAuthentication,
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
  /// The named schemas used, in the order first met.
  private var used: [String] = []
  private var read: [String: APIDescription.Schema] = [:]
  /// The named schemas being read (a `$ref` to one of them is a recursive use).
  private var reading: [String] = []
  /// The named schemas whose properties an `allOf` is merging.
  private var merging: [String] = []
  /// The named schemas that could not be read, with why.
  private var failed: [String: GeneratorError] = [:]
  /// How deep the schema being read is.
  private var depth = 0
  /// The deepest schema read.
  static let maximumDepth = 64

  init(root: DocumentObject) {
    self.root = root
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
    // JSON Pointer escapes: ~1 is "/", ~0 is "~".
    let name = parts[1].replacingOccurrences(of: "~1", with: "/")
      .replacingOccurrences(of: "~0", with: "~")
    guard let value = root["components"]?[String(parts[0])]?[name] else {
      throw GeneratorError("\(location): the $ref \"\(reference)\" resolves nowhere")
    }
    return (String(parts[0]), name, value)
  }

  /// `value`, or what its `$ref` names (followed through references to references, at most
  /// 32 deep).
  private func resolved(_ value: DocumentValue, kind: String, at location: String)
    throws(GeneratorError) -> DocumentValue
  {
    var current = value
    for _ in 0..<32 {
      guard let reference = current["$ref"]?.string else { return current }
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
    // `allOf: [$ref]` (often with `nullable` or a description beside it) is that schema.
    if let parts = object["allOf"]?.array, parts.count == 1, parts[0]["$ref"] != nil,
      object["properties"] == nil
    {
      return try schema(parts[0], at: location + ".allOf[0]")
    }
    if let parts = object["allOf"]?.array {
      return .object(try merged(parts, extra: object, at: location + ".allOf"))
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
      // Numbers from a list, or a list mixing null: the type says enough.
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
        throw GeneratorError("\(partLocation) is not a schema")
      }
      if let nested = object["allOf"]?.array {
        add(try merged(nested, extra: object, at: partLocation + ".allOf"))
        continue
      }
      let schema = try nonNullSchema(
        object, types: object["type"]?.string.map { [$0] } ?? [], at: partLocation)
      guard case .object(let properties) = schema else {
        throw GeneratorError(
          "\(partLocation): allOf can only merge objects; this part is not one")
      }
      add(properties)
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
    guard let property = value["propertyName"]?.string else {
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
    for variant in variants {
      guard case .reference(let name) = variant else {
        throw GeneratorError(
          "\(location): a oneOf with a discriminator needs each variant as a $ref to a schema")
      }
      if !mapping.contains(where: { $0.schema == name }) { mapping.append((name, name)) }
    }
    for entry in mapping where !variants.contains(.reference(entry.schema)) {
      throw GeneratorError(
        "\(location).discriminator maps \"\(entry.value)\" to \(entry.schema), which is not "
          + "one of the variants")
    }
    return .init(property: property, mapping: mapping)
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
      guard let schemaValue = parameter["schema"] else {
        throw GeneratorError(
          "\(itemLocation): the parameter \"\(name)\" has no schema (`content` is not read)")
      }
      let schema = try self.schema(schemaValue, at: itemLocation + ".schema")
      if let cycle = Self.referenceCycle(from: schema, in: self) {
        throw GeneratorError(
          "\(itemLocation): the parameter \"\(name)\" is of a schema that refers to itself ("
            + "\(cycle.joined(separator: " → "))): it describes no value")
      }
      guard Self.isSimple(schema, in: self) || Self.isSimpleList(schema, in: self) else {
        throw GeneratorError(
          "\(itemLocation): the parameter \"\(name)\" is an object; only text, numbers, "
            + "booleans, enumerations and lists of them can be sent in a \(place)")
      }
      if position == .path, Self.isSimpleList(schema, in: self) {
        throw GeneratorError(
          "\(itemLocation): the path parameter \"\(name)\" is a list; a path segment holds one "
            + "value")
      }
      // The query's list styles (OpenAPI 3, "Style Values"); a path or a header joins a list
      // with commas (`simple`).
      let style = parameter["style"]?.string ?? (position == .query ? "form" : "simple")
      let explode = parameter["explode"].map { $0 == .bool(true) } ?? (style == "form")
      var separator: String?
      if position == .query, Self.isSimpleList(schema, in: self), !explode {
        switch style {
        case "form": separator = ","
        case "spaceDelimited": separator = " "
        case "pipeDelimited": separator = "|"
        default:
          throw GeneratorError(
            "\(itemLocation): the query parameter \"\(name)\" has the style \"\(style)\", "
              + "which a list in a query cannot take (form, spaceDelimited and pipeDelimited can)")
        }
      }
      parameters.append(
        .init(
          name: name, location: position,
          isRequired: position == .path || parameter["required"] == .bool(true),
          schema: schema, summary: parameter["description"]?.string, listSeparator: separator))
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
    if content.keys.contains(where: { $0.lowercased().hasPrefix("text/event-stream") }) {
      return .eventStream
    }
    if let type = content.keys.first(where: Self.isJSON) {
      guard let schemaValue = content[type]?["schema"] else { return .json(.any) }
      return .json(
        try schema(schemaValue, at: "\(location).\(status).content.\(type).schema"))
    }
    return .data
  }

  /// Whether a content type is JSON (`application/json`, `application/problem+json`, with
  /// parameters).
  static func isJSON(_ contentType: String) -> Bool {
    let base = (contentType.split(separator: ";").first ?? "")
      .trimmingCharacters(in: .whitespaces).lowercased()
    return base == "application/json" || base.hasSuffix("+json")
  }
}
