import Foundation

/// How a parameter that is more than one value (an object, a dictionary, a list, a `oneOf`) is
/// written into a request, as OpenAPI's `style` and `explode` say (the "Style Values" and
/// "Style Examples" of the OpenAPI Specification).
///
/// Generated DataAPIs use it for such parameters; values are read through `Encodable`, so a
/// model, a dictionary and a list are written alike. For an object `color` holding
/// `R: 100, G: 200`:
///
/// | style | query |
/// | --- | --- |
/// | `form`, explode (OpenAPI's default) | `R=100&G=200` |
/// | `form`, no explode | `color=R,100,G,200` |
/// | `deepObject` | `color[R]=100&color[G]=200` |
///
/// and for a list `[blue, black]`: `color=blue&color=black`, `color=blue,black`,
/// `color=blue%20black` (`spaceDelimited`), `color=blue%7Cblack` (`pipeDelimited`). In a header
/// or a path (`simple`) the object is `R,100,G,200` (`R=100,G=200` exploded) and the list
/// `blue,black`. An object's keys come in sorted order; a `null` or absent property is left out;
/// dates are ISO 8601; every name and value of a query item is percent-encoded once, as
/// ``PercentEncoding/encode(_:)`` does (the endpoint says ``HTTPEndpoint/isQueryPercentEncoded``).
public enum ParameterStyle: Sendable, Equatable {
  /// `form`: an object's properties (or a list's elements) as items of their own when
  /// `explode`, else one item of the parameter's name, joined by commas.
  case form(explode: Bool)
  /// `deepObject`: `name[key]=value` for each property.
  case deepObject
  /// `spaceDelimited`: a list's elements joined by spaces.
  case spaceDelimited
  /// `pipeDelimited`: a list's elements joined by `|`.
  case pipeDelimited
  /// `simple` (headers and paths): elements, or keys and values, joined by commas; `explode`
  /// writes an object's pairs as `key=value`.
  case simple(explode: Bool)

  /// The percent-encoded query items of `value`, the parameter `name`, in this style. A value
  /// that cannot be written as JSON (a `Double.nan`) gives no item.
  public func queryItems(name: String, value: some Encodable) -> [URLQueryItem] {
    guard let node = StyleNode(value) else { return [] }
    let encodedName = PercentEncoding.encode(name)
    func item(_ itemName: String, _ text: String) -> URLQueryItem {
      URLQueryItem(name: itemName, value: PercentEncoding.encode(text))
    }
    switch (self, node) {
    case (_, .null):
      return []
    case (_, .scalar(let text)):
      return [item(encodedName, text)]
    case (.form(explode: true), .list(let elements)), (.deepObject, .list(let elements)),
      (.simple(explode: true), .list(let elements)):
      return elements.compactMap(\.text).map { item(encodedName, $0) }
    case (.form(explode: false), .list(let elements)),
      (.simple(explode: false), .list(let elements)):
      return [joined(encodedName, elements.compactMap(\.text), by: ",")]
    case (.spaceDelimited, .list(let elements)):
      return [joined(encodedName, elements.compactMap(\.text), by: "%20")]
    case (.pipeDelimited, .list(let elements)):
      return [joined(encodedName, elements.compactMap(\.text), by: "%7C")]
    case (.form(explode: true), .object(let pairs)):
      // Each property as an item of its own name; deeper values as `key[inner]`.
      return pairs.flatMap { key, value in Self.deepItems(PercentEncoding.encode(key), value) }
    case (.deepObject, .object(let pairs)):
      return pairs.flatMap { key, value in
        Self.deepItems(encodedName + "%5B" + PercentEncoding.encode(key) + "%5D", value)
      }
    case (.form(explode: false), .object(let pairs)), (.simple, .object(let pairs)),
      (.spaceDelimited, .object(let pairs)), (.pipeDelimited, .object(let pairs)):
      let separator = self == .spaceDelimited ? "%20" : self == .pipeDelimited ? "%7C" : ","
      let texts = pairs.flatMap { key, value in value.text.map { [key, $0] } ?? [] }
      return [joined(encodedName, texts, by: separator)]
    }
  }

  /// The text of `value` in a header or a path segment (`simple`; any other style is read as
  /// `simple` without explode), not encoded: a path encodes it as one segment.
  public func text(of value: some Encodable) -> String {
    guard let node = StyleNode(value) else { return "" }
    switch node {
    case .null: return ""
    case .scalar(let text): return text
    case .list(let elements): return elements.compactMap(\.text).joined(separator: ",")
    case .object(let pairs):
      if self == .simple(explode: true) {
        return pairs.compactMap { key, value in value.text.map { "\(key)=\($0)" } }
          .joined(separator: ",")
      }
      return pairs.flatMap { key, value in value.text.map { [key, $0] } ?? [] }
        .joined(separator: ",")
    }
  }

  /// `value` as one path segment, percent-encoded (`simple`): each element, key and value
  /// encoded by itself and joined by a literal `,` (and `=` when exploded), as the OpenAPI
  /// Specification's examples write `blue,black,brown` and `R=100,G=200`; a single value is
  /// ``PercentEncoding/pathSegment(_:)``.
  public func pathSegment(of value: some Encodable) -> String {
    guard let node = StyleNode(value) else { return "" }
    switch node {
    case .null: return ""
    case .scalar(let text): return PercentEncoding.pathSegment(text)
    case .list(let elements):
      return elements.compactMap(\.text).map(PercentEncoding.encode).joined(separator: ",")
    case .object(let pairs):
      let explode = self == .simple(explode: true)
      return pairs.compactMap { key, value in
        value.text.map {
          PercentEncoding.encode(key) + (explode ? "=" : ",") + PercentEncoding.encode($0)
        }
      }.joined(separator: ",")
    }
  }

  /// `value` as compact JSON text with sorted keys and ISO 8601 dates: a parameter described
  /// with `content: application/json`. Empty when it cannot be written (a `Double.nan`).
  public static func json(_ value: some Encodable) -> String {
    guard let data = try? StyleNode.makeEncoder().encode(value) else { return "" }
    return String(decoding: data, as: UTF8.self)
  }

  /// One item joining `texts`, each encoded, by an already-encoded separator.
  private func joined(_ encodedName: String, _ texts: [String], by separator: String)
    -> URLQueryItem
  {
    URLQueryItem(
      name: encodedName, value: texts.map(PercentEncoding.encode).joined(separator: separator))
  }

  /// The items of `node` under `name` (encoded already): a list as one item per element, an
  /// object's properties as `name[key]`, at most 32 levels deep.
  private static func deepItems(_ name: String, _ node: StyleNode, depth: Int = 0)
    -> [URLQueryItem]
  {
    switch node {
    case .null: return []
    case .scalar(let text): return [URLQueryItem(name: name, value: PercentEncoding.encode(text))]
    case .list(let elements):
      return elements.flatMap { deepItems(name, $0, depth: depth + 1) }
    case .object(let pairs):
      guard depth < 32 else { return [] }
      return pairs.flatMap { key, value in
        deepItems(name + "%5B" + PercentEncoding.encode(key) + "%5D", value, depth: depth + 1)
      }
    }
  }
}

/// A value of a parameter as JSON sees it, read back from its `Encodable` form.
private enum StyleNode: Decodable {
  case null
  case scalar(String)
  case list([StyleNode])
  case object([(String, StyleNode)])

  /// The encoder every value goes through: sorted keys, ISO 8601 dates.
  static func makeEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return encoder
  }

  /// `value`'s node, or `nil` when it cannot be written as JSON.
  init?(_ value: some Encodable) {
    // A top-level scalar is wrapped: every JSON decoder reads a list.
    guard let data = try? Self.makeEncoder().encode([value]),
      let list = try? JSONDecoder().decode([StyleNode].self, from: data), let node = list.first
    else { return nil }
    self = node
  }

  /// The text of a scalar; `nil` for anything else.
  var text: String? {
    if case .scalar(let text) = self { return text }
    return nil
  }

  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  init(from decoder: any Decoder) throws {
    if let container = try? decoder.container(keyedBy: Key.self) {
      self = .object(
        try container.allKeys.sorted { $0.stringValue < $1.stringValue }.map { key in
          (key.stringValue, try container.decode(StyleNode.self, forKey: key))
        })
      return
    }
    if var container = try? decoder.unkeyedContainer() {
      var elements: [StyleNode] = []
      while !container.isAtEnd { elements.append(try container.decode(StyleNode.self)) }
      self = .list(elements)
      return
    }
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
    } else if let flag = try? single.decode(Bool.self) {
      self = .scalar(flag ? "true" : "false")
    } else if let whole = try? single.decode(Int64.self) {
      self = .scalar(String(whole))
    } else if let whole = try? single.decode(UInt64.self) {
      self = .scalar(String(whole))
    } else if let number = try? single.decode(Double.self) {
      self = .scalar(String(number))
    } else {
      self = .scalar(try single.decode(String.self))
    }
  }
}
