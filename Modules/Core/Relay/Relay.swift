import Synchronization

/// An observable value for services to publish state (the signed-in user, the session, the
/// connection): a current value any thread can read, and changes as an `AsyncSequence`.
///
/// It replaces RxSwift's `BehaviorRelay`. Every subscriber gets its own stream; a subscription
/// ends when its consuming task is cancelled, when its ``ObservationToken`` is released, or
/// when the relay itself is released (its streams finish).
///
/// ```swift
/// let session = Relay<SessionState>(.signedOut)
/// session.send(.signedIn(user))
/// for await state in session.values { ... }   // .signedIn(user) first, then each change
/// ```
///
/// Updates are delivered in the order they were made: `send` holds the relay's lock while it
/// hands the value to every subscriber.
public final class Relay<Value: Sendable>: Sendable {
  private struct Storage {
    var value: Value
    var nextID = 0
    var streams: [Int: AsyncStream<Value>.Continuation] = [:]
    var observers: [Int: @Sendable (Value) -> Void] = [:]
  }

  private let storage: Mutex<Storage>

  /// Creates a relay holding `value`.
  public init(_ value: Value) {
    storage = Mutex(Storage(value: value))
  }

  /// The current value.
  public var value: Value {
    storage.withLock { $0.value }
  }

  /// Replaces the value and delivers it to every subscriber.
  public func send(_ newValue: Value) {
    storage.withLock { storage in
      storage.value = newValue
      for continuation in storage.streams.values { continuation.yield(newValue) }
      for observer in storage.observers.values { observer(newValue) }
    }
  }

  /// Changes the value in place (atomically with respect to other updates) and delivers it.
  public func update(_ change: (inout Value) -> Void) {
    storage.withLock { storage in
      change(&storage.value)
      let newValue = storage.value
      for continuation in storage.streams.values { continuation.yield(newValue) }
      for observer in storage.observers.values { observer(newValue) }
    }
  }

  /// The current value, then every change, until the consuming task is cancelled or the
  /// relay is released. Each access makes a new, independent subscription.
  public var values: AsyncStream<Value> {
    subscribe(includingCurrent: true)
  }

  /// Every change after this access (the current value is not repeated).
  public var changes: AsyncStream<Value> {
    subscribe(includingCurrent: false)
  }

  /// Calls `observer` with each change, synchronously on the thread that made it, until the
  /// returned token is cancelled or released. Keep `observer` short: it runs under the
  /// relay's lock, so it must not touch this relay.
  public func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObservationToken {
    let id = storage.withLock { storage in
      let id = storage.nextID
      storage.nextID += 1
      storage.observers[id] = observer
      return id
    }
    return ObservationToken { [weak self] in
      _ = self?.storage.withLock { $0.observers.removeValue(forKey: id) }
    }
  }

  /// The number of live subscriptions (streams and observers), for tests of lifetimes.
  public var subscriberCount: Int {
    storage.withLock { $0.streams.count + $0.observers.count }
  }

  private func subscribe(includingCurrent: Bool) -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream<Value>.makeStream()
    let id = storage.withLock { storage in
      let id = storage.nextID
      storage.nextID += 1
      storage.streams[id] = continuation
      if includingCurrent { continuation.yield(storage.value) }
      return id
    }
    // Runs when the consumer is cancelled or the stream finishes; never under our lock, since
    // `finish()` is only called after the lock is released (see `deinit`).
    continuation.onTermination = { [weak self] _ in
      _ = self?.storage.withLock { $0.streams.removeValue(forKey: id) }
    }
    return stream
  }

  deinit {
    let continuations = storage.withLock { storage in
      defer { storage.streams.removeAll() }
      return Array(storage.streams.values)
    }
    for continuation in continuations { continuation.finish() }
  }
}
