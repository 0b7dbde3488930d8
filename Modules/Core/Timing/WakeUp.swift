/// Ends waits early: a waiter sleeps through ``wait(for:sleep:ifNotWokenSince:)`` and
/// ``wake()`` ends every wait under way at once. The event stream waits out its reconnect
/// backoff (and watches its open connection) here, and the connection service wakes it when the
/// network may have changed.
///
/// Each ``wake()`` is counted (``wakeCount``): a waiter that reads the count before it starts
/// some work and passes it to its next wait returns at once if a wake came in between, so a wake
/// is never lost in the gap before a wait begins.
public final class WakeUp: Sendable {
  private struct State {
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextID = 0
    var wakes = 0
  }

  private let state = Lock(State())

  /// Creates a wake-up with no waiters.
  public init() {}

  /// How many times ``wake()`` was called.
  public var wakeCount: Int { state.withLock { $0.wakes } }

  /// Ends every wait under way, and every later wait given an older ``wakeCount``.
  public func wake() {
    let waiters = state.withLock { state in
      state.wakes += 1
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Waits for `delay` with `sleep`, or until ``wake()``, whichever comes first. Returns
  /// whether it was woken.
  ///
  /// - Parameter count: A ``wakeCount`` read earlier: if ``wake()`` was called since, the wait
  ///   returns `true` at once. `nil` waits for a wake that comes after the wait begins.
  /// - Throws: `CancellationError` (or what `sleep` throws) when the calling task is
  ///   cancelled.
  @discardableResult
  public func wait(
    for delay: Duration,
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
    ifNotWokenSince count: Int? = nil
  ) async throws -> Bool {
    let id = state.withLock { state -> Int? in
      if let count, state.wakes != count { return nil }
      defer { state.nextID += 1 }
      return state.nextID
    }
    guard let id else { return true }
    let woken = try await withThrowingTaskGroup(of: Bool.self) { group in
      group.addTask {
        try await sleep(delay)
        return false
      }
      group.addTask {
        await withTaskCancellationHandler {
          await withCheckedContinuation { continuation in
            let resumeNow = self.state.withLock { state -> Bool in
              if Task.isCancelled { return true }
              // A wake between the check above and now ends this wait too.
              if let count, state.wakes != count { return true }
              state.waiters[id] = continuation
              return false
            }
            if resumeNow { continuation.resume() }
          }
        } onCancel: {
          self.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
        return !Task.isCancelled
      }
      defer { group.cancelAll() }
      return try await group.next() ?? false
    }
    try Task.checkCancellation()
    return woken
  }
}
