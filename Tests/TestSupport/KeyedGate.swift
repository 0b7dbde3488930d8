import Synchronization

/// Holds callers by key until the test answers them, so a test decides the order in which
/// async work finishes (the second project's context before the first's) without sleeping.
/// A waiting caller whose task is cancelled gets `CancellationError` at once.
public final class KeyedGate<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  private struct Waiter {
    var id: Int
    var continuation: CheckedContinuation<Value, any Error>
  }

  private struct State {
    var waiters: [Key: [Waiter]] = [:]
    var arrivals: [Key] = []
    var arrivalWaiters: [(key: Key, count: Int, continuation: CheckedContinuation<Void, Never>)] =
      []
    var nextID = 0
    var cancelledBeforeWaiting: Set<Int> = []
  }

  private let state = Mutex(State())

  /// Creates a gate with no one waiting.
  public init() {}

  /// The keys callers waited on, in order of arrival.
  public var arrivals: [Key] { state.withLock { $0.arrivals } }

  /// Waits until ``answer(_:with:)`` or ``fail(_:with:)`` for `key`, or cancellation.
  public func wait(_ key: Key) async throws -> Value {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
          if state.cancelledBeforeWaiting.remove(id) != nil { return nil }
          state.waiters[key, default: []].append(Waiter(id: id, continuation: continuation))
          state.arrivals.append(key)
          let arrivals = state.arrivals
          func count(_ key: Key) -> Int { arrivals.filter { $0 == key }.count }
          let ready = state.arrivalWaiters.filter { count($0.key) >= $0.count }
          state.arrivalWaiters.removeAll { count($0.key) >= $0.count }
          return ready.map(\.continuation)
        }
        guard let ready else {
          continuation.resume(throwing: CancellationError())
          return
        }
        for waiter in ready { waiter.resume() }
      }
    } onCancel: {
      let cancelled = state.withLock { state -> CheckedContinuation<Value, any Error>? in
        for (key, list) in state.waiters {
          if let index = list.firstIndex(where: { $0.id == id }) {
            return state.waiters[key]?.remove(at: index).continuation
          }
        }
        state.cancelledBeforeWaiting.insert(id)
        return nil
      }
      cancelled?.resume(throwing: CancellationError())
    }
  }

  /// Returns once `count` callers have waited on `key` in total.
  public func waitForArrival(_ key: Key, count: Int = 1) async {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> Bool in
        if state.arrivals.filter({ $0 == key }).count >= count { return true }
        state.arrivalWaiters.append((key, count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// Answers the oldest caller waiting on `key`; returns whether there was one.
  @discardableResult
  public func answer(_ key: Key, with value: Value) -> Bool {
    take(key)?.resume(returning: value) != nil
  }

  /// Fails the oldest caller waiting on `key`; returns whether there was one.
  @discardableResult
  public func fail(_ key: Key, with error: any Error) -> Bool {
    take(key)?.resume(throwing: error) != nil
  }

  /// Whether a caller is waiting on `key` now.
  public func isWaiting(_ key: Key) -> Bool {
    state.withLock { !($0.waiters[key] ?? []).isEmpty }
  }

  private func take(_ key: Key) -> CheckedContinuation<Value, any Error>? {
    state.withLock { state in
      guard var list = state.waiters[key], !list.isEmpty else { return nil }
      let first = list.removeFirst()
      state.waiters[key] = list
      return first.continuation
    }
  }
}
