import Foundation
import Synchronization
import Testing
import TrellisLoopbackServer
import TrellisNetwork
import TrellisRepository

// Copied by .ci/check-generator into a tree where `trellis-gen api
// Tests/GeneratorTests/Fixtures/constructs.yaml --prefix Zq` generated its client (the module
// names follow the tree's rename). A real HTTP server on loopback implements part of that
// document and checks each request it gets against what the document says, written here by
// hand from the document, not from the generator's samples: method, path, query, headers and
// body, reserved characters included; and an error answer reaches the caller with the server's
// message.
@Suite("A generated client against a server on loopback that checks each request")
struct ConstructsClientTests {
  /// What the server saw, by request.
  private final class Seen: Sendable {
    let problems = Mutex<[String]>([])
    func check(_ condition: Bool, _ what: String) {
      if !condition { problems.withLock { $0.append(what) } }
    }
  }

  private static let node = """
    {"id": "a/b c?d#e%f&g=h+i..", "kind": "node", "level": 2, "tag": "red", "default": true,
     "public": false, "parent": {"id": "root"}, "children": [{"id": "leaf"}],
     "sequence_id": "3", "workspace": {"gt": 1}}
    """

  private func withClient(
    _ body: (ZqNodesRepoImpl, Seen) async throws -> Void
  ) async throws {
    let seen = Seen()
    let router = Router()
    // GET /nodes/{node_id}: node_id one segment; metadata exploded (form); range a deepObject;
    // filter JSON text; ids exploded; order an enum value.
    router.get("/nodes/:node_id") { request in
      let id = request.pathParameters["node_id"] ?? ""
      // The document's error answers: 404 a Problem, 4XX an object with `error`, anything
      // else (`default`) a Problem as application/problem+json.
      switch id {
      case "missing":
        return ServerResponse(
          status: 404, headers: ["Content-Type": "application/json"],
          body: Data(#"{"code": 404, "message": "No node is called missing"}"#.utf8))
      case "teapot":
        return ServerResponse(
          status: 418, headers: ["Content-Type": "application/json"],
          body: Data(#"{"error": "short and stout"}"#.utf8))
      case "down":
        return ServerResponse(
          status: 503, headers: ["Content-Type": "application/problem+json"],
          body: Data(#"{"code": 503, "message": "Down for maintenance"}"#.utf8))
      case "garbled":
        return ServerResponse(
          status: 404, headers: ["Content-Type": "application/json"], body: Data("<html>".utf8))
      default:
        break
      }
      seen.check(id == "a/b c?d#e%f&g=h+i..", "node_id arrived as \(id)")
      seen.check(request.path.split(separator: "/").count == 2, "path \(request.path)")
      let items = request.query.map { "\($0.name)=\($0.value ?? "")" }
      for expected in [
        "owner=x&y=z", "team=a b", "range[gt]=1", "range[lt]=9", "ids=p,q", "ids=r|s",
        "order=ASC",
      ] {
        seen.check(items.contains(expected), "missing \(expected) in \(items)")
      }
      let filter = request.queryValue("filter").flatMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Int]
      }
      seen.check(filter == ["gt": 2], "filter \(String(describing: filter))")
      seen.check(request.headers["Authorization"] == nil, "a credential was sent")
      seen.check(request.body.isEmpty, "a GET with a body")
      return ServerResponse(
        status: 200, headers: ["Content-Type": "application/json"], body: Data(Self.node.utf8))
    }
    // POST /speech: a JSON body; answers bytes.
    router.post("/speech") { request in
      let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Int]
      seen.check(body == ["lt": 5], "speech body \(String(describing: body))")
      seen.check(
        request.headers["Content-Type"]?.hasPrefix("application/json") == true,
        "content type \(String(describing: request.headers["Content-Type"]))")
      return ServerResponse(
        status: 200, headers: ["Content-Type": "audio/mpeg"], body: Data([0xFF, 0xFB, 0x90]))
    }
    let server = try LoopbackServer(router: router)
    defer { server.stop() }
    let repo = ZqNodesRepoImpl(
      requester: HTTPRequester<ZqNodesDataAPI>(
        baseURL: server.baseURL, transport: URLSessionTransport(), configuration: .iso8601Dates))
    try await body(repo, seen)
    let problems = seen.problems.withLock { $0 }
    #expect(problems.isEmpty, "\(problems)")
  }

  @Test func eachRequestIsTheOneTheDocumentDescribes() async throws {
    try await withClient { repo, _ in
      let node = try await repo.getNode(
        nodeID: "a/b c?d#e%f&g=h+i..", metadata: ["owner": "x&y=z", "team": "a b"],
        range: ZqRangeModel(gt: 1, lt: 9), filter: ZqRangeModel(gt: 2),
        ids: .array(["p,q", "r|s"]), order: .asc)
      #expect(node.id == "a/b c?d#e%f&g=h+i..")
      #expect(node.parent?.id == "root")
      #expect(node.children?.map(\.id) == ["leaf"])
      #expect(node.kind == .node && node.level == 2 && node.tag == .red)
      #expect(node.default == true && node.public == false)
      #expect(node.sequenceID == "3" && node.workspace == ZqRangeModel(gt: 1))
      #expect(try await repo.speak(body: ZqRangeModel(lt: 5)) == Data([0xFF, 0xFB, 0x90]))
    }
  }

  @Test func anErrorAnswerReachesTheCallerWithTheServersMessage() async throws {
    try await withClient { repo, _ in
      do {
        _ = try await repo.getNode(nodeID: "missing")
        Issue.record("a 404 was read as a node")
      } catch let error as RepositoryError {
        #expect(error == .notFound("No node is called missing"))
      } catch {
        Issue.record("not a RepositoryError: \(error)")
      }
    }
  }

  /// Each error answer the document types reaches the caller as its type, by its status; one
  /// whose body is not of its type is thrown, as the plain method throws it.
  @Test func eachTypedErrorAnswerIsReadAsTheDocumentSays() async throws {
    try await withClient { repo, _ in
      let missing = try await repo.getNodeAnswer(nodeID: "missing")
      #expect(
        missing
          == .failure(
            status: 404,
            body: .status404(ZqProblemModel(code: 404, message: "No node is called missing")),
            error: .notFound("No node is called missing")))
      guard
        case .failure(418, .status4XX(let teapot), let error) = try await repo.getNodeAnswer(
          nodeID: "teapot")
      else {
        Issue.record("a 418 was not read as the 4XX answer")
        return
      }
      #expect(teapot.error == "short and stout")
      #expect(error == .server(status: 418, "short and stout"))
      let down = try await repo.getNodeAnswer(nodeID: "down")
      #expect(
        down
          == .failure(
            status: 503, body: .other(ZqProblemModel(code: 503, message: "Down for maintenance")),
            error: .server(status: 503, "Down for maintenance")))
      await #expect(throws: RepositoryError.notFound("The server answered with status 404.")) {
        _ = try await repo.getNodeAnswer(nodeID: "garbled")
      }
      let node = try await repo.getNodeAnswer(
        nodeID: "a/b c?d#e%f&g=h+i..", metadata: ["owner": "x&y=z", "team": "a b"],
        range: ZqRangeModel(gt: 1, lt: 9), filter: ZqRangeModel(gt: 2),
        ids: .array(["p,q", "r|s"]), order: .asc
      ).value()
      #expect(node.id == "a/b c?d#e%f&g=h+i..")
    }
  }
}
