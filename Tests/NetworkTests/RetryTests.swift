import Foundation
import Testing
import TrellisCoreTesting
import TrellisLoopbackServer
import TrellisNetwork

@Suite("RetryPlugin over the loopback server", .capturesLogs, .timeLimit(.minutes(2)))
struct RetryTests {
  private func retryPlugin(maximumAttempts: Int = 4) -> RetryPlugin {
    var policy = RetryPlugin.Policy()
    policy.maximumAttempts = maximumAttempts
    policy.baseDelay = .milliseconds(100)
    policy.maximumDelay = .milliseconds(350)
    return RetryPlugin(policy: policy, jitter: { 1 })  // no jitter: exact delays
  }

  @Test func retriesA503ThenSucceeds() async throws {
    let sequence = StatusSequence([.status(503), .status(503), .json(Item(id: 1, name: "ok"))])
    let router = Router()
    router.get("/items/:id") { _ in sequence.next() }
    let delays = Recorder<Duration>()
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [retryPlugin()], delays: delays)
      let item = try await requester.request(.item(id: 1), as: Item.self)
      #expect(item.name == "ok")
    }
    #expect(sequence.callCount == 3)
    #expect(delays.values == [.milliseconds(100), .milliseconds(200)])  // doubling
  }

  @Test func backoffIsCappedAndAttemptsAreBounded() async throws {
    let sequence = StatusSequence([.status(500)])
    let router = Router()
    router.get("/items/:id") { _ in sequence.next() }
    let delays = Recorder<Duration>()
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [retryPlugin(maximumAttempts: 4)], delays: delays)
      await #expect {
        try await requester.request(.item(id: 1))
      } throws: { error in
        (error as? HTTPError)?.response?.status == 500
      }
    }
    #expect(sequence.callCount == 4)
    #expect(delays.values == [.milliseconds(100), .milliseconds(200), .milliseconds(350)])
  }

  @Test(arguments: [408, 429, 502, 504])
  func retriesEachRetryableStatus(status: Int) async throws {
    let sequence = StatusSequence([.status(status), .status(200)])
    let router = Router()
    router.get("/items/:id") { _ in sequence.next() }
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [retryPlugin()], delays: Recorder())
      _ = try await requester.request(.item(id: 1))
    }
    #expect(sequence.callCount == 2)
  }

  @Test func honoursRetryAfterInSecondsAndAsADate() async throws {
    let sequence = StatusSequence([
      .status(429, headers: ["Retry-After": "2"]), .status(503), .status(200),
    ])
    let router = Router()
    router.get("/items/:id") { _ in
      let response = sequence.next()
      guard response.status == 503 else { return response }
      // The date is written as the response is sent, 20 s ahead, so that however slowly
      // the test runs the delay the plugin computes stays near 20 s.
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.timeZone = TimeZone(identifier: "GMT")
      formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
      let date = formatter.string(from: Date().addingTimeInterval(20))
      return .status(503, headers: ["Retry-After": date])
    }
    let delays = Recorder<Duration>()
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [retryPlugin()], delays: delays)
      _ = try await requester.request(.item(id: 1))
    }
    #expect(delays.values.first == .seconds(2))
    let dateDelay = try #require(delays.values.last)
    // Whole seconds on the wire, less the time from the response to the plugin.
    #expect(dateDelay > .seconds(10) && dateDelay <= .seconds(20))
  }

  @Test func aRetryAfterBeyondTheLimitFailsAtOnce() async throws {
    let sequence = StatusSequence([.status(503, headers: ["Retry-After": "3600"]), .status(200)])
    let router = Router()
    router.get("/items/:id") { _ in sequence.next() }
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [retryPlugin()], delays: Recorder())
      await #expect(throws: HTTPError.self) { try await requester.request(.item(id: 1)) }
    }
    #expect(sequence.callCount == 1)
  }

  @Test func neverRetriesANonIdempotentRequest() async throws {
    let sequence = StatusSequence([.status(503), .status(201)])
    let router = Router()
    router.post("/items") { _ in sequence.next() }
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [retryPlugin()], delays: Recorder())
      await #expect(throws: HTTPError.self) {
        try await requester.request(.create(Item(id: 1, name: "a")))
      }
    }
    #expect(sequence.callCount == 1)
  }

  @Test func retriesATemporaryTransportFailure() async throws {
    let sequence = StatusSequence([.fault(.closeWithoutResponse), .json(Item(id: 1, name: "ok"))])
    let router = Router()
    router.get("/items/:id") { _ in sequence.next() }
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [retryPlugin()], delays: Recorder())
      let item = try await requester.request(.item(id: 1), as: Item.self)
      #expect(item.name == "ok")
    }
    #expect(sequence.callCount == 2)
  }

  @Test func cancellationStopsTheWaitBeforeARetryAtOnce() async throws {
    let sequence = StatusSequence([.status(503)])
    let router = Router()
    router.get("/items/:id") { _ in sequence.next() }
    var policy = RetryPlugin.Policy()
    policy.baseDelay = .seconds(30)
    policy.maximumDelay = .seconds(30)
    try await withServer(router) { _ in
      let requester = makeRequester(plugins: [RetryPlugin(policy: policy)])
      let task = Task { try await requester.request(.item(id: 1)) }
      try #require(await eventually { sequence.callCount > 0 })
      task.cancel()
      // Had the cancellation not cut the 30 s wait short, the retry would have succeeded.
      let result = await task.result
      #expect(throws: HTTPError.self) { try result.get() }
      if case .failure(let error as HTTPError) = result { #expect(error.isCancellation) }
    }
    #expect(sequence.callCount == 1)
  }
}
