import TrellisCore

/// HTTP header fields with case-insensitive names, as HTTP defines them.
///
/// Its `description` redacts the values of sensitive fields (`Authorization`, `Cookie`,
/// `X-API-Key` and the others of `SecretRedactor.defaultSensitiveKeys`).
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral,
  CustomStringConvertible, CustomDebugStringConvertible
{
  /// Fields keyed by lowercased name; each keeps the name as first written.
  private var fields: [String: (name: String, value: String)] = [:]

  /// Creates empty headers.
  public init() {}

  /// Creates headers from a dictionary (later duplicates, ignoring case, win).
  public init(_ dictionary: [String: String]) {
    for (name, value) in dictionary { self[name] = value }
  }

  /// Creates headers from a literal: `["Accept": "application/json"]`.
  public init(dictionaryLiteral elements: (String, String)...) {
    for (name, value) in elements { self[name] = value }
  }

  /// The value of the field `name`, matched ignoring case; setting `nil` removes it.
  public subscript(name: String) -> String? {
    get { fields[name.lowercased()]?.value }
    set {
      if let newValue {
        fields[name.lowercased()] = (name, newValue)
      } else {
        fields[name.lowercased()] = nil
      }
    }
  }

  /// The fields as a dictionary of names to values.
  public var dictionary: [String: String] {
    Dictionary(uniqueKeysWithValues: fields.values.map { ($0.name, $0.value) })
  }

  /// Whether there are no fields.
  public var isEmpty: Bool { fields.isEmpty }

  /// The fields, sorted by name so that logs and tests are stable.
  public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
    fields.values.sorted { $0.name.lowercased() < $1.name.lowercased() }.makeIterator()
  }

  /// Adds `other`'s fields, replacing fields with the same name.
  public mutating func merge(_ other: HTTPHeaders) {
    for field in other { self[field.name] = field.value }
  }

  /// Compares names ignoring case, and values exactly.
  public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
    lhs.fields.mapValues(\.value) == rhs.fields.mapValues(\.value)
  }

  /// `Name: value` lines, sensitive values redacted.
  public var description: String {
    redactedFields().map { "\($0.name): \($0.value)" }.joined(separator: "\n")
  }

  /// The same as ``description``: sensitive values redacted.
  public var debugDescription: String { description }

  /// `Name: value, ...` on one line, sensitive values redacted (by `redactor`).
  func redactedSummary(by redactor: SecretRedactor = .standard) -> String {
    redactedFields(by: redactor).map { "\($0.name): \($0.value)" }.joined(separator: ", ")
  }

  private func redactedFields(by redactor: SecretRedactor = .standard) -> [(
    name: String, value: String
  )] {
    map { field in
      redactor.isSensitive(field.name) ? (field.name, LogMessage.redactedPlaceholder) : field
    }
  }
}
