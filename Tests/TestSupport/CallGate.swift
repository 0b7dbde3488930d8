import Synchronization

/// Holds calls until the test releases them, and counts how many are in flight at once:
/// proof of concurrency that does not depend on timing.
public final class CallGate: Sendable {
  private struct State {
    var inFlight = 0
    var maximumInFlight = 0
    var arrivals: [String] = []
    var isOpen: Bool
    var waiters: [CheckedContinuation<Void, Never>] = []
    var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let state: Mutex<State>

  /// Creates a gate; an open gate lets calls through at once (still counting them).
  public init(open: Bool = true) {
    state = Mutex(State(isOpen: open))
  }

  /// The most calls that were in flight at the same time.
  public var maximumInFlight: Int { state.withLock { $0.maximumInFlight } }
  /// The calls that arrived so far, by name, in order.
  public var arrivals: [String] { state.withLock { $0.arrivals } }

  /// Called by a fake at the start of a call: waits while the gate is closed.
  public func enter(_ name: String) async {
    let mustWait = state.withLock { state -> Bool in
      state.inFlight += 1
      state.maximumInFlight = max(state.maximumInFlight, state.inFlight)
      state.arrivals.append(name)
      let ready = state.arrivalWaiters.filter { state.arrivals.count >= $0.count }
      state.arrivalWaiters.removeAll { state.arrivals.count >= $0.count }
      for waiter in ready { waiter.continuation.resume() }
      return !state.isOpen
    }
    if mustWait {
      await withCheckedContinuation { continuation in
        let resumeNow = state.withLock { state -> Bool in
          if state.isOpen { return true }
          state.waiters.append(continuation)
          return false
        }
        if resumeNow { continuation.resume() }
      }
    }
  }

  /// Called by a fake at the end of a call.
  public func leave() {
    state.withLock { $0.inFlight -= 1 }
  }

  /// Returns once `count` calls have arrived in total.
  public func waitForArrivals(_ count: Int) async {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> Bool in
        if state.arrivals.count >= count { return true }
        state.arrivalWaiters.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// Holds every future call until ``open()``.
  public func close() {
    state.withLock { $0.isOpen = false }
  }

  /// Lets every waiting and future call through.
  public func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters.removeAll() }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
