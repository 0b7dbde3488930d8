/// The subscriber list and delivery loop shared by ``Relay`` and ``Broadcast``.
///
/// Delivery never runs under the lock. Subscribers are arbitrary code: an observer may cancel
/// a task that iterates one of this fan-out's streams (whose `onTermination` removes it
/// here), release the last reference to its owner (whose tokens remove observers here) or
/// publish again. Each of those takes the lock, so calling out while holding it would
/// deadlock; delivering outside it is what lets a subscriber do any of them (RelayTests:
/// `anObserverMayUpdateTheRelayItObserves...`, `...MayReleaseItsOwnToken`,
/// `...MayCancelATaskThatIteratesTheSameRelay`).
///
/// Ordering comes from a single deliverer instead: `publish` appends the value to a queue
/// under the lock, and the thread that finds nobody delivering drains the queue, outside the
/// lock, until it is empty. A value published during a delivery (from a subscriber, or from
/// another thread) is therefore delivered after the one in progress, by the thread already
/// delivering, and every subscriber sees values in the order they were published.
///
/// Subscribers receive each value in the order they subscribed. Each queued value remembers
/// which subscribers existed when it was published, so a stream
/// subscribed later never receives a value older than the one it started with; a subscriber
/// removed before delivery is skipped.
final class Fanout<Value: Sendable>: Sendable {
  private struct Pending {
    var value: Value
    var recipients: [Int]
  }

  private enum Subscriber {
    case stream(AsyncStream<Value>.Continuation)
    case observer(@Sendable (Value) -> Void, AtomicFlag)
  }

  private struct State {
    var current: Value?
    var nextID = 0
    var subscribers: [Int: Subscriber] = [:]
    var queue: [Pending] = []
    var queueHead = 0
    var isDelivering = false
    var isClosed = false
  }

  private let state: Lock<State>

  /// Creates a fan-out; `current` is the value a ``Relay`` holds (nil for a ``Broadcast``).
  init(current: Value?) {
    state = Lock(State(current: current))
  }

  /// The current value (a ``Relay``'s).
  var current: Value? {
    state.withLock { $0.current }
  }

  /// The number of live subscriptions.
  var count: Int {
    state.withLock { $0.subscribers.count }
  }

  /// Queues `change`'s result for every current subscriber (`nil`: nothing changed, nothing to
  /// deliver) and delivers the queue unless another thread is already delivering it. `change`
  /// runs under the lock, so that reading and replacing the current value is atomic with
  /// respect to other publishers.
  func publish(_ change: (inout Value?) -> Value?) {
    let shouldDeliver = state.withLock { state -> Bool in
      guard let value = change(&state.current), !state.isClosed, !state.subscribers.isEmpty
      else { return false }
      // In the order they subscribed (ids only grow): a dictionary's own order is random per
      // process, and a subscriber made first (the user's data scope, which points the stores at
      // the user) must see a change before one made after it (a service reading those stores).
      state.queue.append(
        Pending(value: value, recipients: state.subscribers.keys.sorted()))
      guard !state.isDelivering else { return false }
      state.isDelivering = true
      return true
    }
    if shouldDeliver { deliverQueue() }
  }

  private func deliverQueue() {
    while true {
      let batch = state.withLock { state -> [(Value, [Subscriber])]? in
        guard state.queueHead < state.queue.count else {
          state.queue.removeAll(keepingCapacity: state.queue.count <= 16)
          state.queueHead = 0
          state.isDelivering = false
          return nil
        }
        let pending = state.queue[state.queueHead...]
        state.queueHead = state.queue.count
        return pending.map { item in
          (item.value, item.recipients.compactMap { state.subscribers[$0] })
        }
      }
      guard let batch else { return }
      for (value, recipients) in batch {
        for recipient in recipients {
          switch recipient {
          case .stream(let continuation): continuation.yield(value)
          case .observer(let observer, let flag): if flag.value { observer(value) }
          }
        }
      }
    }
  }

  /// A new stream of every value published from now on, led by the current value when
  /// `includingCurrent` is set. The stream ends when its consumer is cancelled or the
  /// fan-out is closed.
  func stream(includingCurrent: Bool) -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream<Value>.makeStream()
    let id = state.withLock { state -> Int? in
      guard !state.isClosed else { return nil }
      let id = state.nextID
      state.nextID += 1
      state.subscribers[id] = .stream(continuation)
      // Yielded under the lock so that no later value can be queued, and delivered, ahead
      // of it. `yield` only buffers or resumes the consumer; it never calls back into us.
      if includingCurrent, let current = state.current { continuation.yield(current) }
      return id
    }
    guard let id else {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      self?.remove(id)
    }
    return stream
  }

  /// Registers `observer` and returns a token that removes it. Once the token is cancelled
  /// no further call starts; one already running on another thread may still finish.
  func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObservationToken {
    let flag = AtomicFlag(true)
    let id = state.withLock { state -> Int in
      let id = state.nextID
      state.nextID += 1
      if !state.isClosed { state.subscribers[id] = .observer(observer, flag) }
      return id
    }
    return ObservationToken { [weak self] in
      flag.set(false)
      self?.remove(id)
    }
  }

  private func remove(_ id: Int) {
    // The removed entry is released after the lock: releasing a continuation or a closure
    // can run arbitrary deinitialisers.
    let removed = state.withLock { $0.subscribers.removeValue(forKey: id) }
    _ = removed
  }

  /// Finishes every stream and drops every observer; later subscriptions end at once.
  func close() {
    let subscribers = state.withLock { state in
      state.isClosed = true
      defer { state.subscribers.removeAll() }
      return Array(state.subscribers.values)
    }
    for case .stream(let continuation) in subscribers { continuation.finish() }
  }
}
