import Foundation
import Synchronization
import Testing
import TrellisCoreTesting
import TrellisLoopbackServer
import TrellisNetwork

/// A value in a path or a query reaches the server as the text it was, encoded once (RFC 3986):
/// reserved characters, `%`, spaces, dots and other scripts included.
@Suite("Requests: reserved characters reach the server as they were", .capturesLogs)
struct ReservedCharacterTests {
  /// `GET /items/{id}?q=...`, its path encoded by the endpoint (as generated code does).
  private struct Item: HTTPEndpoint {
    var id: String
    var q: String
    var baseURL: URL? { TestAPI.serverURL }
    var path: String { "/items/" + PercentEncoding.pathSegment(id) }
    var isPathPercentEncoded: Bool { true }
    var method: HTTPMethod { .get }
    var query: [URLQueryItem] {
      [URLQueryItem(name: "q", value: q), URLQueryItem(name: "a&b", value: "c")]
    }
    var requiresAuthentication: Bool { false }
  }

  /// A list sent as one item whose elements are encoded and joined by a literal comma (OpenAPI's
  /// `form` style without explode), the query said to be encoded already.
  private struct Fields: HTTPEndpoint {
    var fields: [String]
    var baseURL: URL? { TestAPI.serverURL }
    var path: String { "/fields" }
    var method: HTTPMethod { .get }
    var isQueryPercentEncoded: Bool { true }
    var query: [URLQueryItem] {
      [
        URLQueryItem(
          name: "opt_fields", value: fields.map(PercentEncoding.encode).joined(separator: ","))
      ]
    }
    var requiresAuthentication: Bool { false }
  }

  static let values = ["a/b c?d#e%f", "..", ".", "x+y&z=1", "ünï 漢字 👍", "%2F", "a;b,c=d"]

  @Test(arguments: values)
  func aValueInThePathAndTheQueryArrivesAsItWas(value: String) async throws {
    let router = Router()
    let seen = Mutex<[String: String]>([:])
    router.get("/items/:id") { request in
      seen.withLock {
        $0["id"] = request.pathParameters["id"]
        $0["q"] = request.queryValue("q")
        $0["a&b"] = request.queryValue("a&b")
        $0["path"] = request.path
      }
      return .text("ok")
    }
    try await withServer(router) { _ in
      let requester = HTTPRequester<Item>(transport: URLSessionTransport())
      _ = try await requester.request(Item(id: value, q: value))
    }
    let received = seen.withLock { $0 }
    #expect(received["id"] == value, "\(received)")
    #expect(received["q"] == value, "\(received)")
    #expect(received["a&b"] == "c")
    // One segment: the value's own slashes, dots and percent signs are encoded.
    #expect(received["path"]?.split(separator: "/").count == 2, "\(received)")
  }

  @Test func aListJoinedByCommasKeepsItsSeparatorsAndEncodesItsElements() async throws {
    let router = Router()
    let seen = Mutex<String?>(nil)
    router.get("/fields") { request in
      seen.withLock { $0 = request.queryValue("opt_fields") }
      return .text("ok")
    }
    try await withServer(router) { _ in
      let requester = HTTPRequester<Fields>(transport: URLSessionTransport())
      _ = try await requester.request(Fields(fields: ["name", "notes,long", "a&b"]))
    }
    let value = try #require(seen.withLock { $0 })
    #expect(value == "name,notes,long,a&b")
    // The separators are the document's; the elements' own commas are encoded.
    let request = try HTTPRequest(
      endpoint: Fields(fields: ["name", "notes,long"]), baseURL: nil, encoder: JSONEncoder(),
      defaultTimeout: .seconds(5))
    #expect(request.url.query == "opt_fields=name,notes%2Clong")
  }

  @Test func aPathOrQuerySaidToBeEncodedButMalformedIsRefused() throws {
    struct Broken: HTTPEndpoint {
      var path: String
      var isPathPercentEncoded: Bool { true }
      var method: HTTPMethod { .get }
    }
    for path in ["/items/%zz", "/items/a b", "/items/a?b", "/items/%4"] {
      #expect(throws: HTTPError.self) {
        try HTTPRequest(
          endpoint: Broken(path: path), baseURL: URL(string: "https://api.example.com/v1"),
          encoder: JSONEncoder(), defaultTimeout: .seconds(5))
      }
    }
    let good = try HTTPRequest(
      endpoint: Broken(path: "/items/a%2Fb"), baseURL: URL(string: "https://api.example.com/v1/"),
      encoder: JSONEncoder(), defaultTimeout: .seconds(5))
    #expect(good.url.absoluteString == "https://api.example.com/v1/items/a%2Fb")
  }

  @Test func aPlainQueryEncodesEveryReservedCharacterOnce() throws {
    let request = try HTTPRequest(
      endpoint: Item(id: "1", q: "x+y&z=1 %"), baseURL: nil, encoder: JSONEncoder(),
      defaultTimeout: .seconds(5))
    #expect(request.url.query == "q=x%2By%26z%3D1%20%25&a%26b=c")
  }
}
