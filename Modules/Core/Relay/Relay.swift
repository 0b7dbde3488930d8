/// An observable value for services to publish state (the signed-in user, the session, the
/// connection): a current value any thread can read, and changes as an `AsyncSequence`.
///
/// It replaces RxSwift's `BehaviorRelay`. Every subscriber gets its own stream; a subscription
/// ends when its consuming task is cancelled, when its ``ObservationToken`` is released, or
/// when the relay itself is released (its streams finish).
///
/// ```swift
/// let session = Relay<SessionState>(.signedOut)
/// session.send(.signedIn(user))
/// for await state in session.values { ... }   // .signedIn(user) first, then each change
/// ```
///
/// Every subscriber sees updates in the order they were made. Subscribers are called without
/// any lock held, so an observer may read or update this relay, cancel a task that iterates
/// it, or release its own token. An update made while another is being delivered (from an
/// observer, or from another thread) returns at once and is delivered right after the one in
/// progress, by the thread delivering it; ``value`` reflects it immediately.
public final class Relay<Value: Sendable>: Sendable {
  private let fanout: Fanout<Value>

  /// Creates a relay holding `value`.
  public init(_ value: Value) {
    fanout = Fanout(current: value)
  }

  /// The current value.
  public var value: Value {
    // The fan-out of a relay always holds a value: `init` sets one and updates replace it.
    fanout.current!
  }

  /// Replaces the value and delivers it to every subscriber.
  public func send(_ newValue: Value) {
    fanout.publish { current in
      current = newValue
      return newValue
    }
  }

  /// Replaces the value and delivers it only if `condition` holds, checked atomically with
  /// respect to other updates: a publisher that checks its own state there (is the decision
  /// this value comes from still the latest?) never delivers after a newer update it would
  /// contradict. `condition` runs under the relay's lock: it must not touch the relay.
  ///
  /// - Returns: Whether the value was replaced.
  @discardableResult
  public func send(_ newValue: Value, if condition: () -> Bool) -> Bool {
    var sent = false
    fanout.publish { current in
      guard condition() else { return nil }
      current = newValue
      sent = true
      return newValue
    }
    return sent
  }

  /// Changes the value in place (atomically with respect to other updates) and delivers it.
  /// `change` runs under the relay's lock: it must not touch the relay.
  public func update(_ change: (inout Value) -> Void) {
    fanout.publish { current in
      // See `value`: never nil for a relay.
      var value = current!
      change(&value)
      current = value
      return value
    }
  }

  /// The current value, then every change, until the consuming task is cancelled or the
  /// relay is released. Each access makes a new, independent subscription.
  public var values: AsyncStream<Value> {
    fanout.stream(includingCurrent: true)
  }

  /// Every change after this access (the current value is not repeated).
  public var changes: AsyncStream<Value> {
    fanout.stream(includingCurrent: false)
  }

  /// Calls `observer` with each change until the returned token is cancelled or released.
  ///
  /// The call happens on the thread that made the change, or, when that change was made
  /// during another delivery, on the thread delivering. Once the token is cancelled no
  /// further call starts.
  public func observe(_ observer: @escaping @Sendable (Value) -> Void) -> ObservationToken {
    fanout.observe(observer)
  }

  /// The number of live subscriptions (streams and observers), for tests of lifetimes.
  public var subscriberCount: Int {
    fanout.count
  }

  deinit {
    fanout.close()
  }
}
