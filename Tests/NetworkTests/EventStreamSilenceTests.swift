import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisLoopbackServer

@testable import TrellisNetwork

/// A connection that dies with no byte and no reset (a tunnel, a network handover, a NAT that
/// forgot it) must not look alive: silence past the idle timeout is a lost connection, a
/// connect that never answers fails within its deadline, and any sign that the network changed
/// replaces the connection.
@Suite("EventStreamClient: silence is a dead connection", .capturesLogs, .timeLimit(.minutes(1)))
struct EventStreamSilenceTests {
  /// A connection the test feeds: each `connect` makes one and records the `Last-Event-ID`
  /// it was opened with.
  final class Connections: Sendable {
    private let opened = Mutex<
      [(lastEventID: String?, feed: AsyncThrowingStream<Data, any Error>.Continuation)]
    >([])

    var count: Int { opened.withLock { $0.count } }
    var lastEventIDs: [String?] { opened.withLock { $0.map(\.lastEventID) } }

    /// Sends `text` on the connection opened `index`-th.
    func send(_ text: String, on index: Int) {
      _ = opened.withLock { $0[index].feed }.yield(Data(text.utf8))
    }

    func connect(_ lastEventID: String?) -> HTTPStreamingResponse {
      let (body, feed) = AsyncThrowingStream<Data, any Error>.makeStream()
      opened.withLock { $0.append((lastEventID, feed)) }
      return HTTPStreamingResponse(
        status: 200, headers: ["Content-Type": "text/event-stream"], body: body)
    }
  }

  private func client(
    _ connections: Connections, idleTimeout: Duration? = nil, sink: MemoryLogSink = MemoryLogSink()
  ) -> EventStreamClient {
    var policy = EventStreamClient.ReconnectPolicy()
    policy.initialDelay = .milliseconds(10)
    policy.minimumDelay = .milliseconds(10)
    policy.idleTimeout = idleTimeout
    return EventStreamClient(policy: policy, logger: Logger(category: "EventStream", sink: sink)) {
      lastEventID, _ throws(HTTPError) in connections.connect(lastEventID)
    }
  }

  /// On the production idle timeout, on a test clock: a connection open and silent is kept
  /// until exactly the idle timeout after its head (or its last byte), then replaced after the minimum delay
  /// (the network's doing, nothing to back off from), and the transport is told that the
  /// connections it keeps may be as dead.
  @Test func aSilentConnectionIsReplacedAtOnceAndTheTransportToldToReconnect() async throws {
    let connections = Connections()
    let clock = TestClock()
    let resets = Mutex(0)
    var policy = EventStreamClient.ReconnectPolicy()
    policy.idleTimeout = .seconds(12)
    policy.connectTimeout = .seconds(10)
    let reset: @Sendable () -> Void = { resets.withLock { $0 += 1 } }
    let stream = EventStreamClient(
      policy: policy, logger: Logger(category: "EventStream", sink: MemoryLogSink()),
      time: TimeSource(clock), connectionsMayBeDead: reset
    ) { lastEventID, _ throws(HTTPError) in connections.connect(lastEventID) }
    let reader = Task { for await _ in stream.events() {} }
    defer { reader.cancel() }
    try #require(await eventually { stream.state.value == .open })
    try #require(await clock.waitForSleepers(1))
    await clock.advance(by: .seconds(11.9))
    #expect(stream.state.value == .open)
    #expect(resets.withLock { $0 } == 0)
    await clock.advance(by: .seconds(0.2))
    #expect(await eventually { resets.withLock { $0 } == 1 })
    #expect(
      await eventually {
        stream.state.value
          == .lost(reason: "no byte for 12 s: the connection is dead", retryIn: .milliseconds(250))
      })
    try #require(await clock.waitForSleepers(1))
    await clock.advance(by: .milliseconds(250))
    #expect(await eventually { connections.count == 2 })
  }

  @Test func aConnectionSilentPastTheIdleTimeoutIsLostAndResumesAfterItsLastEvent() async throws {
    let connections = Connections()
    let stream = client(connections, idleTimeout: .milliseconds(300))
    let states = stream.state.values
    var iterator = stream.events().makeAsyncIterator()
    try #require(await eventually { connections.count == 1 })
    connections.send("id: 1\ndata: one\n\n", on: 0)
    #expect(await iterator.next()?.data == "one")
    // Then nothing: no byte, no close. The client gives the connection up by itself and opens
    // another, resuming after the last event.
    try #require(await eventually(timeout: .seconds(5)) { connections.count == 2 })
    #expect(connections.lastEventIDs == [nil, "1"])
    connections.send("id: 2\ndata: two\n\n", on: 1)
    #expect(await iterator.next()?.data == "two")
    var seen: [EventStreamState] = []
    for await state in states {
      seen.append(state)
      if seen.filter({ $0 == .open }).count == 2 { break }
    }
    let lost = seen.compactMap { state -> String? in
      if case .lost(let reason, _) = state { return reason }
      return nil
    }
    #expect(lost.count == 1 && lost[0].contains("no byte for 300 ms"), "\(seen)")
  }

  @Test func heartbeatsKeepAnIdleConnectionOpen() async throws {
    let connections = Connections()
    // (A margin of 0.9 s between beats and the timeout: a stall of the process under a full
    // suite on two cores must not pass for silence.)
    let stream = client(connections, idleTimeout: .seconds(1))
    let consumer = Task { for await _ in stream.events() {} }
    defer { consumer.cancel() }
    try #require(await eventually { connections.count == 1 })
    // Three times the idle timeout, with a comment line every tenth of a second.
    for _ in 0..<30 {
      connections.send(":\n", on: 0)
      try await Task.sleep(for: .milliseconds(100))
    }
    #expect(connections.count == 1)
    #expect(stream.state.value == .open)
  }

  @Test func aConnectThatNeverAnswersFailsWithinItsDeadlineAndIsTriedAgain() async throws {
    let attempts = Mutex(0)
    var policy = EventStreamClient.ReconnectPolicy()
    policy.initialDelay = .milliseconds(10)
    policy.minimumDelay = .milliseconds(10)
    policy.connectTimeout = .milliseconds(200)
    // A SYN into a black hole: no answer, no refusal, until the client gives up.
    let stream = EventStreamClient(
      policy: policy, logger: Logger(category: "EventStream", sink: MemoryLogSink())
    ) { _, _ throws(HTTPError) in
      attempts.withLock { $0 += 1 }
      try? await Task.sleep(for: .seconds(3600))
      throw .transport(TransportFailure(.cancelled))
    }
    let states = stream.state.values
    let consumer = Task { for await _ in stream.events() {} }
    defer { consumer.cancel() }
    var reasons: [String] = []
    for await state in states {
      if case .lost(let reason, _) = state { reasons.append(reason) }
      if reasons.count == 2 { break }
    }
    #expect(reasons.allSatisfy { $0.contains("no answer within 200 ms") }, "\(reasons)")
    #expect(attempts.withLock { $0 } >= 2)
  }

  @Test func reconnectNowReplacesAnOpenConnectionWithoutCallingItLost() async throws {
    let connections = Connections()
    let stream = client(connections)  // no idle timeout: only the wake ends it
    var seen: [EventStreamState] = []
    let states = stream.state.values
    var iterator = stream.events().makeAsyncIterator()
    try #require(await eventually { connections.count == 1 })
    connections.send("id: 7\ndata: seven\n\n", on: 0)
    #expect(await iterator.next()?.data == "seven")
    stream.reconnectNow()
    try #require(await eventually { connections.count == 2 })
    #expect(connections.lastEventIDs == [nil, "7"])
    for await state in states {
      seen.append(state)
      if seen.filter({ $0 == .open }).count == 2 { break }
    }
    #expect(
      !seen.contains {
        if case .lost = $0 { return true }
        return false
      }, "\(seen)")
  }

  @Test func theLastEventIDOutlivesTheSequenceUntilForgotten() async throws {
    let connections = Connections()
    let stream = client(connections)
    var first = stream.events().makeAsyncIterator()
    try #require(await eventually { connections.count == 1 })
    connections.send("id: 41\ndata: answer\n\n", on: 0)
    #expect(await first.next()?.data == "answer")
    // The owner starts the stream again (it ended, or the app restarted it): it resumes.
    let second = Task { for await _ in stream.events() {} }
    try #require(await eventually { connections.count == 2 })
    second.cancel()
    #expect(connections.lastEventIDs.last == "41")
    // Signed out: the next user's stream starts fresh.
    stream.forgetLastEventID()
    let third = Task { for await _ in stream.events() {} }
    try #require(await eventually { connections.count == 3 })
    third.cancel()
    #expect(connections.lastEventIDs.last == .some(nil))
    _ = first
  }

  /// A response the client will not read (a portal's page) is ended, so its connection
  /// closes instead of piling up what the server keeps sending: releasing the body ends it,
  /// though the transport still holds its feed.
  @Test func aRefusedResponseIsClosed() async throws {
    let closed = Mutex(false)
    // The transport holds the feed, as a URL session's delegate does: only ending the body
    // from the reader's side closes it.
    let feeds = Mutex<[AsyncThrowingStream<Data, any Error>.Continuation]>([])
    let stream = EventStreamClient(
      policy: EventStreamClient.ReconnectPolicy(),
      logger: Logger(category: "EventStream", sink: MemoryLogSink())
    ) { _, _ throws(HTTPError) in
      let (body, feed) = AsyncThrowingStream<Data, any Error>.makeStream()
      feeds.withLock { $0.append(feed) }
      feed.onTermination = { _ in closed.withLock { $0 = true } }
      feed.yield(Data("<html>Sign in to Wi-Fi</html>".utf8))
      return HTTPStreamingResponse(
        status: 200, headers: ["Content-Type": "text/html"], body: body)
    }
    for await _ in stream.events() {}  // the connection fails: the sequence ends
    #expect(closed.withLock { $0 })
    #expect(feeds.withLock { $0.count } == 1)
  }

  @Test func cancellingTheStreamEndsItQuietly() async throws {
    let connections = Connections()
    let sink = MemoryLogSink()
    let stream = client(connections, idleTimeout: .seconds(30), sink: sink)
    let states = Recorder<EventStreamState>()
    let observation = stream.state.observe { states.append($0) }
    defer { observation.cancel() }
    let consumer = Task { for await _ in stream.events() {} }
    try #require(await eventually { stream.state.value == .open })
    consumer.cancel()
    try #require(await eventually { stream.state.value == .idle })
    #expect(
      !states.values.contains {
        if case .lost = $0 { return true }
        return false
      }, "\(states.values)")
    #expect(!sink.messages.contains { $0.contains("lost") }, "\(sink.messages)")
  }

  /// An event stream endpoint with a two-second idle timeout, on the test's server.
  private struct ShortLivedEvents: HTTPEndpoint {
    var baseURL: URL? { TestAPI.serverURL }
    var path: String { "/events" }
    var method: HTTPMethod { .get }
    var requiresAuthentication: Bool { false }
    var timeout: Duration? { .seconds(2) }
    var idleTimeout: Duration? { .seconds(2) }
  }

  /// Over real HTTP with `URLSessionTransport`: heartbeats keep a stream open past its idle
  /// timeout (neither the transport nor the client takes a heartbeat-only stream for dead), and
  /// a server that goes silent without closing is given up within a few idle timeouts.
  ///
  /// A heartbeat every 100 ms against a 2-s idle timeout: only a stall of the whole process
  /// longer than 1.9 s (the suite runs beside hundreds of tests on two cores) would make the
  /// stream silent for that long. A 250-ms beat against 1 s once lost a stream so in CI; a
  /// failure now says how long the server's longest gap between beats was, and the client's log
  /// (captured) says what it saw.
  @Test(arguments: [true, false])
  func overRealHTTPAHeartbeatKeepsTheStreamAndSilenceEndsIt(beating: Bool) async throws {
    let router = Router()
    let opened = Mutex(0)
    let longestGap = Mutex(Duration.zero)
    router.get("/events") { _ in
      opened.withLock { $0 += 1 }
      return .stream { writer in
        try await writer.writeEvent(id: "1", data: "hello")
        var last = ContinuousClock.now
        for _ in 0..<300 {
          try await Task.sleep(for: .milliseconds(100))
          if beating { try await writer.writeComment() }
          let now = ContinuousClock.now
          longestGap.withLock { $0 = max($0, now - last) }
          last = now
        }
      }
    }
    try await withServer(router) { _ in
      let stream = EventStreamClient(
        endpoint: ShortLivedEvents(),
        requester: HTTPRequester<ShortLivedEvents>(
          baseURL: TestAPI.serverURL, transport: URLSessionTransport()),
        transport: URLSessionTransport(),
        logger: Logger(category: "EventStream"))
      let consumer = Task { for await _ in stream.events() {} }
      defer { consumer.cancel() }
      try #require(await eventually(timeout: .seconds(5)) { stream.state.value == .open })
      if beating {
        // Two and a half idle timeouts.
        try await Task.sleep(for: .seconds(5))
        #expect(
          opened.withLock { $0 } == 1,
          "the server's longest gap between heartbeats: \(longestGap.withLock { $0 })")
        #expect(stream.state.value == .open)
      } else {
        #expect(await eventually(timeout: .seconds(10)) { opened.withLock { $0 } >= 2 })
      }
    }
  }
}
