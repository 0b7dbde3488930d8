/// Whether `condition` holds within `timeout` of real time: checked at once, then after each of
/// up to a hundred yields (the usual case, with no sleep), then every millisecond until the
/// deadline.
///
/// For what a test cannot await directly, such as a subscription another task makes:
/// `try #require(await eventually { relay.subscriberCount > 0 })` stops the test at once if it
/// never happens, where a bare loop would hang it. `condition` runs in the caller's isolation.
public func eventually(
  timeout: Duration = .seconds(2), isolation: isolated (any Actor)? = #isolation,
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
