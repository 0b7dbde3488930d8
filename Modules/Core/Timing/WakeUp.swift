/// Ends waits early: a waiter sleeps through ``wait(for:sleep:)`` and ``wake()`` ends every
/// wait under way at once. The event stream waits out its reconnect backoff here, and the
/// connection service wakes it when the network is back.
public final class WakeUp: Sendable {
  private struct State {
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextID = 0
  }

  private let state = Lock(State())

  /// Creates a wake-up with no waiters.
  public init() {}

  /// Ends every wait under way. A wait that starts later is not affected.
  public func wake() {
    let waiters = state.withLock { state in
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Waits for `delay` with `sleep`, or until ``wake()``, whichever comes first. Returns
  /// whether it was woken.
  ///
  /// - Throws: `CancellationError` (or what `sleep` throws) when the calling task is
  ///   cancelled.
  @discardableResult
  public func wait(
    for delay: Duration,
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
  ) async throws -> Bool {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    let woken = try await withThrowingTaskGroup(of: Bool.self) { group in
      group.addTask {
        try await sleep(delay)
        return false
      }
      group.addTask {
        await withTaskCancellationHandler {
          await withCheckedContinuation { continuation in
            let cancelled = self.state.withLock { state -> Bool in
              if Task.isCancelled { return true }
              state.waiters[id] = continuation
              return false
            }
            if cancelled { continuation.resume() }
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
