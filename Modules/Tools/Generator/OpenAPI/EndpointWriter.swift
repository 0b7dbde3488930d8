import Foundation

/// Writes one tag's Repository layer from an ``APIDescription``, as the README's endpoint
/// walkthrough writes it by hand: `<Tag>DataAPI` (an `HTTPEndpoint` case per operation, with a
/// stub answer), `<Tag>Repo` and `<Tag>RepoImpl`, a fake for the layers above, and tests over a
/// stub transport.
struct EndpointWriter {
  /// A parameter of an operation as Swift sees it.
  struct Argument {
    /// Its label and name.
    var name: String
    /// Its type.
    var type: ModelWriter.TypeRef
    /// The type it is written from into the request when ``type`` is a `typealias` (of text,
    /// a number, a list...): what it stands for.
    var alias: String = ""
    /// Where it goes; `nil` for the body.
    var parameter: APIDescription.Parameter?
    /// A sample argument.
    var sample: String
    /// The type it is written from into the request.
    var shape: String { alias.isEmpty ? type.name : alias }
    /// How the sample reads in the request (`1`, `sample`, `true`); a list's first element.
    var sampleText: String
    /// How each element of a list's sample reads in the request (a single value: itself).
    var sampleElements: [String] = []
  }

  /// An operation as Swift sees it.
  struct Call {
    var operation: APIDescription.Operation
    /// Its case and method name.
    var name: String
    var arguments: [Argument]
    /// The body's argument, if any.
    var body: Argument?
    /// What it answers: `nil` for nothing, `Data` for bytes, or a decoded type.
    var answer: ModelWriter.TypeRef?
    /// Whether it answers bytes.
    var answersData: Bool
    /// The error answers the document types, in the order they are matched.
    var failures: [Failure] = []
    /// The type of the error bodies: the one type they share, or an enum of its own with a
    /// case per status (``failureEnum``); `nil` when none is typed.
    var failureType: String?
    /// Whether ``failureType`` is an enum written for this operation.
    var failureEnum = false
  }

  /// An error answer of an operation, as Swift reads it.
  struct Failure {
    /// The status as the document writes it (`404`, `4XX`, `default`).
    var status: String
    /// The `case` pattern of its statuses; `nil` for `default`.
    var pattern: String?
    /// Its body's type.
    var type: ModelWriter.TypeRef
    /// Its case in an enum of the operation's failures: `status404`, `status4XX`, `other`.
    var caseName: String { pattern == nil ? "other" : "status" + status }
  }

  /// The tag's Swift name (`Task`, for `TaskDataAPI`).
  let name: String
  /// The calls, in the document's order.
  let calls: [Call]
  /// The document's path, for comments.
  let source: String
  /// The document's title.
  let title: String
  /// The operations left out (what they use cannot be generated), each with why.
  private(set) var skipped: [String] = []

  /// The calls of `operations` (one tag's), their types declared by `models`.
  init(
    tag: String, operations: [APIDescription.Operation], models: inout ModelWriter,
    source: String, title: String, prefix: String = ""
  ) throws(GeneratorError) {
    name = prefix + SwiftNames.upperCamel(tag)
    self.source = source
    // One line: it goes into documentation comments.
    self.title = title.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    var calls: [Call] = []
    var skipped: [String] = []
    for operation in operations {
      // An operation whose types cannot be written is left out, and the models are as they
      // were before it.
      let before = models
      do throws(GeneratorError) {
        calls.append(
          try Self.call(
            operation, calls: calls, tag: name, typePrefix: prefix, models: &models))
      } catch {
        models = before
        skipped.append("\(operation.method) \(operation.path): \(error.message)")
      }
    }
    // An operation named like another's `<name>Answer` gets no typed answers (its method
    // would meet that operation's).
    let names = Set(calls.map(\.name))
    for index in calls.indices where names.contains(calls[index].name + "Answer") {
      calls[index].failures = []
      calls[index].failureType = nil
      calls[index].failureEnum = false
    }
    self.calls = calls
    self.skipped = skipped
  }

  /// The call of `operation`, its types declared by `models`.
  private static func call(
    _ operation: APIDescription.Operation, calls: [Call], tag name: String, typePrefix: String,
    models: inout ModelWriter
  ) throws(GeneratorError) -> Call {
    do {
      let callName = SwiftNames.lowerCamel(operation.id)
      if let other = calls.first(where: { $0.name == callName }) {
        throw GeneratorError(
          "\(other.operation.location) and \(operation.location) both map to `\(callName)` in "
            + "\(name)DataAPI; give them different operationIds")
      }
      let prefix = typePrefix + SwiftNames.upperCamel(operation.id)
      var arguments: [Argument] = []
      var taken: Set<String> = []
      // Header parameters the requester sets itself are not the caller's (OpenAPI ignores them).
      for parameter in operation.parameters
      where
        !(parameter.location == .header
        && ["accept", "content-type", "authorization"].contains(parameter.name.lowercased()))
      {
        // Names that meet in Swift (`StartTime`, `StartTime<`, `StartTime>`) are told apart by
        // where they go, then by a number.
        let base = SwiftNames.lowerCamel(parameter.name)
        var swift = base
        if taken.contains(swift) || Self.reservedNames.contains(swift) {
          swift = base + SwiftNames.capitalized(parameter.location.rawValue)
        }
        var counter = 2
        while taken.contains(swift) || Self.reservedNames.contains(swift) {
          swift = base + String(counter)
          counter += 1
        }
        taken.insert(swift)
        var type = try models.topLevelType(
          of: parameter.schema, name: prefix + SwiftNames.upperCamel(parameter.name))
        if !parameter.isRequired { type.isOptional = true }
        let shape = models.unaliased(type)
        var (sample, text) = Self.parameterSample(shape, models: models)
        if shape.name != type.name, sample.hasPrefix(shape.name + ".") {
          sample = type.name + sample.dropFirst(shape.name.count)  // Its alias names it.
        }
        var elements = [text]
        let isWrittenByStyle = parameter.style != nil || parameter.isJSON
        if isWrittenByStyle {
          // Written by `ParameterStyle`, whose own tests check each style against the
          // OpenAPI Specification's examples.
          sample = Self.topLevelSample(type)
          text = ""
          elements = []
        } else if shape.name.hasPrefix("["), parameter.location == .query {
          // Two elements, the second holding every list separator: the tests see each element
          // arrive as it was, apart from the other.
          let element = String(shape.name.dropFirst().dropLast())
          var second = Self.secondSample(of: element)
          var first = (swift: String(sample.dropFirst().dropLast()), text: text)
          if element == "String", let separator = parameter.listSeparator, separator != "," {
            // A space or a `|` in an element reads as the separator, encoded or not: the style
            // cannot carry one (a comma-separated list encodes an element's commas apart).
            let (a, b) = (
              text.replacingOccurrences(of: separator, with: ""),
              second.text.replacingOccurrences(of: separator, with: "")
            )
            first = ("\"\(SwiftNames.literal(a))\"", a)
            second = ("\"\(SwiftNames.literal(b))\"", b)
            text = a
          }
          sample = "[" + first.swift + ", " + second.swift + "]"
          elements = [first.text, second.text]
        }
        arguments.append(
          Argument(
            name: swift, type: type, alias: shape.name == type.name ? "" : shape.name,
            parameter: parameter, sample: sample, sampleText: text, sampleElements: elements))
      }
      var body: Argument?
      switch operation.body {
      case .json(let schema)?:
        var type = try models.topLevelType(of: schema, name: prefix + "Body")
        if !operation.isBodyRequired { type.isOptional = true }
        let sample = Self.topLevelSample(type)
        body = Argument(name: "body", type: type, parameter: nil, sample: sample, sampleText: "")
      case .data?:
        body = Argument(
          name: "body",
          type: .init(
            name: "Data", isOptional: false, sample: "Data(\"sample\".utf8)", dependency: nil,
            isComposite: false),
          parameter: nil, sample: "Data(\"sample\".utf8)", sampleText: "")
      case .multipart?:
        body = Argument(
          name: "parts",
          type: .init(
            name: "[MultipartPart]", isOptional: false, sample: "[.field(\"name\", \"sample\")]",
            dependency: nil, isComposite: false),
          parameter: nil, sample: "[.field(\"name\", \"sample\")]", sampleText: "")
      case .form?:
        body = Argument(
          name: "fields",
          type: .init(
            name: "[URLQueryItem]", isOptional: false,
            sample: "[URLQueryItem(name: \"name\", value: \"sample\")]", dependency: nil,
            isComposite: false),
          parameter: nil, sample: "[URLQueryItem(name: \"name\", value: \"sample\")]",
          sampleText: "")
      case nil:
        break
      }
      if let body, taken.contains(body.name) {
        throw GeneratorError(
          "\(operation.location): a parameter is named \"\(body.name)\", like the body")
      }
      var answer: ModelWriter.TypeRef?
      var answersData = false
      switch operation.response {
      case .none, .eventStream: break
      case .data: answersData = true
      case .json(let schema):
        answer = try models.topLevelType(of: schema, name: prefix + "Answer")
      }
      var call = Call(
        operation: operation, name: callName, arguments: arguments, body: body, answer: answer,
        answersData: answersData)
      // An error body whose type cannot be written leaves its status untyped (thrown as a
      // `RepositoryError` alone), never the operation out.
      for errorAnswer in operation.errorAnswers {
        let before = models
        do throws(GeneratorError) {
          let type = try models.topLevelType(
            of: errorAnswer.schema,
            name: prefix + "Error" + (errorAnswer.pattern == nil ? "Default" : errorAnswer.status))
          call.failures.append(
            Failure(status: errorAnswer.status, pattern: errorAnswer.pattern, type: type))
        } catch {
          models = before
        }
      }
      if Set(call.failures.map(\.type.declared)).count == 1 {
        call.failureType = call.failures[0].type.declared
      } else if !call.failures.isEmpty {
        call.failureType = models.reserveTopLevelName(prefix + "Failure")
        call.failureEnum = true
      }
      return call
    }
  }

  /// Names the generated code uses beside the parameters' (the body's, the locals that build
  /// the query and the headers, the repository's and the fake's properties): a parameter so
  /// named gets its place or a number after it.
  static let reservedNames: Set<String> = [
    "body", "parts", "fields", "items", "headers", "element", "requester", "state",
  ]

  /// A sample argument of a parameter's type, and how it reads in the request.
  static func parameterSample(_ type: ModelWriter.TypeRef, models: ModelWriter) -> (String, String)
  {
    switch type.name {
    case "Int", "Int32", "Int64": return ("1", "1")
    case "Double": return ("1.5", "1.5")
    case "Bool": return ("true", "true")
    // Text with the characters a URL reserves: the generated tests check that it reaches the
    // server as it was, in one segment or one item.
    case "String": return ("\"\(SwiftNames.literal(reservedSample))\"", reservedSample)
    case "Date": return ("Date(timeIntervalSince1970: 0)", "1970-01-01T00:00:00Z")
    default:
      if type.name.hasPrefix("[") {
        let element = String(type.name.dropFirst().dropLast())
        let inner = parameterSample(
          .init(
            name: element, isOptional: false, sample: "", dependency: nil, isComposite: false),
          models: models)
        return ("[\(inner.0)]", inner.1)
      }
      // An enumeration: its sample case.
      return ("\(type.name).sample", "\u{0}\(type.name)")
    }
  }

  /// The sample of a text parameter: `/`, `?`, `#`, `%`, `&`, `=`, `+`, a space and dots.
  static let reservedSample = "a/b c?d#e%f&g=h+i.."

  /// A second element for a list's sample, unlike the first: for text, one that holds every
  /// separator a list in a query can have (`,`, a space, `|`).
  static func secondSample(of element: String) -> (swift: String, text: String) {
    switch element {
    case "Int", "Int32", "Int64": ("2", "2")
    case "Double": ("2.5", "2.5")
    case "Bool": ("false", "false")
    case "String": ("\"x,y z|w\"", "x,y z|w")
    case "Date": ("Date(timeIntervalSince1970: 86400)", "1970-01-02T00:00:00Z")
    default: ("\(element).sample", "\u{0}\(element)")
    }
  }

  // MARK: DataAPI

  /// `<Name>DataAPI.swift`.
  func dataAPI(project: String) -> String {
    let type = "\(name)DataAPI"
    var lines = [
      "import Foundation",
      "import \(project)Network",
      "",
      "/// The \(name) endpoints of \(SwiftNames.comment(title)).",
      "///",
      "/// Generated by `trellis-gen api` from \(SwiftNames.comment(source)); the stubs answer in offline mode and in",
      "/// tests.",
      "public enum \(type): HTTPEndpoint {",
    ]
    for call in calls {
      if let summary = call.operation.summary, !summary.isEmpty {
        lines.append(SwiftNames.documentation(summary, fallback: "", indent: "  "))
        lines.append("  ///")
      }
      lines.append("  /// `\(call.operation.method) \(SwiftNames.comment(call.operation.path))`.")
      let arguments = (call.arguments + (call.body.map { [$0] } ?? [])).map {
        "\(SwiftNames.escaped($0.name)): \($0.type.declared)\($0.type.isOptional ? " = nil" : "")"
      }
      lines.append(
        "  case \(SwiftNames.escaped(call.name))"
          + (arguments.isEmpty ? "" : "(\(arguments.joined(separator: ", ")))"))
    }
    lines.append("")
    // The path, percent-encoded here: each value one segment, encoded once (RFC 3986).
    lines += [
      "  /// The endpoint's path, percent-encoded (each value one segment).",
      "  public var path: String {", "    switch self {",
    ]
    for call in calls {
      var path = Self.encodedTemplate(
        call.operation.path,
        placeholders: Set(
          call.arguments.compactMap { $0.parameter?.location == .path ? $0.parameter?.name : nil }))
      for argument in call.arguments where argument.parameter?.location == .path {
        let name = SwiftNames.escaped(argument.name)
        let value: String
        if let parameter = argument.parameter, let style = parameter.style, !parameter.isJSON {
          // Its elements (keys, values) each encoded, joined by literal separators.
          value = "\\(ParameterStyle\(style).pathSegment(of: \(name)))"
        } else {
          let text =
            argument.parameter.flatMap { parameter in
              parameter.isJSON ? Self.styledText(of: name, parameter: parameter) : nil
            } ?? Self.text(of: name, type: argument.shape)
          value = "\\(PercentEncoding.pathSegment(\(text)))"
        }
        path = path.replacingOccurrences(of: "{\(argument.parameter?.name ?? "")}", with: value)
      }
      lines.append(
        "    case \(pattern(call, binding: { $0.parameter?.location == .path })): \"\(path)\"")
    }
    lines += [
      "    }", "  }", "",
      "  /// Yes: the values in ``path`` are percent-encoded already, and sent as they are.",
      "  public var isPathPercentEncoded: Bool { true }", "",
    ]
    // The method.
    let methods = Set(calls.map(\.operation.method))
    if methods.count == 1, let method = methods.first {
      lines += [
        "  /// Always `\(method)`.", "  public var method: HTTPMethod { .\(method.lowercased()) }",
        "",
      ]
    } else {
      lines += [
        "  /// The endpoint's method.", "  public var method: HTTPMethod {", "    switch self {",
      ]
      for method in APIDescription.methods.map({ $0.uppercased() }) where methods.contains(method) {
        let cases = calls.filter { $0.operation.method == method }.map {
          ".\(SwiftNames.escaped($0.name))"
        }
        lines.append("    case \(cases.joined(separator: ", ")): .\(method.lowercased())")
      }
      lines += ["    }", "  }", ""]
    }
    let queryLines = items(
      location: .query, property: "query", type: "[URLQueryItem]",
      doc: "The query's items, percent-encoded (a list as the document's style writes it).",
      empty: "[]",
      add: { name, value in
        "items.append(URLQueryItem(name: PercentEncoding.encode(\"\(name)\"), value: "
          + "PercentEncoding.encode(\(value))))"
      },
      start: "var items: [URLQueryItem] = []", result: "items")
    lines += queryLines
    if !queryLines.isEmpty {
      lines += [
        "  /// Yes: the names and values in ``query`` are percent-encoded already.",
        "  public var isQueryPercentEncoded: Bool { true }", "",
      ]
    }
    lines += items(
      location: .header, property: "headers", type: "HTTPHeaders",
      doc: "The request's own headers.",
      empty: "[:]", add: { name, value in "headers[\"\(name)\"] = \(value)" },
      start: "var headers = HTTPHeaders()", result: "headers")
    // The body.
    if calls.contains(where: { $0.body != nil }) {
      lines += [
        "  /// What the request sends.", "  public var body: HTTPRequestBody {",
        "    switch self {",
      ]
      for call in calls {
        guard let body = call.body else { continue }
        let value = SwiftNames.escaped(body.name)
        let expression: String
        switch call.operation.body {
        case .json?:
          expression =
            body.type.isOptional ? "\(value).map { .json($0) } ?? .none" : ".json(\(value))"
        case .data(let contentType)?:
          expression = ".data(\(value), contentType: \"\(SwiftNames.literal(contentType))\")"
        case .multipart?: expression = ".multipart(\(value))"
        case .form?: expression = ".form(\(value))"
        case nil: continue
        }
        lines.append("    case \(pattern(call, binding: { $0.parameter == nil })): \(expression)")
      }
      if calls.contains(where: { $0.body == nil }) {
        lines.append("    default: .none")
      }
      lines += ["    }", "  }", ""]
    }
    // The session.
    let anonymous = calls.filter { !$0.operation.requiresAuthentication }
    if anonymous.count == calls.count {
      lines += [
        "  /// Sent without the session.", "  public var requiresAuthentication: Bool { false }",
        "",
      ]
    } else if !anonymous.isEmpty {
      lines += [
        "  /// Whether the request needs the signed-in session (the document's `security`).",
        "  public var requiresAuthentication: Bool {", "    switch self {",
        "    case \(anonymous.map { ".\(SwiftNames.escaped($0.name))" }.joined(separator: ", ")): false",
        "    default: true", "    }", "  }", "",
      ]
    }
    // The credentials besides the session's.
    let credentialed = calls.filter { !$0.operation.credentialSchemes.isEmpty }
    if !credentialed.isEmpty {
      lines += [
        "  /// The credentials each request needs besides the session's token (the document's",
        "  /// `security`): an `APIKeyPlugin` or `BasicAuthPlugin` of each scheme sends them.",
        "  public var credentialSchemes: Set<String> {", "    switch self {",
      ]
      let groups = Dictionary(grouping: credentialed) { $0.operation.credentialSchemes }
      for (schemes, group) in groups.sorted(by: { $0.key.joined() < $1.key.joined() }) {
        let cases = group.map { ".\(SwiftNames.escaped($0.name))" }.joined(separator: ", ")
        let names = schemes.map { "\"\(SwiftNames.literal($0))\"" }.joined(separator: ", ")
        lines.append("    case \(cases): [\(names)]")
      }
      if credentialed.count < calls.count { lines.append("    default: []") }
      lines += ["    }", "  }", ""]
    }
    // The stubs.
    lines += [
      "  /// Sample answers for offline mode and tests.", "  public var stub: HTTPStub? {",
      "    switch self {",
    ]
    for call in calls {
      lines.append("    case .\(SwiftNames.escaped(call.name)): \(stub(call))")
    }
    lines += ["    }", "  }"]
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The stub of `call`: its sample answer.
  func stub(_ call: Call) -> String {
    if call.answersData { return ".status(200, body: Data(\"sample\".utf8))" }
    guard let answer = call.answer else { return ".status(204)" }
    return ".iso8601JSON(\(Self.topLevelSample(answer)) as \(answer.declared))"
  }

  /// A sample of a top-level answer or body: a list holds one sample.
  static func topLevelSample(_ type: ModelWriter.TypeRef) -> String {
    if type.name.hasPrefix("["), !type.name.hasPrefix("[String:"), type.sample == "[]" {
      let element = String(type.name.dropFirst().dropLast())
      if !element.hasSuffix("?") { return "[\(element).sample]" }
    }
    return type.sample
  }

  /// `.name(_, let a, _)`: the case pattern of `call`, binding the arguments `binding` keeps.
  func pattern(_ call: Call, binding: (Argument) -> Bool) -> String {
    let all = call.arguments + (call.body.map { [$0] } ?? [])
    let bound = all.map { binding($0) ? "let \(SwiftNames.escaped($0.name))" : "_" }
    if all.isEmpty || !bound.contains(where: { $0 != "_" }) {
      return ".\(SwiftNames.escaped(call.name))"
    }
    return ".\(SwiftNames.escaped(call.name))(\(bound.joined(separator: ", ")))"
  }

  /// The `query` or `headers` property: the items of each call's parameters at `location`.
  private func items(
    location: APIDescription.Parameter.Location, property: String, type: String, doc: String,
    empty: String, add: (String, String) -> String, start: String, result: String
  ) -> [String] {
    let users = calls.filter { call in
      call.arguments.contains { $0.parameter?.location == location }
    }
    guard !users.isEmpty else { return [] }
    var lines = ["  /// \(doc)", "  public var \(property): \(type) {", "    switch self {"]
    for call in users {
      lines.append("    case \(pattern(call, binding: { $0.parameter?.location == location })):")
      lines.append("      \(start)")
      for argument in call.arguments where argument.parameter?.location == location {
        guard let parameter = argument.parameter else { continue }
        let swift = SwiftNames.escaped(argument.name)
        let wireName = SwiftNames.literal(parameter.name)
        if let style = parameter.style, location == .query {
          let item =
            "items += ParameterStyle\(style).queryItems(name: \"\(wireName)\", value: \(swift))"
          lines.append(
            argument.type.isOptional ? "      if let \(swift) { \(item) }" : "      \(item)")
        } else if parameter.style != nil || parameter.isJSON {
          let value = Self.styledText(of: swift, parameter: parameter)
          lines.append(
            argument.type.isOptional
              ? "      if let \(swift) { \(add(wireName, value)) }"
              : "      \(add(wireName, value))")
        } else if argument.shape.hasPrefix("[") {
          let element = String(argument.shape.dropFirst().dropLast())
          let list = "\(swift)\(argument.type.isOptional ? " ?? []" : "")"
          if location == .header {
            // A list in a header is its values joined by commas (OpenAPI's `simple` style).
            let joined =
              "\(swift).map { \(Self.text(of: "$0", type: element)) }.joined(separator: \",\")"
            lines.append(
              argument.type.isOptional
                ? "      if let \(swift) { \(add(wireName, joined)) }"
                : "      \(add(wireName, joined))")
          } else if let separator = parameter.listSeparator {
            // One item: each element encoded, joined by the style's separator (itself encoded
            // when it is not a character a query may hold: a space, `|`).
            let encodedSeparator = separator == "," ? "," : separator == " " ? "%20" : "%7C"
            let joined =
              "\(swift).map { PercentEncoding.encode(\(Self.text(of: "$0", type: element))) }"
              + ".joined(separator: \"\(encodedSeparator)\")"
            let item =
              "items.append(URLQueryItem(name: PercentEncoding.encode(\"\(wireName)\"), value: "
              + "\(joined)))"
            lines.append(
              argument.type.isOptional
                ? "      if let \(swift) { \(item) }" : "      \(item)")
          } else {
            let item = Self.text(of: "element", type: element)
            lines.append("      for element in \(list) { \(add(wireName, item)) }")
          }
        } else if argument.type.isOptional {
          let value = Self.text(of: swift, type: argument.shape)
          lines.append("      if let \(swift) { \(add(wireName, value)) }")
        } else {
          lines.append("      \(add(wireName, Self.text(of: swift, type: argument.shape)))")
        }
      }
      lines.append("      return \(result)")
    }
    if users.count < calls.count {
      lines.append("    default:")
      lines.append("      return \(empty)")
    }
    lines += ["    }", "  }", ""]
    return lines
  }

  /// A documented path with its own text percent-encoded where a path cannot hold it (a space,
  /// a quote, a backslash, a brace, any non-ASCII character), `/` and the `{name}` placeholders
  /// of `placeholders` (its path parameters) left as they are, to be replaced: the static part
  /// of a path literal, which no text of the document can end or interpolate into.
  static func encodedTemplate(_ path: String, placeholders: Set<String>) -> String {
    let allowed = Set(
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/".utf8)
    var result = ""
    var rest = Substring(path)
    while let character = rest.first {
      if character == "{", let close = rest.firstIndex(of: "}"),
        placeholders.contains(String(rest[rest.index(after: rest.startIndex)..<close]))
      {
        result += rest[...close]
        rest = rest[rest.index(after: close)...]
        continue
      }
      for byte in String(character).utf8 {
        if allowed.contains(byte) {
          result.unicodeScalars.append(Unicode.Scalar(byte))
        } else {
          result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }
      }
      rest = rest.dropFirst()
    }
    return result
  }

  /// The text of `value` for a parameter `ParameterStyle` writes: its JSON (`content:
  /// application/json`), or its `simple` text (a path or a header).
  static func styledText(of value: String, parameter: APIDescription.Parameter) -> String {
    if parameter.isJSON { return "ParameterStyle.json(\(value))" }
    return "ParameterStyle\(parameter.style ?? ".simple(explode: false)").text(of: \(value))"
  }

  /// The text of `value`, of `type`, in a query or a header.
  static func text(of value: String, type: String) -> String {
    switch type {
    case "String": value
    case "Int", "Int32", "Int64", "Double", "Bool": "String(\(value))"
    case "Date": "ISO8601DateFormatter().string(from: \(value))"
    default: "\(value).rawValue"
    }
  }

  // MARK: Repo

  /// The method declaration of `call` in the protocol; with `defaults`, its optional
  /// parameters default to `nil` (the implementation's, the fake's, and the protocol
  /// extension's: a protocol's requirement cannot have defaults); `extra` is a last parameter.
  func signature(_ call: Call, defaults: Bool = false, extra: String? = nil) -> String {
    let arguments =
      (call.arguments + (call.body.map { [$0] } ?? [])).map {
        "\(SwiftNames.escaped($0.name)): \($0.type.declared)"
          + (defaults && $0.type.isOptional ? " = nil" : "")
      } + (extra.map { [$0] } ?? [])
    let answer = call.answersData ? " -> Data" : call.answer.map { " -> \($0.declared)" } ?? ""
    return "func \(SwiftNames.escaped(call.name))(\(arguments.joined(separator: ", "))) async "
      + "throws(RepositoryError)\(answer)"
  }

  /// The signature of `call`'s `<name>Answer` method, which reads its typed error answers too.
  func answerSignature(_ call: Call, defaults: Bool = false) -> String {
    let arguments = (call.arguments + (call.body.map { [$0] } ?? [])).map {
      "\(SwiftNames.escaped($0.name)): \($0.type.declared)"
        + (defaults && $0.type.isOptional ? " = nil" : "")
    }
    return "func \(call.name)Answer(\(arguments.joined(separator: ", "))) async "
      + "throws(RepositoryError) -> APIAnswer<\(successType(call)), \(call.failureType ?? "Never")>"
  }

  /// What `call` gives back when it succeeds, as a type.
  func successType(_ call: Call) -> String {
    call.answersData ? "Data" : call.answer?.declared ?? "Void"
  }

  /// The case of `call` with its arguments passed on by name.
  func endpointCall(_ call: Call, values: (Argument) -> String) -> String {
    let all = call.arguments + (call.body.map { [$0] } ?? [])
    let arguments = all.map { "\(SwiftNames.label($0.name)): \(values($0))" }
    return ".\(SwiftNames.escaped(call.name))"
      + (arguments.isEmpty ? "" : "(\(arguments.joined(separator: ", ")))")
  }

  /// `<Name>Repo.swift`: the protocol and the implementation over the requester.
  func repo(project: String) -> String {
    var lines = [
      "import Foundation",
      "import \(project)Network",
      "",
      "/// The \(name) operations of \(SwiftNames.comment(title)).",
      "///",
      "/// Generated by `trellis-gen api` from \(SwiftNames.comment(source)).",
      "public protocol \(name)Repo: Sendable {",
    ]
    for call in calls {
      lines.append(
        SwiftNames.documentation(
          call.operation.summary,
          fallback: "`\(call.operation.method) \(call.operation.path)`.", indent: "  "))
      lines.append("  \(signature(call))")
      if call.failureType != nil {
        lines += Self.wrappedComment(
          "What ``\(call.name)(\(labels(call)))`` answered, with the error answers the document "
            + "types (\(call.failures.map { "`\($0.status)`" }.joined(separator: ", "))).",
          indent: "  ")
        lines.append("  \(answerSignature(call))")
      }
    }
    lines.append("}")
    // What every conforming type gets: the operations with their optional parameters
    // defaulted (callers hold an `any <Name>Repo`), and the answers' defaults.
    var extensionMembers: [[String]] = []
    for call in calls {
      let all = call.arguments + (call.body.map { [$0] } ?? [])
      let passed = all.map {
        "\(SwiftNames.label($0.name)): \(SwiftNames.escaped($0.name))"
      }.joined(separator: ", ")
      if all.contains(where: { $0.type.isOptional }) {
        let defaulted = signature(call, defaults: true, extra: "_: Void = ()")
        extensionMembers.append([
          "  /// ``\(call.name)(\(labels(call)))`` with the optional parameters not given left",
          "  /// `nil`. (The last parameter is never passed: it keeps this from standing in for",
          "  /// the requirement, so a type that leaves the requirement out does not compile.)",
          "  public \(defaulted) {",
          "    try await \(SwiftNames.escaped(call.name))(\(passed))",
          "  }",
        ])
      }
      if call.failureType != nil {
        extensionMembers.append([
          "  /// Its success alone (what a fake gives); ``\(name)RepoImpl`` reads the error answers"
            + " too.",
          "  public \(answerSignature(call)) {",
          "    .success(try await \(SwiftNames.escaped(call.name))(\(passed)))",
          "  }",
        ])
      }
    }
    if !extensionMembers.isEmpty {
      lines += ["", "extension \(name)Repo {"]
      lines += extensionMembers.map { $0.joined(separator: "\n") }.joined(separator: "\n\n")
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      lines.append("}")
    }
    lines += [
      "",
      "/// The ``\(name)Repo`` that calls ``\(name)DataAPI``.",
      "public final class \(name)RepoImpl: \(name)Repo {",
      "  private let requester: HTTPRequester<\(name)DataAPI>",
      "",
      "  /// Creates the repository.",
      "  public init(requester: HTTPRequester<\(name)DataAPI>) {",
      "    self.requester = requester",
      "  }",
    ]
    for call in calls {
      let endpoint = endpointCall(call) { SwiftNames.escaped($0.name) }
      let labels = (call.arguments + (call.body.map { [$0] } ?? [])).map { "\($0.name):" }.joined()
      lines.append("")
      lines.append("  /// See ``\(name)Repo/\(call.name)(\(labels))``.")
      lines.append("  public \(signature(call, defaults: true)) {")
      if call.answersData {
        lines.append("    try await self.requester.fetchData(\(endpoint))")
      } else if let answer = call.answer {
        lines.append("    try await self.requester.fetch(\(endpoint), as: \(answer.declared).self)")
      } else {
        lines.append("    try await self.requester.send(\(endpoint))")
      }
      lines.append("  }")
      if call.failureType != nil {
        lines += [""] + answerMethod(call, endpoint: endpoint, labels: labels)
      }
    }
    lines.append("}")
    for call in calls where call.failureEnum {
      lines += [""] + failureEnum(call)
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// `text` as documentation comment lines of at most 100 characters (a word longer than a
  /// line keeps a line of its own).
  static func wrappedComment(_ text: String, indent: String) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      if !line.isEmpty, indent.count + 4 + line.count + 1 + word.count > 100 {
        lines.append(line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    lines.append(line)
    return lines.map { "\(indent)/// \($0)" }
  }

  /// `RepoImpl`'s `<name>Answer` method: the success read as the plain method reads it, and
  /// each error status the document types read as its body's type.
  private func answerMethod(_ call: Call, endpoint: String, labels: String) -> [String] {
    let read =
      call.answersData
      ? "{ $0.body }"
      : call.answer.map {
        "{ (response) throws(HTTPError) in "
          + "try response.decode(\($0.declared).self, using: RepositoryCoding.decoder) }"
      } ?? "{ _ in }"
    var lines = [
      "  /// See ``\(name)Repo/\(call.name)Answer(\(labels))``.",
      "  public \(answerSignature(call, defaults: true)) {",
      "    try await self.requester.answer(\(endpoint), read: \(read), failure: { status, body in",
      "      switch status {",
    ]
    let failure = call.failureType ?? "Never"
    if call.failures.count == 1, call.failures[0].pattern == nil {
      // `default` alone: every error status is of the one type.
      lines[2] =
        "    try await self.requester.answer(\(endpoint), read: \(read), failure: { _, body in"
      lines[3] = "      self.requester.decodedFailure(\(failure).self, from: body)"
      return lines + ["    })", "  }"]
    }
    if call.failureEnum {
      for item in call.failures {
        let decoded =
          "self.requester.decodedFailure(\(item.type.declared).self, from: body)"
          + ".map(\(failure).\(item.caseName))"
        lines.append("      \(item.pattern.map { "case \($0)" } ?? "default"): \(decoded)")
      }
    } else {
      let decoded = "self.requester.decodedFailure(\(failure).self, from: body)"
      let patterns = call.failures.compactMap(\.pattern)
      if !patterns.isEmpty {
        lines.append("      case \(patterns.joined(separator: ", ")): \(decoded)")
      }
      if call.failures.contains(where: { $0.pattern == nil }) {
        lines.append("      default: \(decoded)")
      }
    }
    if !call.failures.contains(where: { $0.pattern == nil }) {
      lines.append("      default: nil")
    }
    lines += ["      }", "    })", "  }"]
    return lines
  }

  /// The enum of `call`'s error bodies when they are of several types: a case per status.
  private func failureEnum(_ call: Call) -> [String] {
    var lines = Self.wrappedComment(
      "The error bodies of ``\(name)Repo/\(call.name)Answer(\(labels(call)))``, by the status "
        + "the document gives them.", indent: "")
    lines.append("public enum \(call.failureType ?? ""): Sendable, Equatable {")
    for item in call.failures {
      lines.append(
        item.pattern == nil
          ? "  /// `default`: a status the document names no other way."
          : "  /// `\(item.status)`.")
      lines.append("  case \(item.caseName)(\(item.type.declared))")
    }
    lines.append("}")
    return lines
  }

  // MARK: Fake

  /// `Fake<Name>Repo.swift`: answers from memory, for the layers above.
  func fake(project: String) -> String {
    let answering = calls.filter { $0.answer != nil || $0.answersData }
    var lines = [
      "import Foundation",
      "import \(project)Network",
      "import \(project)Repository",
      "import Synchronization",
      "",
      "/// A ``\(name)Repo`` answering from memory: each operation gives back its answer in",
      "/// ``Answers`` (the samples at first) or fails with the error of ``fail(with:)``;",
      "/// ``recordedRequests`` lists each call with its arguments (as the endpoint it would",
      "/// send: `if case .name(let id) = fake.recordedRequests.last`), ``recordedCalls`` their",
      "/// names.",
      "public final class Fake\(name)Repo: \(name)Repo {",
      "  /// What each operation answers.",
      "  public struct Answers: Sendable {",
    ]
    for call in answering {
      let type = call.answersData ? "Data" : call.answer?.declared ?? "Data"
      let value =
        call.answersData ? "Data(\"sample\".utf8)" : call.answer.map(Self.topLevelSample) ?? ""
      lines.append("    /// What ``\(name)Repo/\(call.name)(\(labels(call)))`` answers.")
      // (`.sample`, not `Type.sample`: the type is written just before it.)
      let shortValue = value == type + ".sample" ? ".sample" : value
      lines.append("    public var \(SwiftNames.escaped(call.name)): \(type) = \(shortValue)")
    }
    lines += [
      "  }",
      "",
      "  private struct State {",
      "    var answers = Answers()",
      "    var failure: RepositoryError?",
      "    var calls: [String] = []",
      "    var requests: [\(name)DataAPI] = []",
      "  }",
      "",
      "  private let state = Mutex(State())",
      "",
      "  /// Creates the fake.",
      "  public init() {}",
      "",
      "  /// The operations called, in order.",
      "  public var recordedCalls: [String] { state.withLock { $0.calls } }",
      "",
      "  /// Each call, with its arguments, in order.",
      "  public var recordedRequests: [\(name)DataAPI] { state.withLock { $0.requests } }",
      "",
      "  /// Changes what the operations answer.",
      "  public func setAnswers(_ change: (inout Answers) -> Void) {",
      "    state.withLock { change(&$0.answers) }",
      "  }",
      "",
      "  /// Makes every operation fail with `error` (`nil`: answer again).",
      "  public func fail(with error: RepositoryError?) {",
      "    state.withLock { $0.failure = error }",
      "  }",
    ]
    for call in calls {
      let hasAnswer = call.answer != nil || call.answersData
      lines += [
        "",
        "  /// The protocol requirement, answered from the fake's state.",
        "  public \(signature(call, defaults: true)) {",
        "    try self.state.withLock { (state) throws(RepositoryError) in",
        "      state.calls.append(\"\(call.name)\")",
        "      state.requests.append(\(endpointCall(call) { SwiftNames.escaped($0.name) }))",
        "      if let failure = state.failure { throw failure }",
      ]
      if hasAnswer { lines.append("      return state.answers.\(SwiftNames.escaped(call.name))") }
      lines += ["    }", "  }"]
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// `name:other:`: the argument labels of `call`.
  func labels(_ call: Call) -> String {
    (call.arguments + (call.body.map { [$0] } ?? [])).map { "\($0.name):" }.joined()
  }

  // MARK: Tests

  /// `<Name>RepoTests.swift`: each operation sends its request and reads its stub's answer.
  func tests(project: String) -> String {
    var lines = [
      "import Foundation",
      "import \(project)Network",
      "import \(project)Repository",
      "import Synchronization",
      "import Testing",
      "",
      "/// Answers with the stub it is given and keeps the requests.",
      "private final class \(name)Responder: HTTPResponder {",
      "  private let state = Mutex<(stub: HTTPStub?, requests: [HTTPRequest])>((nil, []))",
      "",
      "  /// Answers the next requests with `stub`.",
      "  func answer(with stub: HTTPStub?) { state.withLock { $0.stub = stub } }",
      "",
      "  /// The requests received.",
      "  var requests: [HTTPRequest] { state.withLock { $0.requests } }",
      "",
      "  func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {",
      "    let stub = state.withLock { state in",
      "      state.requests.append(request)",
      "      return state.stub",
      "    }",
      "    guard case .response(let status, let headers, let body)? = stub?.outcome else {",
      "      throw .transport(TransportFailure(.other, detail: \"no stub\"))",
      "    }",
      "    return HTTPResponse(status: status, headers: headers, body: body, request: request)",
      "  }",
      "}",
      "",
      "@Suite(\"\(name)Repo (generated from \(SwiftNames.literal(source)))\")",
      "struct \(name)RepoTests {",
      "  private let responder = \(name)Responder()",
      "",
      "  private func makeRepo() -> \(name)RepoImpl {",
      "    \(name)RepoImpl(",
      "      requester: HTTPRequester(",
      "        baseURL: URL(string: \"http://stub.invalid\"), transport: StubTransport(responder: responder),",
      "        configuration: .iso8601Dates))",
      "  }",
    ]
    // The request-reading helpers the tests use, written once at the end of the suite.
    var helpers: Set<RequestHelper> = []
    for call in calls {
      lines.append("")
      lines.append(
        "  /// `\(call.operation.method) \(SwiftNames.comment(call.operation.path))`: the request the server gets, and "
          + "the answer read back.")
      lines.append("  @Test func \(call.name)SendsItsRequest() async throws {")
      let endpoint = endpointCall(call) { $0.sample }
      lines.append("    let endpoint: \(name)DataAPI = \(endpoint)")
      lines.append("    responder.answer(with: endpoint.stub)")
      let invocation =
        "try await makeRepo().\(SwiftNames.escaped(call.name))("
        + (call.arguments + (call.body.map { [$0] } ?? [])).map {
          "\(SwiftNames.label($0.name)): \($0.sample)"
        }.joined(separator: ", ") + ")"
      if call.answersData {
        lines.append("    #expect(\(invocation) == Data(\"sample\".utf8))")
      } else if let answer = call.answer {
        lines.append("    let answer = \(invocation)")
        lines.append("    #expect(answer == \(Self.topLevelSample(answer)))")
      } else {
        lines.append("    \(invocation)")
      }
      lines.append("    let request = try #require(responder.requests.last)")
      lines.append("    #expect(request.method == .\(call.operation.method.lowercased()))")
      // The path as the server reads it: segment by segment, each decoded; a value is one
      // segment, whatever it holds.
      let segments = call.operation.path.split(separator: "/", omittingEmptySubsequences: false)
        .map { segment -> String in
          var text = SwiftNames.literal(String(segment))
          for argument in call.arguments where argument.parameter?.location == .path {
            let value =
              argument.parameter.flatMap { parameter in
                parameter.style != nil || parameter.isJSON
                  ? "\\(" + Self.styledText(of: argument.sample, parameter: parameter) + ")" : nil
              } ?? sampleText(argument)
            text = text.replacingOccurrences(
              of: SwiftNames.literal("{\(argument.parameter?.name ?? "")}"), with: value)
          }
          return "\"\(text)\""
        }
      lines.append("    #expect(segments(of: request) == [\(segments.joined(separator: ", "))])")
      helpers.insert(.segments)
      // A value sent as JSON text reads back as the sample.
      for argument in call.arguments where argument.parameter?.isJSON == true {
        let wire = SwiftNames.literal(argument.parameter?.name ?? "")
        let read =
          argument.parameter?.location == .query
          ? "queryItems(of: request).first { $0.name == \"\(wire)\" }?.value"
          : "request.headers[\"\(wire)\"]"
        guard argument.parameter?.location != .path else { continue }
        lines.append(
          "    #expect(try decoded(\(argument.type.name).self, from: Data((\(read) ?? \"\").utf8)) == \(argument.sample))"
        )
        helpers.insert(.decoded)
        if argument.parameter?.location == .query { helpers.insert(.queryItems) }
      }
      let queries = call.arguments.filter {
        $0.parameter?.location == .query && $0.parameter?.style == nil
          && $0.parameter?.isJSON != true
      }
      if !queries.isEmpty {
        // (Read once, when an item is checked by itself: a list joined by a separator reads
        // its one item apart.)
        if queries.contains(where: { $0.parameter?.listSeparator == nil }) {
          lines.append("    let items = queryItems(of: request)")
          helpers.insert(.queryItems)
        }
        for argument in queries {
          let wire = SwiftNames.literal(argument.parameter?.name ?? "")
          let elements = argument.sampleElements.map(elementValue).joined(separator: ", ")
          if let separator = argument.parameter?.listSeparator {
            // One item: its elements apart at the style's separator, each then decoded.
            let encoded = separator == "," ? "," : separator == " " ? "%20" : "%7C"
            lines.append(
              "    #expect(elements(of: \"\(wire)\", in: request, separatedBy: \"\(encoded)\") == [\(elements)])"
            )
            helpers.insert(.elements)
          } else if argument.shape.hasPrefix("[") {
            // An item per element, in order.
            lines.append(
              "    #expect(items.filter { $0.name == \"\(wire)\" }.map(\\.value) == [\(elements)])")
          } else {
            lines.append(
              "    #expect(items.contains(URLQueryItem(name: \"\(wire)\", value: \(sampleValue(argument)))))"
            )
          }
        }
      }
      for argument in call.arguments
      where argument.parameter?.location == .header && argument.parameter?.style == nil
        && argument.parameter?.isJSON != true
      {
        let wire = SwiftNames.literal(argument.parameter?.name ?? "")
        lines.append("    #expect(request.headers[\"\(wire)\"] == \(sampleValue(argument)))")
      }
      if let body = call.body, case .json? = call.operation.body {
        lines.append(
          "    #expect(try decoded(\(body.type.declared).self, from: request.body ?? Data()) == \(body.sample))"
        )
        helpers.insert(.decoded)
      }
      lines.append(
        "    #expect(request.headers[\"Authorization\"] == nil)  // no session plugin here")
      lines.append("  }")
    }
    for call in calls where call.failureType != nil {
      let test = failureTest(call)
      if !test.isEmpty { lines += [""] + test }
    }
    if let call = calls.first(where: { call in
      (call.arguments + (call.body.map { [$0] } ?? [])).contains { $0.type.isOptional }
    }) {
      lines += [""] + defaultsTest(call)
    }
    if let first = calls.first {
      let invocation =
        "try await makeRepo().\(SwiftNames.escaped(first.name))("
        + (first.arguments + (first.body.map { [$0] } ?? [])).map {
          "\(SwiftNames.label($0.name)): \($0.sample)"
        }.joined(separator: ", ") + ")"
      lines += [
        "",
        "  /// A status the operation does not expect is a ``RepositoryError``, never an answer.",
        "  @Test func aFailureStatusIsARepositoryError() async throws {",
        "    responder.answer(with: .status(404))",
        "    await #expect(throws: RepositoryError.self) {",
        "      \(first.answer != nil || first.answersData ? "_ = " : "")\(invocation)",
        "    }",
        "  }",
      ]
    }
    for helper in RequestHelper.allCases where helpers.contains(helper) {
      lines += [""] + helper.lines
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// A function a generated suite reads its requests with (one line per check, not five: a
  /// large document's tests are a fifth of its generated text).
  enum RequestHelper: CaseIterable {
    case segments, queryItems, elements, decoded

    /// Its declaration, in the suite.
    var lines: [String] {
      switch self {
      case .segments:
        [
          "  /// The path of `request` as the server reads it: segment by segment, each decoded.",
          "  private func segments(of request: HTTPRequest) -> [String] {",
          "    let path = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedPath",
          "    return (path ?? \"\").split(separator: \"/\", omittingEmptySubsequences: false).map {",
          "      $0.removingPercentEncoding ?? \"\"",
          "    }",
          "  }",
        ]
      case .queryItems:
        [
          "  /// The query items of `request`, decoded.",
          "  private func queryItems(of request: HTTPRequest) -> [URLQueryItem] {",
          "    URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []",
          "  }",
        ]
      case .elements:
        [
          "  /// The elements of the query item `name` of `request`: split where the encoded value",
          "  /// has `separator`, then each decoded.",
          "  private func elements(of name: String, in request: HTTPRequest, separatedBy separator: String)",
          "    -> [String]",
          "  {",
          "    let item = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?",
          "      .percentEncodedQueryItems?.first { $0.name == name }?.value",
          "    return (item ?? \"\").components(separatedBy: separator).map {",
          "      $0.removingPercentEncoding ?? \"\"",
          "    }",
          "  }",
        ]
      case .decoded:
        [
          "  /// `data` read as JSON of `type`, dates in ISO 8601 as the requester writes them.",
          "  private func decoded<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {",
          "    let decoder = JSONDecoder()",
          "    decoder.dateDecodingStrategy = .iso8601",
          "    return try decoder.decode(type, from: data)",
          "  }",
        ]
      }
    }
  }

  /// A test that through the protocol `call`'s optional parameters may be left out: the
  /// request is the one sent with each of them `nil`.
  private func defaultsTest(_ call: Call) -> [String] {
    let all = call.arguments + (call.body.map { [$0] } ?? [])
    let required = all.filter { !$0.type.isOptional }.map {
      "\(SwiftNames.label($0.name)): \($0.sample)"
    }
    let every = all.map {
      "\(SwiftNames.label($0.name)): \($0.type.isOptional ? "nil" : $0.sample)"
    }
    let endpoint = endpointCall(call) { $0.type.isOptional ? "nil" : $0.sample }
    let assign = call.answer != nil || call.answersData ? "_ = " : ""
    let name = SwiftNames.escaped(call.name)
    var lines = [
      "  /// Through the protocol, optional parameters may be left out: each is then `nil`.",
      "  @Test func optionalParametersMayBeLeftOut() async throws {",
      "    let repo: any \(self.name)Repo = makeRepo()",
      "    let endpoint: \(self.name)DataAPI = \(endpoint)",
      "    responder.answer(with: endpoint.stub)",
      "    \(assign)try await repo.\(name)(\(required.joined(separator: ", ")))",
      "    \(assign)try await repo.\(name)(\(every.joined(separator: ", ")))",
      "    let requests = responder.requests",
      "    try #require(requests.count == 2)",
      "    #expect(requests[0].url == requests[1].url)",
    ]
    if case .multipart? = call.operation.body {
      // (Each multipart body has a boundary of its own: the rest of the headers compared.)
      lines.append(
        "    #expect(requests[0].headers.filter { $0.name.lowercased() != \"content-type\" }.map(\\.value) "
          + "== requests[1].headers.filter { $0.name.lowercased() != \"content-type\" }.map(\\.value))"
      )
    } else {
      lines.append("    #expect(requests[0].headers == requests[1].headers)")
      lines.append("    #expect(requests[0].body == requests[1].body)")
    }
    if call.arguments.contains(where: { $0.parameter?.location == .query }),
      !call.arguments.contains(where: { $0.parameter?.location == .query && !$0.type.isOptional })
    {
      lines.append("    // Every query parameter is optional: there is no query.")
      lines.append(
        "    #expect(URLComponents(url: requests[0].url, resolvingAgainstBaseURL: false)?"
          + ".queryItems == nil)")
    }
    lines.append("  }")
    return lines
  }

  /// A test that each error status the document types for `call` is read as its body's type:
  /// a status of each (a range's and `default`'s chosen apart from the others), answered with
  /// its type's sample.
  private func failureTest(_ call: Call) -> [String] {
    let invocation =
      "try await makeRepo().\(call.name)Answer("
      + (call.arguments + (call.body.map { [$0] } ?? [])).map {
        "\(SwiftNames.label($0.name)): \($0.sample)"
      }.joined(separator: ", ") + ")"
    var lines = [
      "  /// The error answers the document types for `\(call.operation.method) "
        + "\(SwiftNames.comment(call.operation.path))`, each read as its body's type.",
      "  @Test func \(call.name)ReadsItsErrorAnswers() async throws {",
    ]
    let exact = Set(call.failures.compactMap { Int($0.status) })
    var used: Set<Int> = []
    // Each answer: a status only it stands for, the stub, and the body expected.
    var rows: [(status: Int, stub: String, expected: String)] = []
    for item in call.failures {
      // A status only this answer stands for: its own, the range's first that no exact
      // status takes, or (for `default`) one that no other answer takes.
      let candidates: [Int]
      if let code = Int(item.status) {
        candidates = [code]
      } else if let first = item.status.first?.wholeNumberValue {
        candidates =
          Array((first * 100 + 18)...(first * 100 + 99)) + Array((first * 100)...(first * 100 + 17))
      } else {
        candidates = [500, 503, 418, 409, 599, 399]
      }
      let taken = { (status: Int) -> Bool in
        guard Int(item.status) == nil else { return false }  // an exact status is its own
        return exact.contains(status) || used.contains(status)
          || call.failures.contains { other in
            other.pattern != nil && Int(other.status) == nil && other.status != item.status
              && other.status.first?.wholeNumberValue == status / 100
          }
      }
      guard let status = candidates.first(where: { !taken($0) }) else { continue }
      used.insert(status)
      let sample = Self.topLevelSample(item.type)
      rows.append(
        (
          status,
          ".iso8601JSON(\(sample)" + (item.type.isOptional ? " as \(item.type.declared)" : "")
            + ", status: \(status))",
          call.failureEnum ? ".\(item.caseName)(\(sample))" : sample
        ))
    }
    // (No status only one answer stands for: nothing to test apart.)
    guard !rows.isEmpty else { return [] }
    let failure = call.failureType ?? "Never"
    let checks = [
      "      let answer = \(invocation)",
      "      guard case .failure(let status, let read, _) = answer else {",
      "        Issue.record(\"\\(expected) was not read as an error answer: \\(answer)\")",
      "        continue",
      "      }",
      "      #expect(status == expected)",
      "      #expect(read == body)",
      "    }",
      "  }",
    ]
    // Every status of the one type, as most documents say (an error object for each of five
    // statuses): a loop over the statuses, the body written once.
    let types = Set(call.failures.map(\.type.declared))
    if !call.failureEnum, types == [failure], Set(rows.map(\.expected)).count == 1 {
      lines += [
        "    let body: \(failure) = \(rows[0].expected)",
        "    for expected in [\(rows.map { String($0.status) }.joined(separator: ", "))] {",
        "      responder.answer(with: .iso8601JSON(body, status: expected))",
      ]
      return lines + checks
    }
    // One loop over a table: a document that types five errors for each of 250 operations
    // gets a few lines per operation, not a block per status.
    lines.append("    let answers: [(status: Int, stub: HTTPStub, body: \(failure))] = [")
    for row in rows {
      lines.append("      (\(row.status), \(row.stub), \(row.expected)),")
    }
    lines += [
      "    ]",
      "    for (expected, stub, body) in answers {",
      "      responder.answer(with: stub)",
    ]
    return lines + checks
  }

  /// How `argument`'s sample reads in the path, in a Swift string literal.
  private func sampleText(_ argument: Argument) -> String {
    if argument.sampleText.hasPrefix("\u{0}") {
      return "\\(\(argument.sampleText.dropFirst()).sample.rawValue)"
    }
    return SwiftNames.literal(argument.sampleText)
  }

  /// A Swift expression of one element's sample text (`"sample"`, or an enumeration's raw value).
  private func elementValue(_ text: String) -> String {
    if text.hasPrefix("\u{0}") { return "\(text.dropFirst()).sample.rawValue" }
    return "\"\(SwiftNames.literal(text))\""
  }

  /// A Swift expression of `argument`'s sample as text in the request.
  private func sampleValue(_ argument: Argument) -> String {
    if argument.sampleText.hasPrefix("\u{0}") {
      let type = String(argument.sampleText.dropFirst())
      return "\(type).sample.rawValue"
    }
    return "\"\(SwiftNames.literal(argument.sampleText))\""
  }
}

extension String {
  /// The string with `0`s before it up to `length` characters.
  fileprivate func leftPadded(to length: Int) -> String {
    String(repeating: "0", count: max(0, length - count)) + self
  }
}
