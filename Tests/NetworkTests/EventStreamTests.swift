import Core
import Foundation
import LoopbackServer
import Network
import Synchronization
import Testing

@Suite("EventStreamClient over the loopback server")
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
      var states: [EventStreamState] = []
      let stateWatcher = Task {
        for await state in stream.state.values {
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
}
