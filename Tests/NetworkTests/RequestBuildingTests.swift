import Foundation
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisLoopbackServer
import TrellisNetwork

@Suite("Building requests from endpoints", .capturesLogs)
struct RequestBuildingTests {
  private func build(_ endpoint: TestAPI) throws -> HTTPRequest {
    try HTTPRequest(
      endpoint: endpoint, baseURL: nil, encoder: JSONEncoder(), defaultTimeout: .seconds(7))
  }

  @Test func pathQueryMethodAndTimeout() throws {
    let request = try TestAPI.$serverURL.withValue(URL(string: "https://api.example.com/v1")!) {
      try build(.items(page: 2))
    }
    #expect(request.url.absoluteString == "https://api.example.com/v1/items?page=2")
    #expect(request.method == .get)
    #expect(request.timeout == .seconds(7))
    #expect(request.headers["accept"] == "application/json")
    #expect(request.body == nil)
  }

  @Test func jsonBody() throws {
    let request = try build(.create(Item(id: 1, name: "A")))
    #expect(request.headers["Content-Type"] == "application/json")
    let decoded = try JSONDecoder().decode(Item.self, from: request.body ?? Data())
    #expect(decoded == Item(id: 1, name: "A"))
  }

  @Test func formBodyIsPercentEncoded() throws {
    let request = try build(.login(username: "alice smith", password: "p&ss=1"))
    #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
    #expect(
      String(decoding: request.body ?? Data(), as: UTF8.self)
        == "username=alice+smith&password=p%26ss%3D1")
  }

  @Test func rawBody() throws {
    let request = try build(.raw(Data([1, 2, 3])))
    #expect(request.headers["Content-Type"] == "application/octet-stream")
    #expect(request.body == Data([1, 2, 3]))
  }

  @Test func multipartBodyRoundTripsThroughTheServersParser() throws {
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A])
    let request = try build(.upload(fileName: "photo \"1\".png", data: png))
    let contentType = try #require(request.headers["Content-Type"])
    #expect(contentType.hasPrefix("multipart/form-data; boundary="))
    let parsed = ServerRequest(
      method: .post, path: "/files", headers: ["Content-Type": contentType],
      body: request.body ?? Data())
    let parts = try #require(parsed.multipartParts)
    #expect(parts.count == 2)
    #expect(parts[0] == .field("purpose", "attachment"))
    #expect(parts[1].name == "file")
    #expect(parts[1].fileName == "photo \"1\".png")
    #expect(parts[1].contentType == "image/png")
    #expect(parts[1].data == png)
  }

  @Test func aBodyThatCannotBeEncodedIsAnInvalidRequest() {
    struct Unencodable: Encodable, Sendable {
      func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
          0, .init(codingPath: [], debugDescription: "not encodable"))
      }
    }
    struct Endpoint: HTTPEndpoint {
      var baseURL: URL? { URL(string: "http://127.0.0.1")! }
      var path: String { "/x" }
      var method: HTTPMethod { .post }
      var body: HTTPRequestBody { .json(Unencodable()) }
    }
    #expect {
      try HTTPRequest(
        endpoint: Endpoint(), baseURL: nil, encoder: JSONEncoder(), defaultTimeout: .seconds(1))
    } throws: { error in
      guard case .invalidRequest(let reason) = error as? HTTPError else { return false }
      return reason.contains("POST /x") && reason.contains("cannot be encoded")
    }
  }

  @Test func curlRenderingRedactsSecrets() throws {
    var request = try build(.login(username: "alice", password: "hunter2"))
    request.headers["Authorization"] = "Bearer secret-token"
    request.headers["X-CSRF-Token"] = "csrf-secret"
    request.url = URL(string: "https://api.test/login?access_token=query-secret&page=2")!
    let curl = request.curlCommand()
    #expect(curl.hasPrefix("curl -X POST"))
    #expect(curl.contains("'Authorization: <redacted>'"))
    #expect(curl.contains("access_token=<redacted>&page=2"))
    #expect(curl.contains("--data-binary '<"))  // the body by size only, unless rendered
    for secret in ["secret-token", "csrf-secret", "query-secret", "hunter2"] {
      #expect(!curl.contains(secret))
    }
  }

  @Test func descriptionsNeverShowASecret() throws {
    var request = try build(.login(username: "alice", password: "hunter2"))
    request.headers["Authorization"] = "Bearer secret-token"
    request.headers["Cookie"] = "session=cookie-secret"
    // `query` is no secret's name: it is what a user searched for, which no description shows.
    request.url = URL(
      string:
        "https://user:url-secret@api.test/x?api_key=query-secret&query=typed-secret"
        + "#id_token=frag")!
    let response = HTTPResponse(
      status: 200, headers: ["Set-Cookie": "sid=set-cookie-secret"],
      body: Data(#"{"access_token":"body-secret"}"#.utf8), request: request)
    let token = AccessToken(value: "access-secret", expiresAt: nil)
    let texts = [
      "\(request)", String(reflecting: request), "\(request.headers)", "\(response)",
      String(reflecting: response), "\(token)", String(reflecting: token), request.target,
      "\(HTTPError.unacceptableStatus(response))",
    ]
    for text in texts {
      for secret in [
        "secret-token", "cookie-secret", "url-secret", "query-secret", "frag", "hunter2",
        "set-cookie-secret", "body-secret", "access-secret", "typed-secret",
      ] {
        #expect(!text.contains(secret), "\(text) shows \(secret)")
      }
    }
    #expect("\(request)".contains("api.test/x?api_key=…&query=…"))
    #expect(request.target == "/x?api_key=…&query=…")
    // A bare item may be a token itself; empty items show nothing.
    request.url = URL(string: "https://api.test/y?abc123&&page=2")!
    #expect(request.target == "/y?…&page=…")
    request.url = URL(string: "https://api.test/z#frag")!
    #expect(request.target == "/z" && request.redactedURL == "https://api.test/z")
  }

  @Test func theSecretListMatchesNamesInAnySpelling() {
    let redactor = SecretRedactor.standard
    for name in [
      "X-Auth-Token", "x-access-token", "X-CSRF-Token", "X-API-Key", "Proxy-Authorization",
      "Set-Cookie", "apiKey", "api_key", "API-KEY", "id_token", "client_secret", "newPassword",
      "new_password", "otp", "secret", "sessionId", "session_id", "accessToken",
    ] {
      #expect(redactor.isSensitive(name), "\(name)")
    }
    for name in ["Accept", "page", "username", "title"] { #expect(!redactor.isSensitive(name)) }
    #expect(
      redactor.redacting(formEncoded: "user=a&otp=123456&new%5Fpassword=x")
        == "user=a&otp=<redacted>&new%5Fpassword=<redacted>")
  }

  @Test func idempotentMethods() {
    #expect(HTTPMethod.get.isIdempotent)
    #expect(HTTPMethod.put.isIdempotent)
    #expect(HTTPMethod.delete.isIdempotent)
    #expect(!HTTPMethod.post.isIdempotent)
    #expect(!HTTPMethod.patch.isIdempotent)
    #expect(HTTPMethod(rawValue: "get") == .get)
  }

  @Test func headersIgnoreCase() {
    var headers: HTTPHeaders = ["Content-Type": "text/plain"]
    headers["content-type"] = "application/json"
    #expect(headers["CONTENT-TYPE"] == "application/json")
    #expect(headers.dictionary.count == 1)
  }
}
