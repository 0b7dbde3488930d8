import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisLoopbackServer

@testable import TrellisNetwork

@Suite("EventStreamClient over the loopback server", .capturesLogs, .timeLimit(.minutes(2)))
struct EventStreamTests {
  private func client(
    source: FakeTokenSource = FakeTokenSource(token: freshToken()),
    initialDelay: Duration = .milliseconds(10)
  ) -> EventStreamClient {
    var policy = EventStreamClient.ReconnectPolicy()
    policy.initialDelay = initialDelay
    return EventStreamClient(
      endpoint: TestAPI.events,
      requester: makeRequester(plugins: [AuthPlugin(source: source)]),
      transport: URLSessionTransport(), policy: policy)
  }

  @Test func deliversEventsAsTheServerSendsThem() async throws {
    let router = Router()
    let release = Relay(false)
    router.get("/events") { _ in
      .stream { writer in
        try await writer.writeEvent(id: "1", event: "task.created", data: "{\"id\":1}")
        // The second event waits: the first must arrive on its own, not when the stream ends.
        for await go in release.values where go { break }
        try await writer.writeEvent(id: "2", data: "second")
        try await Task.sleep(for: .seconds(30))
      }
    }
    try await withServer(router) { _ in
      let stream = client()
      var iterator = stream.events().makeAsyncIterator()
      let first = await iterator.next()
      #expect(first == ServerSentEvent(id: "1", event: "task.created", data: "{\"id\":1}"))
      #expect(stream.state.value == .open)
      release.send(true)
      let second = await iterator.next()
      #expect(second?.data == "second")
    }
  }

  @Test func reconnectsAndResendsTheLastEventID() async throws {
    let router = Router()
    let connections = Recorder<String>()
    router.get("/events") { request in
      let lastID = request.headers["Last-Event-ID"] ?? "none"
      connections.append(lastID)
      return .stream { writer in
        if lastID == "none" {
          try await writer.writeEvent(id: "1", data: "one")
          try await writer.writeEvent(id: "2", data: "two")
          return  // the server ends the stream: the client must reconnect
        }
        try await writer.writeEvent(id: "3", data: "three")
        try await Task.sleep(for: .seconds(30))
      }
    }
    try await withServer(router) { _ in
      let stream = client()
      // Subscribed here, before the stream connects: a watcher that subscribed from its own
      // task, later, could first see `.connecting` (a flake on a loaded machine).
      let stateValues = stream.state.values
      var states: [EventStreamState] = []
      let stateWatcher = Task {
        for await state in stateValues {
          states.append(state)
          if states.filter({ $0 == .open }).count == 2 { return states }
        }
        return states
      }
      var received: [String] = []
      for await event in stream.events() {
        received.append(event.data)
        if received.count == 3 { break }
      }
      #expect(received == ["one", "two", "three"])
      #expect(connections.values == ["none", "2"])
      let seen = await stateWatcher.value
      #expect(seen.first == .idle)
      #expect(seen.contains(.connecting(attempt: 1)))
      #expect(seen.contains { if case .lost = $0 { true } else { false } })
      #expect(seen.filter { $0 == .open }.count == 2)
    }
  }

  @Test func cancellingTheConsumerClosesTheConnection() async throws {
    let router = Router()
    router.get("/events") { _ in
      .stream { writer in
        try await writer.writeEvent(data: "hello")
        try await Task.sleep(for: .seconds(30))
      }
    }
    try await withServer(router) { server in
      let stream = client()
      let consumer = Task {
        for await _ in stream.events() {}
      }
      for await state in stream.state.values where state == .open { break }
      consumer.cancel()
      await consumer.value
      for await disconnects in server.clientDisconnects.values where disconnects >= 1 { break }
      for await state in stream.state.values where state == .idle { break }
    }
  }

  @Test func aRejectedTokenIsRefreshedBeforeReconnecting() async throws {
    let source = FakeTokenSource(token: freshToken("token-1"))
    let router = Router()
    let tokens = Recorder<String>()
    router.get("/events") { request in
      let token = request.bearerToken ?? "none"
      tokens.append(token)
      guard token == "token-2" else { return .status(401) }
      return .stream { writer in
        try await writer.writeEvent(data: "authorized")
        try await Task.sleep(for: .seconds(30))
      }
    }
    try await withServer(router) { _ in
      let stream = client(source: source)
      var iterator = stream.events().makeAsyncIterator()
      let event = await iterator.next()
      #expect(event?.data == "authorized")
    }
    #expect(tokens.values == ["token-1", "token-2"])
    #expect(source.refreshes == 1)
  }

  @Test func anUnreachableServerIsReportedAsLostAndRetried() async throws {
    let server = try LoopbackServer(router: Router())
    let url = server.baseURL
    server.stop()
    await TestAPI.$serverURL.withValue(url) {
      let stream = client(initialDelay: .milliseconds(5))
      let consumer = Task { for await _ in stream.events() {} }
      var attempts = 0
      for await state in stream.state.values {
        if case .connecting(let attempt) = state { attempts = attempt }
        if attempts >= 3 { break }
      }
      consumer.cancel()
      await consumer.value
      #expect(attempts >= 3)
    }
  }

  /// How the first connection ends, part way through the stream.
  enum Cut: String, CaseIterable, CustomStringConvertible {
    case betweenEvents, afterDataBeforeBlankLine, midLine, reset
    var description: String { rawValue }
  }

  @Test(arguments: Cut.allCases)
  func everyEventArrivesExactlyOnceInOrderAcrossACutConnection(cut: Cut) async throws {
    let all = ["one", "two", "three", "four", "end"]
    let connections = Recorder<String>()
    let router = Router()
    router.get("/events") { request in
      let lastID = request.headers["Last-Event-ID"]
      connections.append(lastID ?? "none")
      let first = connections.values.count == 1
      // The server resumes after the id the client names, as servers do.
      let start = lastID.flatMap(Int.init) ?? 0
      return .stream { writer in
        if first {
          try await writer.write(Data("id: 1\ndata: one\n\n".utf8))
          switch cut {
          case .betweenEvents:
            try await writer.write(Data("id: 2\ndata: two\n\n".utf8))
            throw ServerResponse.Fault.closeMidResponse
          case .afterDataBeforeBlankLine:
            try await writer.write(Data("id: 2\ndata: two\n".utf8))
            throw ServerResponse.Fault.closeMidResponse
          case .midLine:
            try await writer.write(Data("id: 2\ndata: tw".utf8))
            throw ServerResponse.Fault.closeMidResponse
          case .reset:
            try await writer.write(Data("id: 2\ndata: two\n".utf8))
            throw ServerResponse.Fault.reset
          }
        }
        for (index, name) in all.enumerated() where index >= start {
          try await writer.writeEvent(id: "\(index + 1)", data: name)
        }
        try await Task.sleep(for: .seconds(30))
      }
    }
    try await withServer(router) { _ in
      var policy = EventStreamClient.ReconnectPolicy()
      policy.initialDelay = .milliseconds(10)
      policy.minimumDelay = .milliseconds(10)
      let stream = EventStreamClient(
        endpoint: TestAPI.events,
        requester: makeRequester(plugins: [AuthPlugin(source: FakeTokenSource(token: freshToken()))]
        ),
        transport: URLSessionTransport(), policy: policy)
      var received: [String] = []
      for await event in stream.events() {
        received.append(event.data)
        if event.data == "end" { break }
      }
      #expect(received == all)
      #expect(connections.values.count == 2)
      #expect(connections.values.last == (cut == .betweenEvents ? "2" : "1"))
    }
  }

  @Test func theReconnectDelayStaysWithinThePolicyWhateverTheServerAsks() {
    var policy = EventStreamClient.ReconnectPolicy()
    policy.minimumDelay = .milliseconds(250)
    policy.maximumDelay = .seconds(30)
    let stream = EventStreamClient(policy: policy) { _, _ throws(HTTPError) in
      throw .transport(TransportFailure(.cannotConnect))
    }
    for attempt in [1, 2, 10, 100, Int.max] {
      for server in [Duration.zero, .milliseconds(1), .milliseconds(Int.max), nil] {
        let delay = stream.backoff(attempt: attempt, serverDelay: server)
        #expect(
          delay >= .milliseconds(250) && delay <= .seconds(30),
          "\(attempt) \(String(describing: server))")
      }
    }
  }

  @Test func aLineOverTheLimitClosesTheConnectionInsteadOfGrowing() async throws {
    let connections = Recorder<Int>()
    let router = Router()
    router.get("/events") { _ in
      connections.append(1)
      let first = connections.values.count == 1
      return .stream { writer in
        if first {
          // 200 KB without a line break.
          for _ in 0..<20 { try await writer.write(Data(repeating: 0x61, count: 10_000)) }
          try await Task.sleep(for: .seconds(30))
        }
        try await writer.writeEvent(data: "fine")
        try await Task.sleep(for: .seconds(30))
      }
    }
    try await withServer(router) { _ in
      var policy = EventStreamClient.ReconnectPolicy()
      policy.initialDelay = .milliseconds(10)
      policy.minimumDelay = .milliseconds(10)
      policy.maximumLineLength = 16 * 1024
      let stream = EventStreamClient(
        endpoint: TestAPI.events,
        requester: makeRequester(plugins: [AuthPlugin(source: FakeTokenSource(token: freshToken()))]
        ),
        transport: URLSessionTransport(), policy: policy)
      let reasons = Recorder<String>()
      let token = stream.state.observe { state in
        if case .lost(let reason, _) = state { reasons.append(reason) }
      }
      defer { token.cancel() }
      var iterator = stream.events().makeAsyncIterator()
      let event = await iterator.next()
      #expect(event?.data == "fine")
      #expect(reasons.values.first == "the server sent a line longer than 16384 bytes")
    }
  }
}
