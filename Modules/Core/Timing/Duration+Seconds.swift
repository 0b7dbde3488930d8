extension Duration {
  /// The duration in seconds, as `TimeInterval`-style APIs (`Date`, `URLRequest`, timers)
  /// take it: `.milliseconds(1500)` is `1.5`.
  public var inSeconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  /// The duration in whole milliseconds, rounded toward zero.
  public var inMilliseconds: Int64 {
    let (seconds, attoseconds) = components
    let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    guard !overflow else { return seconds < 0 ? .min : .max }
    let (sum, overflowed) = product.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
    return overflowed ? (seconds < 0 ? .min : .max) : sum
  }
}
