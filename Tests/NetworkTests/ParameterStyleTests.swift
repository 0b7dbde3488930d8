import Foundation
import Testing
import TrellisNetwork

/// `ParameterStyle` against the OpenAPI Specification's own "Style Examples" table (3.0.3,
/// section "Style Values"): a parameter `color` of the string `"blue"`, the array
/// `["blue","black","brown"]` and the object `{"R": 100, "G": 200, "B": 150}`, in each style
/// a query, a header or a path can take.
@Suite("ParameterStyle: parameters written as the OpenAPI Specification's examples")
struct ParameterStyleTests {
  /// The object of the specification's examples, as a model would be.
  private struct Color: Encodable {
    var red = 100
    var green = 200
    var blue = 150

    enum CodingKeys: String, CodingKey {
      case red = "R"
      case green = "G"
      case blue = "B"
    }
  }

  private let array = ["blue", "black", "brown"]

  /// `name=value` pairs of `items`, as the query's text.
  private func query(_ items: [URLQueryItem]) -> String {
    items.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
  }

  /// The pairs of an object written as `R,100,G,200,B,150`: the specification lists the keys in
  /// the object's order, `ParameterStyle` in sorted order (a dictionary has none).
  private func pairs(_ text: String, separator: String) -> Set<String> {
    let parts = text.components(separatedBy: separator)
    var pairs = Set<String>()
    for index in stride(from: 0, to: parts.count - 1, by: 2) {
      pairs.insert("\(parts[index])=\(parts[index + 1])")
    }
    return pairs
  }

  @Test func formWithoutExplode() {
    let style = ParameterStyle.form(explode: false)
    #expect(query(style.queryItems(name: "color", value: "blue")) == "color=blue")
    #expect(query(style.queryItems(name: "color", value: array)) == "color=blue,black,brown")
    let object = style.queryItems(name: "color", value: Color())
    #expect(object.map(\.name) == ["color"])
    #expect(pairs(object[0].value ?? "", separator: ",") == ["R=100", "G=200", "B=150"])
  }

  @Test func formExploded() {
    let style = ParameterStyle.form(explode: true)
    #expect(query(style.queryItems(name: "color", value: "blue")) == "color=blue")
    #expect(
      query(style.queryItems(name: "color", value: array))
        == "color=blue&color=black&color=brown")
    #expect(
      Set(style.queryItems(name: "color", value: Color()).map { "\($0.name)=\($0.value ?? "")" })
        == ["R=100", "G=200", "B=150"])
  }

  @Test func deepObject() {
    let items = ParameterStyle.deepObject.queryItems(name: "color", value: Color())
    // `color[R]=100&color[G]=200&color[B]=150`, the brackets percent-encoded (RFC 3986 keeps
    // them for IP literals) as servers read them.
    #expect(
      Set(items.map { "\($0.name.removingPercentEncoding ?? "")=\($0.value ?? "")" })
        == ["color[R]=100", "color[G]=200", "color[B]=150"])
    #expect(items.allSatisfy { PercentEncoding.isWellFormedQueryPart($0.name) })
  }

  @Test func delimitedStyles() {
    #expect(
      query(ParameterStyle.spaceDelimited.queryItems(name: "color", value: array))
        == "color=blue%20black%20brown")
    #expect(
      query(ParameterStyle.pipeDelimited.queryItems(name: "color", value: array))
        == "color=blue%7Cblack%7Cbrown")
    let object = ParameterStyle.pipeDelimited.queryItems(name: "color", value: Color())
    #expect(pairs(object[0].value ?? "", separator: "%7C") == ["R=100", "G=200", "B=150"])
  }

  @Test func simpleInAHeaderOrAPath() {
    #expect(ParameterStyle.simple(explode: false).text(of: "blue") == "blue")
    #expect(ParameterStyle.simple(explode: false).text(of: array) == "blue,black,brown")
    #expect(ParameterStyle.simple(explode: true).text(of: array) == "blue,black,brown")
    #expect(
      pairs(ParameterStyle.simple(explode: false).text(of: Color()), separator: ",")
        == ["R=100", "G=200", "B=150"])
    #expect(
      Set(ParameterStyle.simple(explode: true).text(of: Color()).components(separatedBy: ","))
        == ["R=100", "G=200", "B=150"])
  }

  /// In a path, each element (key, value) is encoded by itself and the separators stay
  /// literal, so an element's own comma is told from the list's: `a%2Cb,c`.
  @Test func aPathSegmentKeepsItsSeparators() {
    #expect(ParameterStyle.simple(explode: false).pathSegment(of: ["a,b", "c/d"]) == "a%2Cb,c%2Fd")
    #expect(ParameterStyle.simple(explode: false).pathSegment(of: "..") == "%2E%2E")
    #expect(
      ParameterStyle.simple(explode: true).pathSegment(of: Color()) == "B=150,G=200,R=100")
    #expect(
      ParameterStyle.simple(explode: false).pathSegment(of: Color()) == "B,150,G,200,R,100")
  }

  /// A whole number beyond `Int64` is written whole, not as a fraction's exponent.
  @Test func largeWholeNumbersStayWhole() {
    #expect(
      ParameterStyle.form(explode: true).queryItems(name: "n", value: UInt64.max).first?.value
        == "18446744073709551615")
  }

  /// Values with the characters a query reserves reach the server as they were: each name and
  /// value encoded once, so `&`, `=`, `+`, `#`, `%`, `[` and spaces never split or end an item.
  @Test func reservedCharactersAreEncodedOnce() throws {
    let filter = ["a&b=c": "d+e #f%", "x[y]": "z"]
    let items = ParameterStyle.deepObject.queryItems(name: "filter", value: filter)
    var components = URLComponents()
    components.percentEncodedQueryItems = items
    let url = try #require(
      URL(string: "http://h.invalid/p?" + (components.percentEncodedQuery ?? "")))
    let read = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    #expect(
      Set(read.map { "\($0.name)|\($0.value ?? "")" })
        == ["filter[a&b=c]|d+e #f%", "filter[x[y]]|z"])
  }

  /// Booleans, whole and fractional numbers, dates and `null`s are written as JSON has them (a
  /// `null` property is left out), and a nested object goes one bracket deeper.
  @Test func valuesOfEveryKind() {
    struct Filter: Encodable {
      var done = true
      var count = 3
      var ratio = 0.5
      var since = Date(timeIntervalSince1970: 0)
      var owner: String? = nil
      var range = ["gt": 1]
    }
    let items = ParameterStyle.deepObject.queryItems(name: "f", value: Filter())
    #expect(
      Set(
        items.map {
          "\($0.name.removingPercentEncoding ?? "")=\($0.value?.removingPercentEncoding ?? "")"
        })
        == [
          "f[done]=true", "f[count]=3", "f[ratio]=0.5", "f[since]=1970-01-01T00:00:00Z",
          "f[range][gt]=1",
        ])
  }

  /// A parameter described by `content: application/json` is its JSON text.
  @Test func jsonContent() throws {
    let text = ParameterStyle.json(Color())
    let read = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Int]
    #expect(read == ["R": 100, "G": 200, "B": 150])
    #expect(!text.contains("\n"))
  }
}
