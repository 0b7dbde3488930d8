/// A clock as a type with several timers needs it: the time elapsed since the source was made,
/// and a sleep, both from one `Clock` (the continuous clock in the app; a test clock in tests,
/// so that minutes of a client's timers play in no real time). A type stores a `TimeSource`
/// instead of being generic over its clock.
///
/// ```swift
/// let time = TimeSource(TestClock())     // or .continuous
/// let started = time.elapsed()
/// try await time.sleep(.seconds(10))
/// time.elapsed() - started               // 10 seconds, on the test clock once it advanced
/// ```
public struct TimeSource: Sendable {
  /// The time since the source was made, on its clock.
  public let elapsed: @Sendable () -> Duration
  /// Sleeps for a duration on the source's clock; throws `CancellationError` when the calling
  /// task is cancelled.
  public let sleep: @Sendable (Duration) async throws -> Void

  /// A source reading `clock`.
  public init<C: Clock>(_ clock: C) where C.Duration == Duration {
    let start = clock.now
    elapsed = { start.duration(to: clock.now) }
    sleep = { duration in try await clock.sleep(for: duration) }
  }

  /// The system's continuous clock (it keeps counting while the machine sleeps).
  public static var continuous: TimeSource { TimeSource(ContinuousClock()) }
}
