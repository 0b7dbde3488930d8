import Foundation

/// How a screen says when data kept on the device was stored: "as of 14:02" today, "as of
/// 2026-11-24 14:02" another day, in the user's time zone (a test passes its own). The digits
/// are the same in every locale, so tests and snapshots do not depend on the machine.
public struct AgeText: Sendable {
  /// The time zone the times are in.
  public var timeZone: TimeZone
  /// What "today" is measured from.
  public var now: @Sendable () -> Date

  /// A formatter in `timeZone`, today being `now()`.
  public init(timeZone: TimeZone = .current, now: @escaping @Sendable () -> Date = { Date() }) {
    self.timeZone = timeZone
    self.now = now
  }

  /// "as of 14:02", or "as of 2026-11-24 14:02" when `date` is not today.
  public func asOf(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    func two(_ number: Int?) -> String {
      let value = number ?? 0
      return value < 10 ? "0\(value)" : "\(value)"
    }
    let time = "\(two(parts.hour)):\(two(parts.minute))"
    guard !calendar.isDate(date, inSameDayAs: now()) else { return "as of \(time)" }
    return "as of \(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(time)"
  }
}
