import Synchronization

/// Events for many subscribers, without a current value: what a service uses to publish
/// things that happen (a task created elsewhere, a session revoked), where ``Relay`` publishes
/// state.
///
/// Each ``events`` access is an independent subscription that receives every event sent after
/// it was made, in order, until its consuming task is cancelled or the broadcast is released.
public final class Broadcast<Element: Sendable>: Sendable {
  private struct Storage {
    var nextID = 0
    var streams: [Int: AsyncStream<Element>.Continuation] = [:]
  }

  private let storage = Mutex(Storage())

  /// Creates a broadcast with no subscribers.
  public init() {}

  /// Delivers `element` to every current subscriber.
  public func send(_ element: Element) {
    storage.withLock { storage in
      for continuation in storage.streams.values { continuation.yield(element) }
    }
  }

  /// Every event sent from now on.
  public var events: AsyncStream<Element> {
    let (stream, continuation) = AsyncStream<Element>.makeStream()
    let id = storage.withLock { storage in
      let id = storage.nextID
      storage.nextID += 1
      storage.streams[id] = continuation
      return id
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.storage.withLock { $0.streams.removeValue(forKey: id) }
    }
    return stream
  }

  /// The number of live subscriptions.
  public var subscriberCount: Int {
    storage.withLock { $0.streams.count }
  }

  deinit {
    let continuations = storage.withLock { Array($0.streams.values) }
    for continuation in continuations { continuation.finish() }
  }
}
