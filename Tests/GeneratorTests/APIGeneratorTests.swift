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
          - {name: status, in: query, schema: {$ref: '#/components/schemas/InvoiceStatus'}}
          - {name: page_size, in: query, required: true, schema: {type: integer, format: int32}}
          - {name: X-Request-ID, in: header, schema: {type: string}}
        responses:
          '200':
            description: ok
            content:
              application/json:
                schema: {type: array, items: {$ref: '#/components/schemas/Invoice'}}
      post:
        tags: [billing]
        operationId: createInvoice
        requestBody:
          required: true
          content: {application/json: {schema: {$ref: '#/components/schemas/NewInvoice'}}}
        responses:
          '201':
            description: created
            content: {application/json: {schema: {$ref: '#/components/schemas/Invoice'}}}
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
      InvoiceStatus: {type: string, enum: [draft, paid, in_review]}
      Money:
        type: object
        required: [amount_cents, currency]
        properties:
          amount_cents: {type: integer, format: int64}
          currency: {type: string}
      NewInvoice:
        type: object
        required: [customer, total]
        properties:
          customer: {type: string}
          total: {$ref: '#/components/schemas/Money'}
          note: {type: string, nullable: true}
      Invoice:
        allOf:
          - $ref: '#/components/schemas/NewInvoice'
          - type: object
            required: [id, status, issued_at]
            properties:
              id: {type: string}
              status: {$ref: '#/components/schemas/InvoiceStatus'}
              issued_at: {type: string, format: date-time}
              lines: {type: array, items: {$ref: '#/components/schemas/Line'}}
              payment: {$ref: '#/components/schemas/Payment'}
              metadata: {type: object, additionalProperties: {type: string}}
              extra: {}
      Line:
        type: object
        required: [label]
        properties:
          label: {type: string}
          kind: {type: string, enum: [item, discount]}
      Payment:
        oneOf: [{$ref: '#/components/schemas/Card'}, {$ref: '#/components/schemas/Transfer'}]
        discriminator:
          propertyName: method
          mapping: {card: '#/components/schemas/Card', bank_transfer: '#/components/schemas/Transfer'}
      Card:
        type: object
        required: [method, last4]
        properties: {method: {type: string}, last4: {type: string}}
      Transfer:
        type: object
        required: [method, iban]
        properties: {method: {type: string}, iban: {type: string}}
      Unused: {type: object, properties: {x: {type: string}}}

  """

/// `text` with its runs of spaces and line breaks made one space: what `swift format` may wrap
/// differently reads the same.
private func flattened(_ text: String) -> String {
  text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    .replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: " )", with: ")")
}

@Suite("trellis-gen api: the Repository layer from an OpenAPI document")
struct APIGeneratorTests {
  private let models = "Modules/Repository/API/APIModels.swift"
  private let dataAPI = "Modules/Repository/API/BillingDataAPI.swift"
  private let repo = "Modules/Repository/API/BillingRepo.swift"

  private func generated(_ document: String = billingDocument, extra: [String] = [])
    throws -> (Sandbox, (status: Int32, output: String, errors: String))
  {
    let sandbox = try Sandbox()
    try sandbox.write(document, to: "api/billing.yaml")
    return (sandbox, sandbox.run(["api", "api/billing.yaml"] + extra))
  }

  /// Each construct becomes the Swift a team would write by hand.
  @Test func eachSchemaConstructMapsToItsSwift() throws {
    let (sandbox, result) = try generated()
    defer { sandbox.cleanUp() }
    #expect(result.status == 0, "\(result.errors)")
    let text = flattened(try sandbox.read(models))
    for expected in [
      // An object; int64; a JSON name that is not Swift's is mapped by CodingKeys.
      "public struct MoneyModel: Codable, Sendable, Equatable {",
      "public var amountCents: Int64", "case amountCents = \"amount_cents\"",
      // Optional (not required) and nullable fields.
      "public var note: String?",
      // allOf: the parts' properties in one struct, required as either part says.
      "public struct InvoiceModel: Codable, Sendable, Equatable {",
      "public var customer: String", "public var total: MoneyModel", "public var id: String",
      // date-time, a list, a dictionary, an untyped value.
      "public var issuedAt: Date", "public var lines: [LineModel]?",
      "public var metadata: [String: String]?", "public var extra: JSONValue?",
      "public enum JSONValue: Codable, Sendable, Equatable {",
      // An enumeration keeps values it does not know.
      "public enum InvoiceStatusModel: Codable, Sendable, Hashable {", "case inReview",
      "case undocumented(String)", "case \"in_review\": self = .inReview",
      // An inline enumeration is nested in its object.
      "public enum Kind: Codable, Sendable, Hashable {",
      // oneOf with a discriminator: an enum with associated values, read by the property.
      "public indirect enum PaymentModel: Codable, Sendable, Equatable {",
      "case card(CardModel)", "case transfer(TransferModel)",
      "case value = \"method\"",
      "case \"bank_transfer\": self = .transfer(try single.decode(TransferModel.self))",
    ] {
      #expect(text.contains(expected), "missing: \(expected)")
    }
    // Only the schemas the operations use.
    #expect(!text.contains("UnusedModel"))
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
      "case listInvoices(status: InvoiceStatusModel? = nil, pageSize: Int32, xRequestID: String? = nil)",
      "case createInvoice(body: NewInvoiceModel)", "case deleteInvoice(invoiceID: String)",
      "case health",
      "case .deleteInvoice(let invoiceID): \"/invoices/\\(Self.segment(invoiceID))\"",
      "items.append(URLQueryItem(name: \"page_size\", value: String(pageSize)))",
      "if let status { items.append(URLQueryItem(name: \"status\", value: status.rawValue)) }",
      "headers[\"X-Request-ID\"] = xRequestID",
      "case .createInvoice(let body): .json(body)",
      "case .health: false",
      "case .listInvoices: .iso8601JSON([InvoiceModel.sample] as [InvoiceModel])",
      "case .deleteInvoice: .status(204)",
    ] {
      #expect(api.contains(expected), "missing: \(expected)")
    }
    let repoText = flattened(try sandbox.read(repo))
    #expect(repoText.contains("public protocol BillingRepo: Sendable {"))
    #expect(
      repoText.contains(
        "func createInvoice(body: NewInvoiceModel) async throws(RepositoryError) -> InvoiceModel"))
    #expect(
      repoText.contains("try await self.requester.send(.deleteInvoice(invoiceID: invoiceID))"))
    #expect(sandbox.exists("Tests/TestSupport/FakeBillingRepo.swift"))
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

  /// Running it again after the document changed updates what it generated, leaves a file the
  /// team edited (with the diff to apply), and changes nothing when all is up to date.
  @Test func aSecondRunUpdatesWhatItWroteAndLeavesWhatTheTeamEdited() throws {
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
    #expect(try sandbox.read(repo) == edited)
    #expect(second.output.contains("left alone: \(repo) (edited since it was generated)"))
    #expect(
      second.output.contains(
        "+  func invoicePDF(invoiceID: String) async throws(RepositoryError) -> Data"))
    // The repository is made once.
    #expect(try sandbox.read("App/CompositionRoot.swift") == composition)

    let before = try sandbox.snapshot()
    let third = sandbox.run("api", "api/billing.yaml")
    #expect(third.status == 0)
    #expect(third.output.contains("up to date:"))
    #expect(try sandbox.snapshot() == before)
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
      "openapi: 3.0.0\ninfo: {title: A}\npaths:\n  /a:\n    get: {operationId: same, responses: {}}\n"
        + "  /b:\n    get: {operationId: same, responses: {}}\n",
      "both map to `same` in DefaultDataAPI"
    ),
    (
      "openapi: 3.0.0\ninfo: {title: A}\npaths:\n  /a:\n    get:\n      parameters: [{name: s, "
        + "in: cookie, schema: {type: string}}]\n      responses: {}\n",
      "the cookie parameter \"s\" cannot be generated"
    ),
    (
      "openapi: 3.0.0\ninfo: {title: A}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n"
        + "          description: ok\n          content: {application/json: {schema: "
        + "{$ref: '#/components/schemas/Node'}}}\ncomponents:\n  schemas:\n    Node:\n"
        + "      type: object\n      properties: {next: {$ref: '#/components/schemas/Node'}}\n",
      "a cycle Swift cannot express: NodeModel holds NodeModel"
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
    let sandbox = try Sandbox()
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
    let sandbox = try Sandbox()
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
    let sandbox = try Sandbox()
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
    #expect(!again.output.contains("left alone"), "\(again.output)")
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
    let sandbox = try Sandbox()
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
  @Test func anAllOfThatIncludesItselfIsRefused() throws {
    let sandbox = try Sandbox()
    defer { sandbox.cleanUp() }
    try sandbox.write(
      """
      openapi: 3.0.0
      info: {title: A, version: '1'}
      paths:
        /c:
          get:
            responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Comment'}}}}}
      components:
        schemas:
          Comment:
            type: object
            properties:
              parent: {allOf: [{$ref: '#/components/schemas/Comment'}, {description: x}]}

      """, to: "api/c.yaml")
    let result = sandbox.run("api", "api/c.yaml")
    #expect(result.status == 1)
    #expect(result.errors.contains("allOf includes Comment"), "\(result.errors)")
  }

  /// A document outside the project is refused: the generated files name their document by
  /// its path in the project.
  @Test func aDocumentOutsideTheProjectIsRefused() throws {
    let sandbox = try Sandbox()
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
