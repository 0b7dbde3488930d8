/// A value read from a YAML or JSON document (an API description): the JSON data model, with
/// the keys of an object in the order the document wrote them, so what is generated from it
/// follows the document.
public enum DocumentValue: Sendable, Equatable {
  /// `null`, `~`, or nothing.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A whole number that fits in 64 bits.
  case int(Int)
  /// Any other number.
  case double(Double)
  /// Text.
  case string(String)
  /// A sequence.
  case array([DocumentValue])
  /// A mapping from text keys.
  case object(DocumentObject)

  /// The value under `key`, when this is an object that has it.
  public subscript(key: String) -> DocumentValue? {
    guard case .object(let object) = self else { return nil }
    return object[key]
  }

  /// The text, when this is text.
  public var string: String? {
    guard case .string(let text) = self else { return nil }
    return text
  }

  /// The object, when this is one.
  public var object: DocumentObject? {
    guard case .object(let object) = self else { return nil }
    return object
  }

  /// How many values this holds, itself included, counted up to `limit` (the count stops
  /// there: a huge value is not walked to the end).
  public func count(upTo limit: Int) -> Int {
    var total = 0
    var pending = [self]
    while let value = pending.popLast(), total < limit {
      total += 1
      switch value {
      case .array(let elements): pending += elements
      case .object(let object): pending += object.entries.map(\.value)
      default: break
      }
    }
    return total
  }

  /// The elements, when this is a sequence.
  public var array: [DocumentValue]? {
    guard case .array(let elements) = self else { return nil }
    return elements
  }
}

/// A mapping of a document, its keys in the document's order.
public struct DocumentObject: Sendable, Equatable {
  /// One key and its value.
  public struct Entry: Sendable, Equatable {
    /// The key.
    public var key: String
    /// Its value.
    public var value: DocumentValue
  }

  /// The entries, in the document's order.
  public private(set) var entries: [Entry] = []
  /// Each key's index in `entries`: a mapping of a million keys is read in linear time.
  private var positions: [String: Int] = [:]

  /// An empty object.
  public init() {}

  /// An object with `entries`, in that order (a later duplicate key replaces an earlier one).
  public init(_ entries: [(String, DocumentValue)]) {
    for (key, value) in entries { self[key] = value }
  }

  /// The keys, in order.
  public var keys: [String] { entries.map(\.key) }

  /// The value under `key`; setting one replaces it in place or appends it.
  public subscript(key: String) -> DocumentValue? {
    get { positions[key].map { entries[$0].value } }
    set {
      if let index = positions[key] {
        if let newValue {
          entries[index].value = newValue
        } else {
          entries.remove(at: index)
          positions = Dictionary(
            entries.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
        }
      } else if let newValue {
        positions[key] = entries.count
        entries.append(Entry(key: key, value: newValue))
      }
    }
  }
}

/// Why a document could not be read, and where: a 1-based line and column (in characters).
public struct DocumentError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The line.
  public var line: Int
  /// The column.
  public var column: Int
  /// What is wrong.
  public var reason: String

  /// An error at `line`, `column`.
  public init(line: Int, column: Int, _ reason: String) {
    self.line = line
    self.column = column
    self.reason = reason
  }

  /// "line 3, column 5: ...".
  public var description: String { "line \(line), column \(column): \(reason)" }
}
