import Foundation
import Testing

@testable import TrellisGenerator

/// No document crashes `trellis-gen api`: real documents (the demo API's description and the
/// constructs fixture), mutated as a careless edit or a hostile author would (a key dropped, a
/// value duplicated elsewhere, a schema pointed at itself, a value nested hundreds deep, the text
/// cut short), each end in generated code or in a refusal that says where and why. A crash
/// (a stack overflow, a trap) ends the test process, so it fails the run. The mutations come
/// from a seeded generator: a failure names the seed and the round, and replays.
@Suite("trellis-gen api: mutated documents end in code or a refusal, never a crash")
struct APIFuzzTests {
  /// SplitMix64: a small generator whose runs a seed replays.
  struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var value = state
      value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
      value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
      return value ^ (value >> 31)
    }
  }

  private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The documents mutated: the demo API's, when the tree has it, and the fixture.
  static let documents: [String] = [
    "docs/openapi.yaml", "Tests/GeneratorTests/Fixtures/constructs.yaml",
  ]
  .compactMap { try? String(contentsOf: root.appendingPathComponent($0), encoding: .utf8) }

  @Test(.timeLimit(.minutes(2)), arguments: [1, 2, 3])
  func mutatedDocumentsEndInCodeOrARefusal(seed: UInt64) throws {
    #expect(!Self.documents.isEmpty)
    var random = Seeded(state: seed)
    var generated = 0
    var refused = 0
    for round in 0..<150 {
      let source = Self.documents[round % Self.documents.count]
      let base = try YAMLReader.read(source)
      var value = base
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        value = Self.mutate(value, root: base, using: &random)
      }
      var text = Self.json(value)
      if Int.random(in: 0..<6, using: &random) == 0 {
        text = String(text.prefix(Int.random(in: 0..<max(1, text.count), using: &random)))
      }
      switch Self.generate(text) {
      case .success: generated += 1
      case .failure(let message):
        refused += 1
        #expect(!message.isEmpty, "seed \(seed), round \(round): a refusal without a reason")
      }
    }
    // Both outcomes happen: the mutations are neither all harmless nor all fatal.
    #expect(
      generated > 0 && refused > 0, "seed \(seed): \(generated) generated, \(refused) refused")
  }

  /// A document deepened past every bound (each level a schema in a property, an `allOf`, an
  /// array's items) is refused with where, not a stack overflow.
  @Test(arguments: ["properties", "allOf", "items"])
  func aValueNestedThousandsDeepIsRefused(kind: String) {
    var schema = "{\"type\": \"string\"}"
    for _ in 0..<3000 {
      switch kind {
      case "properties": schema = "{\"type\": \"object\", \"properties\": {\"a\": \(schema)}}"
      case "allOf": schema = "{\"allOf\": [\(schema), {\"description\": \"x\"}]}"
      default: schema = "{\"type\": \"array\", \"items\": \(schema)}"
      }
    }
    let text =
      "{\"openapi\": \"3.0.0\", \"info\": {\"title\": \"A\"}, \"paths\": {\"/a\": {\"get\": "
      + "{\"responses\": {\"200\": {\"description\": \"ok\", \"content\": {\"application/json\": "
      + "{\"schema\": \(schema)}}}}}}}}"
    guard case .failure(let message) = Self.generate(text) else {
      Issue.record("a schema 3,000 levels deep was generated")
      return
    }
    #expect(message.contains("deeper than"), "\(message)")
  }

  /// Documents that took exponential time: a nullable recursive object (each reference to it
  /// walked again through its alias), and `allOf`s that include the level below twice, 40
  /// levels deep (2^40 walks). Each is generated in moments now.
  @Test(.timeLimit(.minutes(1)))
  func sharedPartsAreWorkedOutOnce() {
    let category = """
      openapi: 3.0.0
      info: {title: A}
      paths:
        /c:
          get:
            responses:
              '200':
                description: ok
                content: {application/json: {schema: {$ref: '#/components/schemas/Category'}}}
      components:
        schemas:
          Category:
            type: object
            nullable: true
            properties:
              parent: {$ref: '#/components/schemas/Category'}
              first_child: {$ref: '#/components/schemas/Category'}
              next_sibling: {$ref: '#/components/schemas/Category'}
      """
    if case .failure(let message) = Self.generate(category) {
      Issue.record("the nullable recursive object was refused: \(message)")
    }
    var doubling = [
      "openapi: 3.0.0", "info: {title: A}", "paths:", "  /a:", "    get:", "      responses:",
      "        '200':", "          description: ok",
      "          content: {application/json: {schema: {$ref: '#/components/schemas/A40'}}}",
      "components:", "  schemas:", "    A0: {type: object, properties: {x: {type: string}}}",
    ]
    for level in 1...40 {
      let below = "{$ref: '#/components/schemas/A\(level - 1)'}"
      doubling.append("    A\(level): {allOf: [\(below), \(below)]}")
    }
    if case .failure(let message) = Self.generate(doubling.joined(separator: "\n") + "\n") {
      Issue.record("the doubling allOf was refused: \(message)")
    }
  }

  // MARK: Running the generator's stages

  enum Outcome {
    case success
    case failure(String)
  }

  /// Every stage `trellis-gen api` runs before writing files, on `text`.
  static func generate(_ text: String) -> Outcome {
    do {
      let document = try YAMLReader.read(text)
      let description = try APIDescription(document)
      var models = try ModelWriter(description, prefix: "Zq")
      var byTag: [String: [APIDescription.Operation]] = [:]
      for operation in description.operations {
        byTag[operation.tag, default: []].append(operation)
      }
      for (tag, operations) in byTag.sorted(by: { $0.key < $1.key }) {
        let writer = try EndpointWriter(
          tag: tag, operations: operations, models: &models, source: "fuzz.yaml", title: "Fuzz",
          prefix: "Zq")
        for file in [
          writer.dataAPI(project: "Trellis"), writer.repo(project: "Trellis"),
          writer.fake(project: "Trellis"), writer.tests(project: "Trellis"),
        ] where file.isEmpty {
          return .failure("an empty file")
        }
      }
      try models.checkCycles()
      return .success
    } catch let error as DocumentError {
      return .failure(error.description)
    } catch let error as GeneratorError {
      return .failure(error.message)
    } catch {
      return .failure("\(error)")
    }
  }

  // MARK: Mutations

  /// `value` with one change at a random place: a key or element dropped, a value copied under
  /// another key, a schema replaced by a `$ref` to one of the document's (itself included), a
  /// value wrapped 10 to 400 levels deep.
  static func mutate(
    _ value: DocumentValue, root: DocumentValue, using random: inout Seeded
  ) -> DocumentValue {
    let paths = Self.paths(in: value, limit: 5000)
    guard let target = paths.randomElement(using: &random) else { return value }
    let names = root["components"]?["schemas"]?.object?.keys ?? []
    return Self.changing(value, at: target[...]) { old in
      switch Int.random(in: 0..<4, using: &random) {
      case 0:
        return nil  // dropped
      case 1:
        // Duplicated: the value beside itself, and a random other one in its place.
        let other = Self.value(in: value, at: paths.randomElement(using: &random) ?? [])
        if case .object(var object) = old {
          object["copy"] = old
          return .object(object)
        }
        return other
      case 2:
        let name = names.randomElement(using: &random) ?? "Missing"
        // One of the document's schemas, or the very place it replaces.
        let pointer = target.map {
          $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        }
        let reference =
          Bool.random(using: &random)
          ? "#/components/schemas/\(name)" : "#/" + pointer.joined(separator: "/")
        return .object(DocumentObject([("$ref", .string(reference))]))
      default:
        var deep = old
        for _ in 0..<Int.random(in: 10...400, using: &random) {
          deep = .object(DocumentObject([("allOf", .array([deep]))]))
        }
        return deep
      }
    }
  }

  /// The paths (keys and indices) of the values in `value`, breadth first, at most `limit`.
  static func paths(in value: DocumentValue, limit: Int) -> [[String]] {
    var result: [[String]] = []
    var pending: [([String], DocumentValue)] = [([], value)]
    var index = 0
    while index < pending.count, result.count < limit {
      let (path, current) = pending[index]
      index += 1
      if !path.isEmpty { result.append(path) }
      switch current {
      case .object(let object):
        pending += object.entries.map { (path + [$0.key], $0.value) }
      case .array(let elements):
        pending += elements.enumerated().map { (path + [String($0.offset)], $0.element) }
      default: break
      }
    }
    return result
  }

  static func value(in value: DocumentValue, at path: [String]) -> DocumentValue {
    var current = value
    for key in path {
      switch current {
      case .object(let object): current = object[key] ?? .null
      case .array(let elements):
        current = Int(key).flatMap { elements.indices.contains($0) ? elements[$0] : nil } ?? .null
      default: return .null
      }
    }
    return current
  }

  /// `value` with what is at `path` replaced by `change` of it (`nil`: removed).
  static func changing(
    _ value: DocumentValue, at path: ArraySlice<String>, _ change: (DocumentValue) -> DocumentValue?
  ) -> DocumentValue {
    guard let key = path.first else { return change(value) ?? .null }
    switch value {
    case .object(var object):
      guard let inner = object[key] else { return value }
      let rest = path.dropFirst()
      object[key] = rest.isEmpty ? change(inner) : changing(inner, at: rest, change)
      return .object(object)
    case .array(var elements):
      guard let index = Int(key), elements.indices.contains(index) else { return value }
      let rest = path.dropFirst()
      if rest.isEmpty {
        if let changed = change(elements[index]) {
          elements[index] = changed
        } else {
          elements.remove(at: index)
        }
      } else {
        elements[index] = changing(elements[index], at: rest, change)
      }
      return .array(elements)
    default:
      return value
    }
  }

  /// `value` as JSON text (which the YAML reader reads).
  static func json(_ value: DocumentValue) -> String {
    switch value {
    case .null: return "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .int(let number): return String(number)
    case .double(let number): return number.isFinite ? String(number) : "0"
    case .string(let text): return quoted(text)
    case .array(let elements): return "[" + elements.map(json).joined(separator: ", ") + "]"
    case .object(let object):
      return "{"
        + object.entries.map { quoted($0.key) + ": " + json($0.value) }.joined(separator: ", ")
        + "}"
    }
  }

  static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      default:
        if scalar.value < 0x20 {
          result += String(format: "\\u%04x", scalar.value)
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result + "\""
  }
}
