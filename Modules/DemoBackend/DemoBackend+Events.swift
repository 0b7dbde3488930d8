import Foundation
import Synchronization
import TrellisLoopbackServer

/// One server-sent event and who receives it.
struct DemoEvent: Sendable {
  var id: Int
  var name: String
  var data: String
  var recipients: Set<Int>
}

/// The recent events, for clients that reconnect with `Last-Event-ID`.
struct DemoEventLog: Sendable {
  var nextID = 1
  var recent: [DemoEvent] = []
  static let capacity = 200
}

extension DemoBackend {
  func registerEventRoutes() {
    router.get("/events") { [self] request in
      // Without `Last-Event-ID` a client starts fresh: only a reconnecting client gets a replay.
      let lastID = request.headers["Last-Event-ID"].flatMap { Int($0) }
      let heartbeat = currentConfiguration.eventHeartbeatInterval
      return signedIn(request) { userID throws(DemoFailure) in
        .stream { [self] writer in
          // Subscribe first, then replay what the client missed: nothing falls in between.
          let live = events.events
          var sent = lastID ?? eventLog.withLock { $0.nextID - 1 }
          let missed =
            lastID == nil
            ? []
            : eventLog.withLock { $0.recent }.filter {
              $0.id > sent && $0.recipients.contains(userID)
            }
          for event in missed {
            try await write(event, to: writer)
            sent = event.id
            if event.name == "session.revoked" { return }
          }
          for await item in Self.withHeartbeats(live, every: heartbeat) {
            guard case .event(let event) = item else {
              // A comment line: the client's proof that the connection is alive.
              try await writer.writeComment()
              continue
            }
            guard event.id > sent, event.recipients.contains(userID) else { continue }
            try await write(event, to: writer)
            sent = event.id
            if event.name == "session.revoked" { return }
          }
        }
      }
    }
  }

  /// What an open stream sends: an event, or a heartbeat.
  enum StreamItem: Sendable {
    case event(DemoEvent)
    case heartbeat
  }

  /// `events`, with a heartbeat after every `interval` of the stream (`.zero` or less: none),
  /// until the consuming task is cancelled.
  static func withHeartbeats(_ events: AsyncStream<DemoEvent>, every interval: Duration)
    -> AsyncStream<StreamItem>
  {
    let (items, continuation) = AsyncStream<StreamItem>.makeStream()
    let forwarding = Task {
      for await event in events { continuation.yield(.event(event)) }
      continuation.finish()
    }
    let beating = Task {
      guard interval > .zero else { return }
      while (try? await Task.sleep(for: interval)) != nil {
        continuation.yield(.heartbeat)
      }
    }
    continuation.onTermination = { _ in
      forwarding.cancel()
      beating.cancel()
    }
    return items
  }

  private func write(_ event: DemoEvent, to writer: ChunkWriter) async throws {
    try await writer.writeEvent(id: "\(event.id)", event: event.name, data: event.data)
  }

  func publish(taskCreated task: Wire.Task) {
    publish(task: task, as: "task.created")
  }

  /// Tells the members of the task's project that it was created, updated or deleted (`name`).
  func publish(task: Wire.Task, as name: String) {
    let members = state.withLock { Set(($0.roles[task.projectID] ?? [:]).keys) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    let data = (try? encoder.encode(task)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    publish(name: name, data: data, to: members)
  }

  func publish(name: String, json: [String: String], to recipients: Set<Int>) {
    let data = (try? JSONEncoder().encode(json)).map { String(decoding: $0, as: UTF8.self) }
    publish(name: name, data: data ?? "{}", to: recipients)
  }

  private func publish(name: String, data: String, to recipients: Set<Int>) {
    let event = eventLog.withLock { log in
      let event = DemoEvent(id: log.nextID, name: name, data: data, recipients: recipients)
      log.nextID += 1
      log.recent.append(event)
      if log.recent.count > DemoEventLog.capacity { log.recent.removeFirst() }
      return event
    }
    events.send(event)
  }
}
