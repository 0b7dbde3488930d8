/// The defaults of this module's waits.
public enum TestWaits {
  /// How long the waits of this module (``ReactorTester``'s `expect` and `finish()`,
  /// ``eventually(timeout:isolation:_:)``, ``TestClock/waitForSleepers(_:timeout:)``) wait by
  /// default for what has not happened yet: ten seconds.
  ///
  /// A wait for what does happen ends as soon as it is there, so a passing test waits for none
  /// of it; it bounds how long a failing one takes to say so. It is that long because a parallel
  /// run on a loaded two-core machine can hold every thread of the pool for seconds (tests that
  /// block a thread on a process or a socket), and a test that was only waiting its turn must
  /// not fail then: two seconds did, now and then, in CI. A wait that expects nothing to happen
  /// (`#expect(await eventually { ... } == false)`) waits all of it: give it a short timeout of
  /// its own.
  public static let timeout: Duration = .seconds(10)
}

/// Whether `condition` holds within `timeout` of real time: checked at once, then after each of
/// up to a hundred yields (the usual case, with no sleep), then every millisecond until the
/// deadline.
///
/// For what a test cannot await directly, such as a subscription another task makes:
/// `try #require(await eventually { relay.subscriberCount > 0 })` stops the test at once if it
/// never happens, where a bare loop would hang it. `condition` runs in the caller's isolation.
public func eventually(
  timeout: Duration = TestWaits.timeout, isolation: isolated (any Actor)? = #isolation,
  _ condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now.advanced(by: timeout)
  for _ in 0..<100 where !condition() { await Task.yield() }
  while !condition() {
    guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return true
}
