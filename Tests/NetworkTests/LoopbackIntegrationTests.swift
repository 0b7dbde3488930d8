import Foundation
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisLoopbackServer
import TrellisNetwork

@Suite("Requests over real HTTP on loopback", .capturesLogs, .timeLimit(.minutes(2)))
struct LoopbackIntegrationTests {
  @Test func sequentialRequestsReuseOneKeptAliveConnection() async throws {
    let router = Router()
    router.get("/items/:id") { request in
      .json(Item(id: Int(request.pathParameters["id"]!)!, name: "x"))
    }
    try await withServer(router) { server in
      let requester = makeRequester()
      for id in 1...5 {
        let item = try await requester.request(.item(id: id), as: Item.self)
        #expect(item.id == id)
      }
      #expect(server.requests.count == 5)
      #expect(server.acceptedConnections == 1)
    }
  }

  @Test func aJSONBodyAndAMultipartUploadArriveIntact() async throws {
    let router = Router()
    router.post("/items") { request in .json(try request.decodeBody(Item.self), status: 201) }
    router.post("/files") { request in
      let parts = request.multipartParts ?? []
      let file = parts.first { $0.name == "file" }
      return .json(["name": file?.fileName ?? "", "size": "\(file?.data.count ?? 0)"])
    }
    try await withServer(router) { _ in
      let requester = makeRequester()
      let created = try await requester.request(.create(Item(id: 3, name: "três")), as: Item.self)
      #expect(created == Item(id: 3, name: "três"))
      let bytes = Data((0..<100_000).map { UInt8($0 % 251) })
      let progress = Recorder<Double>()
      let uploaded = try await requester.request(
        .upload(fileName: "big.bin", data: bytes), as: [String: String].self,
        progress: { progress.append($0) })
      #expect(uploaded == ["name": "big.bin", "size": "100000"])
      #expect(progress.values.last == 1)
      #expect(progress.values == progress.values.sorted())  // never goes backwards
    }
  }

  @Test func anUnreachableServerIsCannotConnect() async throws {
    let server = try LoopbackServer(router: Router())
    let url = server.baseURL
    server.stop()  // nothing listens on this port any more
    let requester = makeRequester()
    await TestAPI.$serverURL.withValue(url) {
      await #expect {
        try await requester.request(.item(id: 1))
      } throws: { error in
        guard case .transport(let failure) = error as? HTTPError else { return false }
        return failure.kind == .cannotConnect && failure.isTemporary
      }
    }
  }

  @Test func aSlowServerTimesOut() async throws {
    struct Quick: HTTPEndpoint {
      var baseURL: URL? { TestAPI.serverURL }
      var path: String { "/slow" }
      var method: HTTPMethod { .get }
      var timeout: Duration? { .milliseconds(300) }
    }
    let router = Router()
    router.get("/slow") { _ in ServerResponse.status(200).delayed(by: .seconds(5)) }
    try await withServer(router) { _ in
      let requester = HTTPRequester<Quick>(transport: URLSessionTransport())
      await #expect {
        try await requester.request(Quick())
      } throws: { error in
        guard case .transport(let failure) = error as? HTTPError else { return false }
        return failure.kind == .timedOut
      }
    }
  }

  @Test(arguments: [ServerResponse.Fault.closeMidResponse, .reset, .closeWithoutResponse])
  func aBrokenConnectionIsATransportFailure(fault: ServerResponse.Fault) async throws {
    let router = Router()
    router.get("/items/:id") { _ in
      .fault(fault, partOf: .json(Item(id: 1, name: String(repeating: "x", count: 4000))))
    }
    try await withServer(router) { _ in
      let requester = makeRequester()
      await #expect {
        try await requester.request(.item(id: 1))
      } throws: { error in
        guard case .transport(let failure) = error as? HTTPError else { return false }
        return failure.kind == .connectionLost || failure.kind == .other
      }
    }
  }

  @Test func aMalformedBodyIsADecodingFailure() async throws {
    let router = Router()
    router.get("/items/:id") { _ in
      ServerResponse(
        status: 200, headers: ["Content-Type": "application/json"],
        body: Data("{\"id\": 1, \"name\": tru".utf8))
    }
    try await withServer(router) { _ in
      let requester = makeRequester()
      await #expect {
        try await requester.request(.item(id: 1), as: Item.self)
      } throws: { error in
        guard case .decoding(let failure) = error as? HTTPError else { return false }
        return failure.reason.contains("data corrupted") && failure.response.status == 200
      }
    }
  }

  @Test func cancellingARequestReturnsPromptlyAndTheServerSeesTheConnectionClose() async throws {
    let router = Router()
    router.get("/items/:id") { _ in
      // Longer than the request's own timeout: a request that ignored cancellation would end
      // with a timeout error, not a cancellation.
      try await Task.sleep(for: .seconds(120))
      return .status(200)
    }
    try await withServer(router) { server in
      let requester = makeRequester()
      let task = Task { try await requester.request(.item(id: 1)) }
      while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
      task.cancel()
      let result = await task.result
      if case .failure(let error as HTTPError) = result {
        #expect(error.isCancellation)
      } else {
        Issue.record("expected a cancellation error, got \(result)")
      }
      for await disconnects in server.clientDisconnects.values where disconnects >= 1 { break }
    }
  }

  @Test func cancellationRacingResponsesNeverHangs() async throws {
    let router = Router()
    router.get("/items/:id") { _ in .json(Item(id: 1, name: "x")) }
    try await withServer(router) { _ in
      let requester = makeRequester()
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<200 {
          group.addTask {
            let request = Task { try await requester.request(.item(id: index)) }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...1500)))
            request.cancel()
            _ = await request.result  // a response or a cancellation; never a hang
          }
          if index >= 16 { try await group.next() }
        }
        try await group.waitForAll()
      }
    }
  }
}
