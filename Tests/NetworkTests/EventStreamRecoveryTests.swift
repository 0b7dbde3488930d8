import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting

@testable import TrellisNetwork

/// How the event stream behaves when what answers is not a healthy event stream.
@Suite("EventStreamClient: backoff and honest errors", .capturesLogs, .timeLimit(.minutes(1)))
struct EventStreamRecoveryTests {
  /// A client whose waits are recorded instead of slept; it stops after `waits` waits.
  private func recordingClient(
    waits: Int, delays: Recorder<Duration>, sink: MemoryLogSink = MemoryLogSink(),
    connect: @escaping EventStreamClient.Connect
  ) -> EventStreamClient {
    var policy = EventStreamClient.ReconnectPolicy()
    policy.initialDelay = .seconds(1)
    return EventStreamClient(
      policy: policy, logger: Logger(category: "EventStream", sink: sink),
      sleep: { delay in
        delays.append(delay)
        if delays.values.count >= waits { throw CancellationError() }
      },
      connect: connect)
  }

  private static func response(
    status: Int = 200, contentType: String, body: String = ""
  ) -> HTTPStreamingResponse {
    HTTPStreamingResponse(
      status: status, headers: HTTPHeaders(["Content-Type": contentType]),
      body: AsyncThrowingStream { continuation in
        if !body.isEmpty { continuation.yield(Data(body.utf8)) }
        continuation.finish()
      })
  }

  @Test func aServerAnsweringHTMLFailsTheConnectionInsteadOfLooping() async throws {
    // A captive portal or a proxy: 200 text/html, then the connection closes. The WHATWG
    // standard fails the connection: no reconnection (the connection service starts the
    // stream again later, with a growing backoff).
    let delays = Recorder<Duration>()
    let connections = Mutex(0)
    let sink = MemoryLogSink()
    let client = recordingClient(waits: 6, delays: delays, sink: sink) { _, _ throws(HTTPError) in
      connections.withLock { $0 += 1 }
      return Self.response(
        contentType: "text/html; charset=utf-8", body: "<html>Sign in to Wi-Fi</html>")
    }
    for await _ in client.events() {}
    #expect(connections.withLock { $0 } == 1)
    #expect(delays.values.isEmpty)
    #expect(client.state.value == .idle)
    #expect(sink.messages.contains { $0.contains("text/html") && $0.contains("stopped") })
  }

  @Test func aStreamThatClosesWithoutAnEventBacksOffMoreEachTime() async throws {
    let delays = Recorder<Duration>()
    let client = recordingClient(waits: 6, delays: delays) { _, _ throws(HTTPError) in
      Self.response(contentType: "text/event-stream")
    }
    for await _ in client.events() {}
    let waits = delays.values
    #expect(waits.count == 6)
    #expect(waits[5] > waits[0] * 8, "\(waits)")
  }

  @Test func theBackoffIsResetOnlyAfterAnEventArrives() async throws {
    let delays = Recorder<Duration>()
    let connections = Mutex(0)
    let client = recordingClient(waits: 4, delays: delays) { _, _ throws(HTTPError) in
      let number = connections.withLock { count -> Int in
        count += 1
        return count
      }
      // The third connection delivers an event, then closes.
      return Self.response(
        contentType: "text/event-stream", body: number == 3 ? "data: hello\n\n" : "")
    }
    var received: [String] = []
    for await event in client.events() { received.append(event.data) }
    #expect(received == ["hello"])
    let waits = delays.values
    #expect(waits.count == 4)
    #expect(waits[1] > waits[0] * 1.5, "\(waits)")  // grew: the first two connections were empty
    #expect(waits[2] < waits[1], "\(waits)")  // reset by the event of the third
    #expect(waits[3] > waits[2] * 1.5, "\(waits)")  // and growing again from there
  }

  @Test func aFailedStatusNamesTheStreamsRequest() async throws {
    let reasons = Recorder<String>()
    let client = recordingClient(waits: 1, delays: Recorder()) { _, _ throws(HTTPError) in
      HTTPStreamingResponse(
        status: 502, headers: HTTPHeaders(),
        body: AsyncThrowingStream { $0.finish() },
        request: HTTPRequest(method: .get, url: URL(string: "http://demo/events")!))
    }
    let token = client.state.observe { state in
      if case .lost(let reason, _) = state { reasons.append(reason) }
    }
    defer { token.cancel() }
    for await _ in client.events() {}
    #expect(reasons.values.first?.contains("GET /events") == true, "\(reasons.values)")
  }
}
