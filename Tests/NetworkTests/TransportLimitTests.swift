import Foundation
import Testing
import TrellisCoreTesting
import TrellisLoopbackServer
import TrellisNetwork

/// An endpoint with its own deadline and idle timeout, on the current test server.
private struct Timed: HTTPEndpoint {
  var path: String
  var timeout: Duration?
  var idleTimeout: Duration?
  var baseURL: URL? { TestAPI.serverURL }
  var method: HTTPMethod { .get }
}

/// A streamed body of `count` bytes, one byte every `interval`.
private func trickle(_ count: Int, every interval: Duration) -> ServerResponse {
  .stream(headers: ["Content-Type": "application/octet-stream"]) { writer in
    for _ in 0..<count {
      try await writer.write(Data("x".utf8))
      try await Task.sleep(for: interval)
    }
  }
}

private func transportFailure(of error: HTTPError) -> TransportFailure.Kind? {
  if case .transport(let failure) = error { return failure.kind }
  return nil
}

@Suite(
  "URLSessionTransport: deadlines, cut bodies and size limits", .capturesLogs,
  .timeLimit(.minutes(2)))
struct TransportLimitTests {
  @Test func theTimeoutIsADeadlineEvenWhenTheServerTricklesBytes() async throws {
    let router = Router()
    // 40 bytes, one every 100 ms: never silent for a second, 4 s in all.
    router.get("/trickle") { _ in trickle(40, every: .milliseconds(100)) }
    try await withServer(router) { _ in
      let requester = HTTPRequester<Timed>(transport: URLSessionTransport())
      do throws(HTTPError) {
        _ = try await requester.request(Timed(path: "/trickle", timeout: .milliseconds(1500)))
        Issue.record("a trickling response outlived its deadline")
      } catch {
        #expect(transportFailure(of: error) == .timedOut)
      }
    }
  }

  @Test func theIdleTimeoutEndsASilentResponseBeforeItsDeadline() async throws {
    let router = Router()
    router.get("/stall") { _ in
      .stream(headers: ["Content-Type": "application/octet-stream"]) { writer in
        try await writer.write(Data("x".utf8))
        try await Task.sleep(for: .seconds(60))
      }
    }
    try await withServer(router) { _ in
      let requester = HTTPRequester<Timed>(transport: URLSessionTransport())
      let clock = ContinuousClock()
      let started = clock.now
      do throws(HTTPError) {
        _ = try await requester.request(
          Timed(path: "/stall", timeout: .seconds(60), idleTimeout: .seconds(1)))
        Issue.record("a silent response was accepted")
      } catch {
        #expect(transportFailure(of: error) == .timedOut)
      }
      // Not a speed check: only that the 60 s deadline was not what ended it.
      #expect(clock.now - started < .seconds(50))
    }
  }

  @Test func aSlowButSteadyResponseWithinItsDeadlineSucceeds() async throws {
    let router = Router()
    router.get("/trickle") { _ in trickle(5, every: .milliseconds(20)) }
    try await withServer(router) { _ in
      let requester = HTTPRequester<Timed>(transport: URLSessionTransport())
      let response = try await requester.request(Timed(path: "/trickle", timeout: .seconds(30)))
      #expect(response.body == Data("xxxxx".utf8))
    }
  }

  @Test func aBodyCutMidTransferIsALostConnectionAndAnIdempotentRequestIsRetried() async throws {
    let calls = StatusSequence([
      .fault(
        .closeMidResponse, partOf: .json(Item(id: 1, name: String(repeating: "x", count: 4000)))),
      .json(Item(id: 1, name: "whole")),
    ])
    let router = Router()
    router.get("/items/:id") { _ in calls.next() }
    try await withServer(router) { _ in
      let plain = makeRequester()
      do throws(HTTPError) {
        _ = try await plain.request(.item(id: 1))
        Issue.record("a cut body was accepted")
      } catch {
        #expect(transportFailure(of: error) == .connectionLost)
      }
      let retrying = makeRequester(plugins: [RetryPlugin()], delays: Recorder())
      let item = try await retrying.request(.item(id: 1), as: Item.self)
      #expect(item.name == "whole")
    }
  }

  @Test func aResponseLargerThanTheLimitFailsWithATypedError() async throws {
    let router = Router()
    let big = Data(repeating: 0x41, count: 300_000)
    // One announces its length; the other streams without one.
    router.get("/announced") { _ in ServerResponse(status: 200, body: big) }
    router.get("/streamed") { _ in
      .stream(headers: ["Content-Type": "application/octet-stream"]) { writer in
        for _ in 0..<30 { try await writer.write(Data(repeating: 0x42, count: 10_000)) }
      }
    }
    router.get("/small") { _ in ServerResponse(status: 200, body: Data(repeating: 1, count: 1000)) }
    try await withServer(router) { _ in
      let requester = HTTPRequester<Timed>(
        transport: URLSessionTransport(maximumResponseSize: 100_000))
      for path in ["/announced", "/streamed"] {
        do throws(HTTPError) {
          _ = try await requester.request(Timed(path: path, timeout: .seconds(30)))
          Issue.record("\(path): a body over the limit was accepted")
        } catch {
          #expect(transportFailure(of: error) == .responseTooLarge, "\(path)")
        }
      }
      let small = try await requester.request(Timed(path: "/small", timeout: .seconds(30)))
      #expect(small.body.count == 1000)
    }
  }
}
