import TrellisCore

/// A clock whose time moves only when the test says so: a reactor or service that takes a clock
/// (`some Clock<Duration>`) for a debounce, a retry delay or a timeout is tested with one, and its
/// test takes no real time.
///
/// ```swift
/// let clock = TestClock()
/// let tester = ReactorTester(SearchReactor(clock: clock))
/// tester.send(.type("a"))
/// tester.send(.type("ab"))      // the first search is debounced away
/// await clock.advance(by: .milliseconds(300))
/// try await tester.expect { $0.results = ["ab"] }
/// ```
///
/// `sleep(until:)` suspends until ``advance(by:)`` moves `now` to or past the deadline (a
/// deadline already reached returns at once); cancelling the sleeping task ends its sleep with
/// `CancellationError`, as the system clocks do.
public final class TestClock: Clock, Sendable {
  /// A point in a test clock's time: how far it is from the clock's start.
  public struct Instant: InstantProtocol {
    /// The time since the clock started.
    public var offset: Duration

    /// The instant `offset` after the clock's start.
    public init(offset: Duration) { self.offset = offset }

    /// See `InstantProtocol`.
    public func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    /// See `InstantProtocol`.
    public func duration(to other: Instant) -> Duration { other.offset - offset }

    /// See `Comparable`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper {
    var id: Int
    var deadline: Instant
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sleepers: [Sleeper] = []
    var nextID = 0
    /// Sleeps cancelled before they registered their continuation.
    var cancelled: Set<Int> = []
  }

  private let state = Lock(State())

  /// A clock at its start.
  public init() {}

  /// The current instant.
  public var now: Instant { state.withLock { $0.now } }

  /// See `Clock`: any duration is representable.
  public var minimumResolution: Duration { .zero }

  /// How many tasks are sleeping on this clock.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// The earliest instant a sleeping task waits for, if any: how far the clock can advance
  /// before the next task wakes (a test that plays minutes of timers steps from one to the
  /// next).
  public var nextDeadline: Instant? {
    state.withLock { state in state.sleepers.map(\.deadline).min() }
  }

  /// Waits until `count` tasks sleep on this clock (a debounce an action started, which may
  /// begin after `send` returns), for at most `timeout` of real time; returns whether they do.
  /// Advance the clock after this, or the sleep may start after the advance and never end.
  public func waitForSleepers(_ count: Int = 1, timeout: Duration = TestWaits.timeout) async
    -> Bool
  {
    await eventually(timeout: timeout) { sleeperCount == count }
  }

  /// Suspends until the clock reaches `deadline`.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let outcome: Result<Void, any Error>? = state.withLock { state in
          if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
          if deadline <= state.now { return .success(()) }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
          state.cancelled.insert(id)
          return nil
        }
        return state.sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
    // A cancellation that came after the sleep ended leaves its mark; forget it.
    _ = state.withLock { $0.cancelled.remove(id) }
  }

  /// Moves the clock forward by `duration`, stopping at each sleeper's deadline on the way:
  /// the clock reads that deadline while the sleeper is woken, and the test's task yields so
  /// the woken task can go on (a loop that sleeps 100 ms at a time, advanced by one second,
  /// wakes ten times). Yielding lets ready tasks run; it does not wait for them to finish.
  public func advance(by duration: Duration) async {
    let target = state.withLock { $0.now.advanced(by: max(duration, .zero)) }
    while true {
      let due = state.withLock { state -> Sleeper? in
        guard
          let index = state.sleepers.indices.filter({ state.sleepers[$0].deadline <= target })
            .min(by: { state.sleepers[$0].deadline < state.sleepers[$1].deadline })
        else {
          state.now = max(state.now, target)
          return nil
        }
        let sleeper = state.sleepers.remove(at: index)
        state.now = max(state.now, sleeper.deadline)
        return sleeper
      }
      guard let due else { break }
      due.continuation.resume()
      for _ in 0..<8 { await Task.yield() }
    }
  }
}
