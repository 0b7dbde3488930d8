extension Duration {
  /// The duration as people write it, for logs and messages: `250 ms`, `1.5 s`, `2 min 5 s`,
  /// `3 h 20 min`. Sub-second values are rounded to the millisecond and seconds to a tenth;
  /// never sixteen decimals.
  public var readable: String {
    let (seconds, attoseconds) = components
    guard seconds >= 0, attoseconds >= 0 else {
      // The most negative duration has no positive counterpart to negate into.
      guard seconds > Int64.min else { return "-∞" }
      return "-" + (.zero - self).readable
    }
    let milliseconds = Int64(attoseconds / 1_000_000_000_000_000)
    if seconds == 0 { return "\(milliseconds) ms" }
    if seconds < 60 {
      let tenths = (Int64(seconds) * 1000 + milliseconds + 50) / 100
      return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
    }
    let totalSeconds = Int64(seconds) + (milliseconds >= 500 ? 1 : 0)
    if totalSeconds < 3600 {
      let rest = totalSeconds % 60
      return rest == 0 ? "\(totalSeconds / 60) min" : "\(totalSeconds / 60) min \(rest) s"
    }
    let minutes = (totalSeconds % 3600) / 60
    return minutes == 0 ? "\(totalSeconds / 3600) h" : "\(totalSeconds / 3600) h \(minutes) min"
  }
}
