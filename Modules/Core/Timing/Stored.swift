import Foundation

/// A value as it was kept on the device, and when: what a screen shows at once while it asks
/// the server for the current one, marked with its age ("as of 14:02").
public struct Stored<Value: Sendable>: Sendable {
  /// The value as it was stored.
  public var value: Value
  /// When it was stored.
  public var storedAt: Date

  /// A stored value.
  public init(_ value: Value, storedAt: Date) {
    self.value = value
    self.storedAt = storedAt
  }

  /// The same age, another value (the value mapped to another layer's type).
  public func map<Other: Sendable>(_ transform: (Value) throws -> Other) rethrows -> Stored<Other> {
    Stored<Other>(try transform(value), storedAt: storedAt)
  }
}

extension Stored: Equatable where Value: Equatable {}
