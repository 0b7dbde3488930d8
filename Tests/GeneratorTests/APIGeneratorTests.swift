import Foundation
import Testing

@testable import TrellisGenerator

/// A small API that uses each construct `trellis-gen api` maps: parameters of every place, a
/// session-free operation, objects, an enumeration, `allOf`, a nullable and optional fields,
/// `date-time`, `int64`, a dictionary, an untyped value, an inline enumeration, and a `oneOf`
/// with a discriminator.
private let billingDocument = """
  openapi: 3.0.3
  info: {title: Billing, version: '1'}
  security: [{bearer: []}]
  paths:
    /invoices:
      get:
        tags: [billing]
        operationId: listInvoices
        summary: The invoices, newest first.
        parameters:
          - {name: status, in: query, schema: {$ref: '#/components/schemas/ZqInvoiceStatus'}}
          - {name: page_size, in: query, required: true, schema: {type: integer, format: int32}}
          - {name: X-Request-ID, in: header, schema: {type: string}}
        responses:
          '200':
            description: ok
            content:
              application/json:
                schema: {type: array, items: {$ref: '#/components/schemas/ZqInvoice'}}
      post:
        tags: [billing]
        operationId: createInvoice
        requestBody:
          required: true
          content: {application/json: {schema: {$ref: '#/components/schemas/ZqNewInvoice'}}}
        responses:
          '201':
            description: created
            content: {application/json: {schema: {$ref: '#/components/schemas/ZqInvoice'}}}
    /invoices/{invoice_id}:
      delete:
        tags: [billing]
        operationId: deleteInvoice
        parameters: [{name: invoice_id, in: path, required: true, schema: {type: string}}]
        responses: {'204': {description: gone}}
    /health:
      get:
        tags: [billing]
        operationId: health
        security: []
        responses: {'204': {description: ok}}
  components:
    schemas:
      ZqInvoiceStatus: {type: string, enum: [draft, paid, in_review]}
      ZqMoney:
        type: object
        required: [amount_cents, currency]
        properties:
          amount_cents: {type: integer, format: int64}
          currency: {type: string}
      ZqNewInvoice:
        type: object
        required: [customer, total]
        properties:
          customer: {type: string}
          total: {$ref: '#/components/schemas/ZqMoney'}
          note: {type: string, nullable: true}
      ZqInvoice:
        allOf:
          - $ref: '#/components/schemas/ZqNewInvoice'
          - type: object
            required: [id, status, issued_at]
            properties:
              id: {type: string}
              status: {$ref: '#/components/schemas/ZqInvoiceStatus'}
              issued_at: {type: string, format: date-time}
              lines: {type: array, items: {$ref: '#/components/schemas/ZqLine'}}
              payment: {$ref: '#/components/schemas/ZqPayment'}
              metadata: {type: object, additionalProperties: {type: string}}
              extra: {}
      ZqLine:
        type: object
        required: [label]
        properties:
          label: {type: string}
          kind: {type: string, enum: [item, discount]}
      ZqPayment:
        oneOf: [{$ref: '#/components/schemas/ZqCard'}, {$ref: '#/components/schemas/ZqTransfer'}]
        discriminator:
          propertyName: method
          mapping: {card: '#/components/schemas/ZqCard', bank_transfer: '#/components/schemas/ZqTransfer'}
      ZqCard:
        type: object
        required: [method, last4]
        properties: {method: {type: string}, last4: {type: string}}
      ZqTransfer:
        type: object
        required: [method, iban]
        properties: {method: {type: string}, iban: {type: string}}
      ZqUnused: {type: object, properties: {x: {type: string}}}

  """

/// `text` with its runs of spaces and line breaks made one space: what `swift format` may wrap
/// differently reads the same.
private func flattened(_ text: String) -> String {
  text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    .replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: " )", with: ")")
}

/// A sandbox of the project without what `trellis-gen api` generated in it: a team's tree
/// may hold the layer of its own document, and these tests generate from theirs.
/// An `allOf` chain 3,000 schemas deep (each `allOf` its successor and an object).
private let deepAllOfDocument: String = {
  var lines = [
    "openapi: 3.0.0", "info: {title: A}", "paths:", "  /a:", "    get:", "      responses:",
    "        '200':", "          description: ok",
    "          content: {application/json: {schema: {$ref: '#/components/schemas/S0'}}}",
    "components:", "  schemas:",
  ]
  for index in 0..<3000 {
    let next = "{$ref: '#/components/schemas/S\(index + 1)'}"
    let own = "{type: object, properties: {p\(index): {type: string}}}"
    lines.append("    S\(index): {allOf: [\(next), \(own)]}")
  }
  lines.append("    S3000: {type: object, properties: {a: {type: string}}}")
  return lines.joined(separator: "\n") + "\n"
}()

/// A sandbox without the files `trellis-gen api` generated from the tree's own document.
func apiSandbox() throws -> Sandbox {
  let sandbox = try Sandbox()
  let manager = FileManager.default
  for folder in [Generator.apiFolder, "Tests/TestSupport", "Tests/RepositoryTests"] {
    for name in (try? manager.contentsOfDirectory(atPath: sandbox.root + "/" + folder)) ?? [] {
      let path = "\(folder)/\(name)"
      if let text = try? sandbox.read(path), text.hasPrefix("// Generated by `trellis-gen api` ") {
        try manager.removeItem(atPath: sandbox.root + "/" + path)
      }
    }
  }
  return sandbox
}

@Suite("trellis-gen api: the Repository layer from an OpenAPI document")
struct APIGeneratorTests {
  private let models = "Modules/Repository/API/APIModels.swift"
  private let dataAPI = "Modules/Repository/API/BillingDataAPI.swift"
  private let repo = "Modules/Repository/API/BillingRepo.swift"

  private func generated(_ document: String = billingDocument, extra: [String] = [])
    throws -> (Sandbox, (status: Int32, output: String, errors: String))
  {
    let sandbox = try apiSandbox()
    try sandbox.write(document, to: "api/billing.yaml")
    return (sandbox, sandbox.run(["api", "api/billing.yaml"] + extra))
  }

  /// Text from the document is data: a description, a title, a path, a schema's name, a
  /// discriminator or an enumeration value holding a line break of any kind (`\r\n` from a
  /// Windows editor, a lone `\r`, `U+2028`, `U+0085`), a comment's end or quotes never ends a
  /// comment or a literal: no line of code comes out of it.
  @Test func textFromTheDocumentNeverBecomesCode() throws {
    let payloads = [
      "a\\r\\nfunc injected() {}\\r\\n", "b\\rfunc injected() {}", "c\\u2028func injected() {}",
      "d\\u0085func injected() {}", "e\\nfunc injected() {}\\n//",
      "f */ func injected() {} /* \\\" \\\\",
    ]
    let text = payloads.joined(separator: " ")
    let document = """
      {"openapi": "3.0.3", "info": {"title": "\(text)", "version": "1"},
       "paths": {
        "/x/{a/\\"}/{/\\\\(fatalError())/{b": {"get": {"tags": ["billing"], "operationId": "braces",
          "responses": {"204": {"description": "ok"}}}},
        "/items/{item_id}": {"get": {
         "tags": ["billing"], "operationId": "getItem", "summary": "\(text)",
         "description": "\(text)",
         "parameters": [{"name": "item_id", "in": "path", "required": true,
                         "description": "\(text)", "schema": {"type": "string"}}],
         "responses": {"200": {"description": "\(text)", "content": {"application/json": {
           "schema": {"$ref": "#/components/schemas/ZqItem\\nfunc injected() {}"}}}}}}}},
       "components": {"schemas": {
         "ZqItem\\nfunc injected() {}": {"type": "object", "description": "\(text)",
           "required": ["kind"],
           "properties": {
             "kind": {"type": "string", "description": "\(text)",
                      "enum": ["\(payloads[0])", "\(payloads[2])", "plain"]},
             "shape": {"$ref": "#/components/schemas/ZqShape"}}},
         "ZqShape": {"description": "\(text)", "oneOf": [
             {"$ref": "#/components/schemas/ZqCircle"}, {"$ref": "#/components/schemas/ZqSquare"}],
           "discriminator": {"propertyName": "kind\\nfunc injected() {}"}},
         "ZqCircle": {"type": "object", "properties": {"kind\\nfunc injected() {}": {"type": "string"}}},
         "ZqSquare": {"type": "object", "properties": {"kind\\nfunc injected() {}": {"type": "string"}}}
       }}}
      """
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    try sandbox.write(document, to: "api/billing.json")
    let result = sandbox.run(["api", "api/billing.json"])
    #expect(result.status == 0, "\(result.errors)")
    var files: [String] = []
    for folder in [Generator.apiFolder, "Tests/TestSupport", "Tests/RepositoryTests"] {
      for name in try FileManager.default.contentsOfDirectory(atPath: sandbox.root + "/" + folder) {
        let text = try sandbox.read("\(folder)/\(name)")
        guard text.hasPrefix("// Generated by `trellis-gen api` ") else { continue }
        files.append(name)
        for line in text.split(separator: "\n") {
          // Outside comments, a path's `\(` never becomes an interpolation.
          #expect(
            line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
              || !line.replacingOccurrences(of: "\\\\", with: "").contains("\\(fatalError"),
            "\(name): \(line)")
          #expect(
            !line.trimmingCharacters(in: .whitespaces).hasPrefix("func injected"),
            "\(name): \(line)")
          #expect(
            !line.unicodeScalars.contains { SwiftNames.isLineSeparator($0) },
            "\(name): \(line)")
        }
      }
    }
    #expect(files.count >= 5, "\(files)")
  }

  /// Each construct becomes the Swift a team would write by hand.
  @Test func eachSchemaConstructMapsToItsSwift() throws {
    let (sandbox, result) = try generated()
    defer { sandbox.cleanUp() }
    #expect(result.status == 0, "\(result.errors)")
    let text = flattened(try sandbox.read(models))
    for expected in [
      // An object; int64; a JSON name that is not Swift's is mapped by CodingKeys.
      "public struct ZqMoneyModel: Codable, Sendable, Equatable {",
      "public var amountCents: Int64", "case amountCents = \"amount_cents\"",
      // Optional (not required) and nullable fields.
      "public var note: String?",
      // allOf: the parts' properties in one struct, required as either part says.
      "public struct ZqInvoiceModel: Codable, Sendable, Equatable {",
      "public var customer: String", "public var total: ZqMoneyModel", "public var id: String",
      // date-time, a list, a dictionary, an untyped value.
      "public var issuedAt: Date", "public var lines: [ZqLineModel]?",
      "public var metadata: [String: String]?", "public var extra: JSONValue?",
      "public enum JSONValue: Codable, Sendable, Equatable {",
      // An enumeration keeps values it does not know.
      "public enum ZqInvoiceStatusModel: Codable, Sendable, Hashable {", "case inReview",
      "case undocumented(String)", "case \"in_review\": self = .inReview",
      // An inline enumeration is nested in its object.
      "public enum Kind: Codable, Sendable, Hashable {",
      // oneOf with a discriminator: an enum with associated values, read by the property.
      "public indirect enum ZqPaymentModel: Codable, Sendable, Equatable {",
      "case zqCard(ZqCardModel)", "case zqTransfer(ZqTransferModel)",
      "case value = \"method\"",
      "case \"bank_transfer\": self = .zqTransfer(try single.decode(ZqTransferModel.self))",
    ] {
      #expect(text.contains(expected), "missing: \(expected)")
    }
    // Only the schemas the operations use.
    #expect(!text.contains("ZqUnusedModel"))
  }

  /// The DataAPI has a case per operation with its parameters, and says which need the
  /// session; the repository, its fake and its tests follow; the composition root makes it.
  @Test func theEndpointsRepositoryFakeAndTestsAreWrittenAndWired() throws {
    let (sandbox, result) = try generated()
    defer { sandbox.cleanUp() }
    #expect(result.status == 0, "\(result.errors)")
    let api = flattened(try sandbox.read(dataAPI))
    for expected in [
      "public enum BillingDataAPI: HTTPEndpoint {",
      "case listInvoices(status: ZqInvoiceStatusModel? = nil, pageSize: Int32, xRequestID: String? = nil)",
      "case createInvoice(body: ZqNewInvoiceModel)", "case deleteInvoice(invoiceID: String)",
      "case health",
      "case .deleteInvoice(let invoiceID): \"/invoices/\\(PercentEncoding.pathSegment(invoiceID))\"",
      "public var isPathPercentEncoded: Bool { true }",
      "items.append(URLQueryItem(name: PercentEncoding.encode(\"page_size\"), value: PercentEncoding.encode(String(pageSize))))",
      "if let status { items.append(URLQueryItem(name: PercentEncoding.encode(\"status\"), value: PercentEncoding.encode(status.rawValue))) }",
      "public var isQueryPercentEncoded: Bool { true }",
      "headers[\"X-Request-ID\"] = xRequestID",
      "case .createInvoice(let body): .json(body)",
      "case .health: false",
      "case .listInvoices: .iso8601JSON([ZqInvoiceModel.sample] as [ZqInvoiceModel])",
      "case .deleteInvoice: .status(204)",
    ] {
      #expect(api.contains(expected), "missing: \(expected)")
    }
    let repoText = flattened(try sandbox.read(repo))
    #expect(repoText.contains("public protocol BillingRepo: Sendable {"))
    #expect(
      repoText.contains(
        "func createInvoice(body: ZqNewInvoiceModel) async throws(RepositoryError) -> ZqInvoiceModel"
      ))
    #expect(
      repoText.contains("try await self.requester.send(.deleteInvoice(invoiceID: invoiceID))"))
    // The fake records each call with its arguments, as the endpoint it would send.
    let fake = flattened(try sandbox.read("Tests/TestSupport/FakeBillingRepo.swift"))
    #expect(fake.contains("public var recordedRequests: [BillingDataAPI]"))
    #expect(
      fake.contains(
        "state.requests.append(.listInvoices(status: status, pageSize: pageSize, xRequestID: xRequestID))"
      ))
    #expect(fake.contains("state.requests.append(.health)"))
    let tests = try sandbox.read("Tests/RepositoryTests/BillingRepoTests.swift")
    #expect(tests.contains("@Test func listInvoicesSendsItsRequest()"))
    #expect(sandbox.exists("Tests/RepositoryTests/APIModelsTests.swift"))
    let composition = try sandbox.read("App/CompositionRoot.swift")
    #expect(composition.contains("let billingRepo = BillingRepoImpl("))
    // Every file says where it came from and holds the digest that tells an edit apart.
    for path in [models, dataAPI, repo] {
      let text = try sandbox.read(path)
      #expect(text.hasPrefix("// Generated by `trellis-gen api` from api/billing.yaml.\n"))
      #expect(Generator.recordedDigest(in: text) != nil)
    }
  }

  /// Running it again after the document changed updates what it generated, merges the new
  /// version into a file the team edited (keeping the edit), and changes nothing when all is
  /// up to date.
  @Test func aSecondRunUpdatesWhatItWroteAndMergesWhatTheTeamEdited() throws {
    let (sandbox, first) = try generated()
    defer { sandbox.cleanUp() }
    #expect(first.status == 0, "\(first.errors)")
    let edited = try sandbox.read(repo) + "\n// Our own note.\n"
    try sandbox.write(edited, to: repo)
    // The document gains a field and an operation.
    let changed =
      billingDocument
      .replacingOccurrences(
        of: "        currency: {type: string}\n",
        with: "        currency: {type: string}\n        rounding: {type: boolean}\n"
      )
      .replacingOccurrences(
        of: "  /health:\n",
        with: "  /invoices/{invoice_id}/pdf:\n    get:\n      tags: [billing]\n"
          + "      operationId: invoicePDF\n      parameters: [{name: invoice_id, in: path, "
          + "required: true, schema: {type: string}}]\n      responses: {'200': {description: "
          + "ok, content: {application/pdf: {}}}}\n  /health:\n")
    #expect(changed != billingDocument)
    try sandbox.write(changed, to: "api/billing.yaml")
    let composition = try sandbox.read("App/CompositionRoot.swift")

    let dryRun = sandbox.run("api", "api/billing.yaml", "--dry-run")
    #expect(dryRun.status == 0, "\(dryRun.errors)")
    #expect(dryRun.output.contains("=== changed: \(models)"))
    #expect(dryRun.output.contains("+  public var rounding: Bool?"))
    #expect(try sandbox.read(repo) == edited)

    let second = sandbox.run("api", "api/billing.yaml")
    #expect(second.status == 0, "\(second.errors)")
    #expect(try sandbox.read(models).contains("public var rounding: Bool?"))
    #expect(try sandbox.read(dataAPI).contains("case invoicePDF(invoiceID: String)"))
    // The team's edit and the new operation, merged from the text it was generated as.
    let merged = try sandbox.read(repo)
    #expect(merged.contains("// Our own note."))
    #expect(
      flattened(merged).contains(
        "func invoicePDF(invoiceID: String) async throws(RepositoryError) -> Data"))
    #expect(second.output.contains("merged: \(repo) keeps your edit"), "\(second.output)")
    #expect(try sandbox.read(".trellis-gen/" + repo).contains("func invoicePDF"))
    // The repository is made once.
    #expect(try sandbox.read("App/CompositionRoot.swift") == composition)

    let before = try sandbox.snapshot()
    let third = sandbox.run("api", "api/billing.yaml")
    #expect(third.status == 0)
    #expect(third.output.contains("nothing to change"), "\(third.output)")
    #expect(try sandbox.snapshot() == before)
  }

  /// The models of a large document are split by the first letter of their names, so no
  /// file is a wall; a letter no name has any more loses its file (untouched, so nothing of the
  /// team's goes), and the kept text beside it goes too.
  @Test func aLargeDocumentsModelsAreSplitByLetter() throws {
    func document(letters: String, count: Int = 60) -> String {
      var lines = [
        "openapi: 3.0.0", "info: {title: A}", "paths:", "  /a:", "    get:",
        "      tags: [zq]", "      operationId: all", "      responses:", "        '200':",
        "          description: ok", "          content:", "            application/json:",
        "              schema:", "                type: object", "                properties:",
      ]
      var schemas = ["components:", "  schemas:"]
      for letter in letters {
        for index in 0..<count {
          let name = "\(letter)zq\(index)"
          lines.append(
            "                  p\(letter)\(index): {$ref: '#/components/schemas/\(name)'}")
          let properties = (0..<6).map { "f\($0): {type: string}" }.joined(separator: ", ")
          schemas.append("    \(name): {type: object, properties: {\(properties)}}")
        }
      }
      return (lines + schemas).joined(separator: "\n") + "\n"
    }
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    try sandbox.write(document(letters: "ABC"), to: "api/big.yaml")
    let first = sandbox.run("api", "api/big.yaml")
    #expect(first.status == 0, "\(first.errors)")
    for letter in ["A", "B", "C"] {
      let path = "Modules/Repository/API/APIModels+\(letter).swift"
      let text = try sandbox.read(path)
      #expect(text.contains("public struct \(letter)zq59Model"), "\(path)")
      // Only its letter's types.
      for other in ["A", "B", "C"] where other != letter {
        #expect(!text.contains("public struct \(other)zq"), "\(path) holds \(other)")
      }
    }
    #expect(try sandbox.read(models).contains("APIModels+<letter>.swift"))

    try sandbox.write(document(letters: "AC"), to: "api/big.yaml")
    let second = sandbox.run("api", "api/big.yaml")
    #expect(second.status == 0, "\(second.errors)")
    #expect(second.output.contains("deleted Modules/Repository/API/APIModels+B.swift"))
    #expect(!sandbox.exists("Modules/Repository/API/APIModels+B.swift"))
    #expect(!sandbox.exists(".trellis-gen/Modules/Repository/API/APIModels+B.swift"))
    #expect(sandbox.exists("Modules/Repository/API/APIModels+C.swift"))

    // A letter of many models is split again, in order: no file is a wall.
    try sandbox.write(document(letters: "D", count: 400), to: "api/big.yaml")
    let many = sandbox.run("api", "api/big.yaml")
    #expect(many.status == 0, "\(many.errors)")
    let names = ["D"] + (2...9).map { "D\($0)" }
    let parts = try names.filter { sandbox.exists("Modules/Repository/API/APIModels+\($0).swift") }
      .map { try sandbox.read("Modules/Repository/API/APIModels+\($0).swift") }
    #expect(parts.count >= 3, "\(parts.count) parts")
    #expect(parts.first?.contains("public struct Dzq0Model") == true)
    #expect(parts.last?.contains("public struct Dzq399Model") == true)
    for part in parts {
      let lines = part.split(separator: "\n", omittingEmptySubsequences: false).count
      // (The bound is on the text generated; formatting adds a few lines.)
      #expect(lines < Generator.modelLinesPerFile * 5 / 4, "\(lines) lines")
    }

    // Below the size that splits: one file again, the letter files gone (their types are the
    // ones it declares, not a collision).
    try sandbox.write(document(letters: "A"), to: "api/big.yaml")
    let third = sandbox.run("api", "api/big.yaml")
    #expect(third.status == 0, "\(third.errors)")
    #expect(!sandbox.exists("Modules/Repository/API/APIModels+A.swift"))
    #expect(!sandbox.exists("Modules/Repository/API/APIModels+C.swift"))
    #expect(try sandbox.read(models).contains("public struct Azq59Model"))
  }

  /// Schemas named `Model` and `model` are `Model` and `Model2` (never `2Model`, which is not
  /// a name).
  @Test func schemasNamedModelAreNumberedAfterTheWord() throws {
    let document = try YAMLReader.read(
      """
      openapi: 3.0.0
      info: {title: A}
      paths:
        /a:
          get:
            responses:
              '200':
                description: ok
                content:
                  application/json:
                    schema:
                      oneOf: [{$ref: '#/components/schemas/Model'}, {$ref: '#/components/schemas/model'}]
      components:
        schemas:
          Model: {type: object, properties: {a: {type: string}}}
          model: {type: object, properties: {b: {type: string}}}
      """)
    let writer = try ModelWriter(try APIDescription(document))
    #expect(Set(writer.typeNames.values) == ["Model", "Model2"])
  }

  /// An edit and a change of the document to the same lines: the run writes nothing and
  /// exits 1, showing both versions of those lines; so does an edited file whose generated
  /// text was not kept (a tree generated by an older trellis-gen). Never a tree whose tests no
  /// longer match the edited file.
  @Test func anEditTheNewVersionChangesDifferentlyStopsTheRun() throws {
    let (sandbox, first) = try generated()
    defer { sandbox.cleanUp() }
    #expect(first.status == 0, "\(first.errors)")
    let original = try sandbox.read(repo)
    try sandbox.write(
      original.replacingOccurrences(
        of: "/// The invoices, newest first.", with: "/// Our invoices, newest first."),
      to: repo)
    try sandbox.write(
      billingDocument.replacingOccurrences(
        of: "summary: The invoices, newest first.", with: "summary: Every invoice."),
      to: "api/billing.yaml")
    let before = try sandbox.snapshot()
    let result = sandbox.run("api", "api/billing.yaml")
    #expect(result.status == 1)
    #expect(result.output.contains("conflict: \(repo)"), "\(result.output)")
    #expect(result.output.contains("/// Our invoices, newest first."))
    #expect(result.output.contains("/// Every invoice."))
    #expect(result.errors.contains("nothing was written"), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)

    // Without the kept text, the edit cannot be merged: nothing is written either.
    try FileManager.default.removeItem(atPath: sandbox.root + "/.trellis-gen/" + repo)
    try sandbox.write(original + "\n// Our own note.\n", to: repo)
    let unkept = try sandbox.snapshot()
    let again = sandbox.run("api", "api/billing.yaml")
    #expect(again.status == 1)
    #expect(again.output.contains("cannot merge: \(repo)"), "\(again.output)")
    #expect(try sandbox.snapshot() == unkept)
  }

  /// What cannot be generated is refused with where it is and why, and nothing is written.
  @Test(arguments: [
    (
      "info: {title: A, version: '1'}\nswagger: '2.0'\npaths: {}\n",
      "is not OpenAPI 3.0 or 3.1 (Swagger 2.0)"
    ),
    (
      "openapi: 3.0.0\ninfo: {title: A}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n"
        + "          description: ok\n          content: {application/json: {schema: "
        + "{$ref: '#/components/schemas/Missing'}}}\n",
      "the $ref \"#/components/schemas/Missing\" resolves nowhere"
    ),
    (
      "openapi: 3.0.0\ninfo: {title: A}\npaths:\n  /a:\n    get:\n      parameters: [{name: s, "
        + "in: cookie, schema: {type: string}}]\n      responses: {}\n",
      "the cookie parameter \"s\" cannot be generated"
    ),
    (
      "openapi: 3.0.0\ninfo: {title: A}\npaths:\n  /a: [unclosed\n",
      "api/billing.yaml: line 4, column 7: this [ is never closed"
    ),
    (
      "openapi: 3.0.0\ninfo: {title: A}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n"
        + "          description: ok\n          content: {application/json: {schema: "
        + "{$ref: '#/components/schemas/User'}}}\ncomponents:\n  schemas:\n    User:\n"
        + "      type: object\n      properties: {id: {type: integer}}\n",
      "would declare UserModel, which Modules/Repository/DataModels/UserModels.swift declares"
    ),
  ])
  func whatCannotBeGeneratedIsRefusedAndNothingWritten(document: String, reason: String) throws {
    try expectRefusal(document, reason: reason)
  }

  /// A whole document, first time: what one operation holds that cannot be generated leaves
  /// that operation out, named with why, and the others are generated; the run says how many
  /// of each and succeeds. `--strict` makes any left-out operation an error.
  @Test func whatCannotBeGeneratedIsLeftOutAndTheRestGenerated() throws {
    let document = """
      openapi: 3.0.0
      info: {title: A}
      paths:
        /good:
          get: {tags: [zq], operationId: good, responses: {'204': {description: ok}}}
        /same:
          get: {tags: [zq], operationId: good, responses: {'204': {description: ok}}}
        /cookie:
          get:
            tags: [zq]
            operationId: withCookie
            parameters: [{name: s, in: cookie, schema: {type: string}}]
            responses: {'204': {description: ok}}
        /missing:
          get:
            tags: [zq]
            operationId: missing
            responses:
              '200':
                description: ok
                content: {application/json: {schema: {$ref: '#/components/schemas/Nowhere'}}}
        /loop/{id}:
          get:
            tags: [zq]
            operationId: loop
            parameters: [{name: id, in: path, required: true, schema: {$ref: '#/components/schemas/Loop'}}]
            responses: {'204': {description: ok}}
      components:
        schemas:
          Loop: {$ref: '#/components/schemas/Loop2'}
          Loop2: {$ref: '#/components/schemas/Loop'}
      """
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    try sandbox.write(document, to: "api/billing.yaml")
    let before = try sandbox.snapshot()
    let strict = sandbox.run("api", "api/billing.yaml", "--strict")
    #expect(strict.status == 1)
    #expect(
      strict.errors.contains("--strict: 4 operation(s) cannot be generated"), "\(strict.errors)")
    #expect(try sandbox.snapshot() == before)

    let result = sandbox.run("api", "api/billing.yaml")
    #expect(result.status == 0, "\(result.errors)")
    for reason in [
      "left out: GET /same: paths./good.get (line 5, column 5) and paths./same.get both map to `good`",
      "left out: GET /cookie: paths./cookie.get.parameters[0] (line 12, column 20): the cookie parameter \"s\"",
      "left out: GET /missing: paths./missing.get.responses.200.content.application/json.schema (line 21, column 40): the $ref \"#/components/schemas/Nowhere\" resolves nowhere",
      "left out: GET /loop/{id}: paths./loop/{id}.get.parameters[0] (line 26, column 20): the parameter \"id\" is of a schema that refers to itself",
      "1 operation(s) generated, 4 left out",
    ] {
      #expect(result.output.contains(reason), "missing \(reason) in \(result.output)")
    }
    let api = try sandbox.read("Modules/Repository/API/ZqDataAPI.swift")
    #expect(api.contains("case good"))
    #expect(!api.contains("withCookie") && !api.contains("case loop"))
  }

  /// Constructs of public API documents that were refused or left out (each reproduced in
  /// `Fixtures/constructs.yaml`, with the document it came from) are generated: a whole 3.1
  /// document, nothing left out. (`.ci/check-generator` builds, lints and tests what it makes.)
  @Test func realDocumentsConstructsAreGenerated() throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/constructs.yaml")
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    try sandbox.write(try String(contentsOf: fixture, encoding: .utf8), to: "api/constructs.yaml")
    let result = sandbox.run("api", "api/constructs.yaml", "--prefix", "Zq", "--strict")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.contains("4 operation(s) generated, 0 left out"), "\(result.output)")
    let models = flattened(try sandbox.read(self.models))
    let api = flattened(try sandbox.read("Modules/Repository/API/ZqNodesDataAPI.swift"))
    let repo = flattened(try sandbox.read("Modules/Repository/API/ZqNodesRepo.swift"))
    for (text, expected) in [
      // A node holding its parent: stored out of line; its children, in a list, are not.
      (models, "@Indirect public var parent: ZqNodeModel?"),
      (models, "public var children: [ZqNodeModel]?"),
      (models, "public struct Indirect<Value: Sendable>: Sendable"),
      // allOf with a part that only annotates: the other part, its name kept; nullable.
      (models, "public var workspace: ZqRangeModel?"),
      (models, "public var file: ZqRangeModel?"),
      (models, "public var sequenceID: String?"),
      // const, a oneOf of consts, a ref into $defs.
      (models, "case node"),
      (models, "public var level: Int?"),
      (models, "case red"),
      // Keywords as property names: escaped where declared, plain as labels.
      (models, "public var `default`: Bool?"),
      (models, "default: true"),
      (models, "public var createdAt2: String?"),
      // A nullable object that holds itself: a struct, every use optional, the cycle boxed.
      (models, "public struct ZqOwnerModel: Codable, Sendable, Equatable"),
      (models, "@Indirect public var manager: ZqOwnerModel?"),
      (models, "public var reports: [ZqOwnerModel?]?"),
      // Values whose cases meet are numbered; `undocumented` keeps its place.
      (models, "case asc2"),
      (models, "case desc2"),
      (models, "case undocumentedValue"),
      // A discriminator over inline variants: each named by its property's const.
      (models, "case \"square\": self = .variant2(try single.decode(Variant2.self))"),
      // Parameters written by ParameterStyle, or as JSON.
      (api, "ParameterStyle.form(explode: true).queryItems(name: \"metadata\", value: metadata)"),
      (api, "ParameterStyle.deepObject.queryItems(name: \"range\", value: range)"),
      (api, "PercentEncoding.encode(ParameterStyle.json(filter))"),
      (api, "ParameterStyle.form(explode: true).queryItems(name: \"ids\", value: ids)"),
      // JSON answered, though a stream is offered too; bytes, though a stream is offered too.
      (
        repo,
        "func listNodes(order: ZqDirectionModel?, priority: ZqPriorityModel?, authorID: [ZqSnowflakeModel]?) async throws(RepositoryError) -> [ZqNodeModel]"
      ),
      // A list of a named text is written as text (it was `.rawValue`).
      (api, "for element in authorID ?? [] {"),
      (repo, "func speak(body: ZqRangeModel?) async throws(RepositoryError) -> Data"),
      // Error answers of several types: an enum with a case per status, matched in order.
      (
        repo,
        "ids: ZqGetNodeIDs?, order: ZqDirectionModel? ) async throws(RepositoryError) -> APIAnswer<ZqNodeModel, ZqGetNodeFailure>"
      ),
      (
        repo,
        "case 404: self.requester.decodedFailure(ZqProblemModel.self, from: body).map( ZqGetNodeFailure.status404)"
      ),
      (
        repo,
        "case 400...499: self.requester.decodedFailure(ZqGetNodeError4XX.self, from: body).map( ZqGetNodeFailure.status4XX)"
      ),
      (
        repo,
        "default: self.requester.decodedFailure(ZqProblemModel.self, from: body).map(ZqGetNodeFailure.other)"
      ),
      (repo, "case status4XX(ZqGetNodeError4XX)"),
      // One type for every error status (`default` alone).
      (repo, "-> APIAnswer<[String], ZqProblemModel>"),
      (
        repo,
        "failure: { _, body in self.requester.decodedFailure(ZqProblemModel.self, from: body) })"
      ),
    ] {
      #expect(text.contains(flattened(expected)), "missing \(expected)")
    }
  }

  /// Security as the document says: an operation that needs an API key (in a header or the
  /// query) or HTTP Basic gets it from a plugin of that scheme, made in the composition root for
  /// the team to give its value, and never the session's bearer token; one whose scheme the app
  /// cannot send (an API key in a cookie) is named in the output, and sent without the session.
  @Test func securitySchemesAreSentAsTheDocumentSays() throws {
    let document = """
      openapi: 3.0.3
      info: {title: Sec, version: '1'}
      security: [{bearer: []}]
      paths:
        /a:
          get: {tags: [zq], operationId: withKey, security: [{zq_key: []}], responses: {'204': {description: ok}}}
        /b:
          get: {tags: [zq], operationId: withQueryKey, security: [{cookie_key: []}, {zq_query: []}], responses: {'204': {description: ok}}}
        /c:
          get: {tags: [zq], operationId: withBasic, security: [{basic: []}], responses: {'204': {description: ok}}}
        /d:
          get: {tags: [zq], operationId: withSession, responses: {'204': {description: ok}}}
        /e:
          get: {tags: [zq], operationId: withCookieOnly, security: [{cookie_key: []}], responses: {'204': {description: ok}}}
      components:
        securitySchemes:
          bearer: {type: http, scheme: bearer}
          zq_key: {type: apiKey, in: header, name: X-Zq-Key}
          zq_query: {type: apiKey, in: query, name: appid}
          basic: {type: http, scheme: basic}
          cookie_key: {type: apiKey, in: cookie, name: sid}
      """
    let (sandbox, result) = try generated(document)
    defer { sandbox.cleanUp() }
    #expect(result.status == 0, "\(result.errors)")
    let api = flattened(try sandbox.read("Modules/Repository/API/ZqDataAPI.swift"))
    for expected in [
      "case .withBasic: [\"basic\"]", "case .withKey: [\"zq_key\"]",
      "case .withQueryKey: [\"zq_query\"]",
      "case .withKey, .withQueryKey, .withBasic, .withCookieOnly: false",
    ] {
      #expect(api.contains(expected), "missing: \(expected)")
    }
    let composition = flattened(try sandbox.read("App/CompositionRoot.swift"))
    for expected in [
      "APIKeyPlugin(scheme: \"zq_key\", placement: .header(\"X-Zq-Key\")) { nil }",
      "APIKeyPlugin(scheme: \"zq_query\", placement: .query(\"appid\")) { nil }",
      "BasicAuthPlugin(scheme: \"basic\") { nil }",
    ] {
      #expect(composition.contains(expected), "missing: \(expected)")
    }
    #expect(
      result.output.contains(
        "note: GET /e: its security needs cookie_key (an API key in a cookie), which the app "
          + "cannot send; it is sent without credentials"), "\(result.output)")
    #expect(
      result.output.contains("need the credential \"zq_key\" (an API key in the header X-Zq-Key)"))
  }

  /// A document with a `User` schema, in a tree that has `UserModel`: refused, naming the way
  /// out; with `--prefix`, every generated type begins with it and nothing meets the tree's.
  @Test func aPrefixKeepsTheDocumentsNamesApartFromTheProjects() throws {
    let document = """
      openapi: 3.0.3
      info: {title: P, version: '1'}
      paths:
        /users/{id}:
          get:
            tags: [users]
            operationId: getUser
            parameters: [{name: id, in: path, required: true, schema: {type: string}}]
            responses:
              '200':
                description: ok
                content: {application/json: {schema: {$ref: '#/components/schemas/User'}}}
      components:
        schemas:
          User: {type: object, required: [id], properties: {id: {type: string}}}
      """
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    try sandbox.write(document, to: "api/billing.yaml")
    let refused = sandbox.run("api", "api/billing.yaml")
    #expect(refused.status == 1)
    #expect(refused.errors.contains("--prefix Petstore"), "\(refused.errors)")
    #expect(sandbox.run("api", "api/billing.yaml", "--prefix", "pet store").status == 1)
    let result = sandbox.run("api", "api/billing.yaml", "--prefix", "Petstore")
    #expect(result.status == 0, "\(result.errors)")
    let api = flattened(try sandbox.read("Modules/Repository/API/PetstoreUsersDataAPI.swift"))
    #expect(api.contains("public enum PetstoreUsersDataAPI: HTTPEndpoint {"))
    #expect(api.contains("PetstoreUserModel"))
    #expect(sandbox.exists("Modules/Repository/API/PetstoreUsersRepo.swift"))
    #expect(try sandbox.read("App/CompositionRoot.swift").contains("let petstoreUsersRepo"))
  }

  /// Documents that crashed the generator (a stack overflow) are refused with where and why.
  @Test(arguments: [
    (
      "openapi: 3.0.0\ninfo: {title: A}\npaths:\n  /a:\n    get:\n      parameters: [{name: f, "
        + "in: query, schema: {$ref: '#/components/schemas/Loop'}}]\n      responses: {}\n"
        + "components:\n  schemas:\n    Loop: {$ref: '#/components/schemas/Loop2'}\n"
        + "    Loop2: {$ref: '#/components/schemas/Loop'}\n",
      "the parameter \"f\" is of a schema that refers to itself (Loop → Loop2 → Loop)"
    ),
    (
      deepAllOfDocument,
      "components.schemas.S65: allOf nested deeper than 64 levels (from components.schemas.S0)"
    ),
  ])
  func documentsThatCrashedAreRefused(document: String, reason: String) throws {
    try expectRefusal(document, reason: reason)
  }

  private func expectRefusal(_ document: String, reason: String) throws {
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    try sandbox.write(document, to: "api/billing.yaml")
    let before = try sandbox.snapshot()
    let result = sandbox.run("api", "api/billing.yaml")
    #expect(result.status == 1)
    #expect(result.errors.contains(reason), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  /// A file of the generated name that the generator did not write is never replaced.
  @Test func aHandWrittenFileOfTheSameNameIsRefused() throws {
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    try sandbox.write(billingDocument, to: "api/billing.yaml")
    try sandbox.write("// Ours.\n", to: repo)
    let before = try sandbox.snapshot()
    let result = sandbox.run("api", "api/billing.yaml")
    #expect(result.status == 1)
    #expect(result.errors.contains("\(repo) exists and was not generated by `trellis-gen api`"))
    #expect(try sandbox.snapshot() == before)
  }

  /// A rename changes the generated files (their imports, the project's name in their
  /// comments) as it changes every file: they are not taken for files the team edited.
  @Test func aRenameDoesNotMakeTheGeneratedFilesLookEdited() throws {
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    let project = try sandbox.projectName()
    try sandbox.write(
      billingDocument.replacingOccurrences(
        of: "info: {title: Billing,", with: "info: {title: \(project) billing,"),
      to: "api/billing.yaml")
    #expect(sandbox.run("api", "api/billing.yaml").status == 0)
    #expect(try sandbox.read(dataAPI).contains("endpoints of \(project) billing"))
    let renamed = project == "Quasar" ? "Zephyr" : "Quasar"
    let rename = sandbox.run("rename", renamed)
    #expect(rename.status == 0, "\(rename.errors)")
    #expect(try sandbox.read(dataAPI).contains("import \(renamed)Network"))
    let again = sandbox.run("api", "api/billing.yaml")
    #expect(again.status == 0, "\(again.errors)")
    // Nothing to change: neither the files nor the generated text kept beside them (whose
    // imports still name the old project: only imports differ, which a merge takes from the
    // team's file).
    #expect(again.output.contains("nothing to change"), "\(again.output)")
  }

  /// A second document never overwrites what the first generated (the models' file is
  /// shared): it is refused, nothing changed.
  @Test func anotherDocumentDoesNotOverwriteTheFirstsFiles() throws {
    let (sandbox, first) = try generated()
    defer { sandbox.cleanUp() }
    #expect(first.status == 0, "\(first.errors)")
    try sandbox.write(billingDocument, to: "api/other.yaml")
    let before = try sandbox.snapshot()
    let result = sandbox.run("api", "api/other.yaml")
    #expect(result.status == 1)
    #expect(
      result.errors.contains(
        "\(models) says \"Generated by `trellis-gen api` from api/billing.yaml.\": it belongs to "
          + "another document"), "\(result.errors)")
    #expect(try sandbox.snapshot() == before)
  }

  /// Generating tag by tag keeps what the earlier tags generated: the shared models file
  /// still declares their models, and both repositories are made (`Users` is not taken for
  /// `AdminUsers`, made first).
  @Test func tagByTagKeepsTheEarlierTagsModelsAndRepositories() throws {
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    let document = """
      openapi: 3.0.0
      info: {title: A, version: '1'}
      paths:
        /admins:
          get:
            tags: [adminUsers]
            operationId: admins
            responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Admin'}}}}}
        /users:
          get:
            tags: [users]
            operationId: users
            responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Patron'}}}}}
      components:
        schemas:
          Admin: {type: object, properties: {id: {type: integer}}}
          Patron: {type: object, properties: {id: {type: integer}}}

      """
    try sandbox.write(document, to: "api/a.yaml")
    let first = sandbox.run("api", "api/a.yaml", "--tag", "adminUsers")
    #expect(first.status == 0, "\(first.errors)")
    #expect(!(try sandbox.read(models)).contains("PatronModel"))
    let second = sandbox.run("api", "api/a.yaml", "--tag", "users")
    #expect(second.status == 0, "\(second.errors)")
    let text = try sandbox.read(models)
    #expect(text.contains("public struct AdminModel") && text.contains("public struct PatronModel"))
    let composition = try sandbox.read("App/CompositionRoot.swift")
    #expect(composition.contains("let adminUsersRepo = AdminUsersRepoImpl("))
    #expect(composition.contains("let usersRepo = UsersRepoImpl("))
    // The tag gone from the document: its files are named, not deleted.
    try sandbox.write(
      document.replacingOccurrences(of: "tags: [users]", with: "tags: [adminUsers]"),
      to: "api/a.yaml")
    let third = sandbox.run("api", "api/a.yaml")
    #expect(third.status == 0, "\(third.errors)")
    #expect(third.output.contains("no longer generated: Modules/Repository/API/UsersRepo.swift"))
    #expect(third.output.contains("no longer generated: Tests/TestSupport/FakeUsersRepo.swift"))
    #expect(sandbox.exists("Modules/Repository/API/UsersRepo.swift"))
  }

  /// A schema that includes itself through `allOf` (the 3.0 nullable idiom pointing back) is
  /// refused with the reason, never a crash.
  @Test func aSchemaThatHoldsItselfIsStoredOutOfLine() throws {
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    try sandbox.write(
      """
      openapi: 3.0.0
      info: {title: A, version: '1'}
      paths:
        /c:
          get:
            responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Zqnote'}}}}}
      components:
        schemas:
          Zqnote:
            type: object
            properties:
              parent: {allOf: [{$ref: '#/components/schemas/Zqnote'}, {description: x}]}
              replies: {type: array, items: {$ref: '#/components/schemas/Zqnote'}}
          Zqloop:
            allOf: [{$ref: '#/components/schemas/Zqloop'}, {properties: {a: {type: string}}}]

      """, to: "api/c.yaml")
    let result = sandbox.run("api", "api/c.yaml")
    #expect(result.status == 0, "\(result.errors)")
    let text = flattened(try sandbox.read(models))
    #expect(
      text.contains(
        "/// Stored out of line: it holds a value that holds this one. @Indirect public var parent: ZqnoteModel?"
      ))
    #expect(text.contains("public var replies: [ZqnoteModel]?"))
  }

  /// A document outside the project is refused: the generated files name their document by
  /// its path in the project.
  @Test func aDocumentOutsideTheProjectIsRefused() throws {
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    let outside = FileManager.default.temporaryDirectory
      .appendingPathComponent("outside-\(UUID().uuidString).yaml")
    try billingDocument.write(to: outside, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: outside) }
    let result = sandbox.run("api", outside.path)
    #expect(result.status == 1)
    #expect(result.errors.contains("is outside the project"), "\(result.errors)")
  }

  /// `--tag` keeps one tag's operations; an unknown tag names the document's.
  @Test func aTagSelectsItsOperations() throws {
    let (sandbox, result) = try generated(extra: ["--tag", "nothing"])
    defer { sandbox.cleanUp() }
    #expect(result.status == 1)
    #expect(
      result.errors.contains("no operation has the tag nothing; the document's tags: billing"))
  }

  /// The error answers an operation types are read in the order a status is matched: exact
  /// statuses, then ranges, then `default` (unless `default` is the only answer, which is then
  /// the success); those without a JSON body, and successes, are not among them.
  @Test func errorAnswersAreReadInTheOrderTheyMatch() throws {
    let document = """
      openapi: 3.0.3
      info: {title: Errors, version: '1'}
      paths:
        /a:
          get:
            operationId: a
            responses:
              default: {description: any, content: {application/json: {schema: {type: string}}}}
              4xx: {description: client, content: {application/json: {schema: {type: integer}}}}
              '500': {description: broke, content: {application/json: {schema: {type: string}}}}
              '404': {description: none, content: {application/json: {schema: {type: boolean}}}}
              '409': {description: no body}
              '202': {description: later, content: {application/json: {schema: {type: string}}}}
              '200': {description: ok, content: {application/json: {schema: {type: string}}}}
        /b:
          get:
            operationId: b
            responses:
              default: {description: any, content: {application/json: {schema: {type: string}}}}
      """
    let description = try APIDescription(YAMLReader.read(document))
    let a = try #require(description.operations.first { $0.id == "a" })
    #expect(a.errorAnswers.map(\.status) == ["404", "500", "4XX", "default"])
    #expect(a.errorAnswers.map(\.pattern) == ["404", "500", "400...499", nil])
    #expect(
      a.errorAnswers.map(\.schema) == [
        .boolean, .string(format: nil), .integer(format: nil), .string(format: nil),
      ])
    let b = try #require(description.operations.first { $0.id == "b" })
    #expect(b.errorAnswers.isEmpty)
    #expect(b.response == .json(.string(format: nil)))
  }

  /// An error answer whose body is a type the project declares itself (the starter's
  /// `APIErrorModel`, for an `APIError` schema: the demo's own document in a stripped tree)
  /// stays untyped instead of the run being refused; as a success body it is still refused.
  @Test func anErrorTypeTheProjectDeclaresStaysUntyped() throws {
    let document = """
      openapi: 3.0.3
      info: {title: Zq, version: '1'}
      paths:
        /a:
          get:
            tags: [zq]
            operationId: one
            responses:
              '200': {description: ok, content: {application/json: {schema: {type: string}}}}
              '404': {description: no, content: {application/json: {schema: {$ref: '#/components/schemas/APIError'}}}}
      components:
        schemas:
          APIError: {type: object, properties: {message: {type: string}}}
      """
    let (sandbox, result) = try generated(document)
    defer { sandbox.cleanUp() }
    #expect(result.status == 0, "\(result.errors)")
    let repo = try sandbox.read("Modules/Repository/API/ZqRepo.swift")
    #expect(!repo.contains("oneAnswer"))
    let asAnswer = document.replacingOccurrences(
      of: "'200': {description: ok, content: {application/json: {schema: {type: string}}}}",
      with:
        "'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/APIError'}}}}"
    )
    try sandbox.write(asAnswer, to: "api/billing.yaml")
    let clash = sandbox.run("api", "api/billing.yaml")
    #expect(clash.status == 1)
    #expect(clash.errors.contains("would declare APIErrorModel"), "\(clash.errors)")
  }

  /// The demo's description reads, and its event stream is left out with the reason.
  @Test func theDemosDescriptionIsRead() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().path
    let path = root + "/docs/openapi.yaml"
    guard FileManager.default.fileExists(atPath: path) else { return }  // a team removed it
    let description = try APIDescription(
      YAMLReader.read(try String(contentsOfFile: path, encoding: .utf8)))
    #expect(description.operations.count >= 16)
    #expect(description.skipped.count == 1)
    #expect(description.skipped.first?.hasPrefix("GET /events") == true)
  }
}
