/// Exponential backoff with jitter: how long to wait before trying again after failures in a
/// row. The one rule the retry plugin, the event stream and the connection service share.
///
/// The delay after `failures` failures is `base * 2^(failures - 1)`, capped at ``maximum``,
/// then scaled by a random factor in ``jitter`` so that many clients do not retry in lockstep,
/// and kept at or above ``minimum``.
public struct Backoff: Sendable, Equatable {
  /// The delay after the first failure, before jitter.
  public var base: Duration
  /// The longest delay, before jitter.
  public var maximum: Duration
  /// The shortest delay, whatever the base or jitter say (a server's `retry: 0` must not
  /// become a tight loop).
  public var minimum: Duration
  /// The random factor applied to each delay; `1...1` for none.
  public var jitter: ClosedRange<Double>

  /// Creates a backoff.
  public init(
    base: Duration, maximum: Duration, minimum: Duration = .zero,
    jitter: ClosedRange<Double> = 0.5...1
  ) {
    self.base = base
    self.maximum = maximum
    self.minimum = minimum
    self.jitter = jitter
  }

  /// The delay after `failures` failures in a row (1 for the first), with `random` (in
  /// `0...1`) choosing where in ``jitter`` it falls.
  public func delay(afterFailures failures: Int, random: Double = .random(in: 0...1)) -> Duration {
    let start = max(minimum, min(base, maximum))
    // At most the maximum before doubling, and doubled at most 2^16 times: no overflow for
    // any sane maximum (a day doubled 2^16 times still fits in `Duration`).
    let exponential = min(start * (1 << min(max(failures - 1, 0), 16)), maximum)
    let factor =
      jitter.lowerBound + (jitter.upperBound - jitter.lowerBound) * min(max(random, 0), 1)
    return max(minimum, exponential * factor)
  }
}
