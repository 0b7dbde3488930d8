/// Events for many subscribers, without a current value: what a service uses to publish
/// things that happen (a task created elsewhere, a session revoked), where ``Relay`` publishes
/// state.
///
/// Each ``events`` access is an independent subscription that receives every event sent after
/// it was made, in order, until its consuming task is cancelled or the broadcast is released.
/// Like a relay's, delivery runs without any lock held.
public final class Broadcast<Element: Sendable>: Sendable {
  private let fanout = Fanout<Element>(current: nil)

  /// Creates a broadcast with no subscribers.
  public init() {}

  /// Delivers `element` to every current subscriber.
  public func send(_ element: Element) {
    fanout.publish { _ in element }
  }

  /// Every event sent from now on.
  public var events: AsyncStream<Element> {
    fanout.stream(includingCurrent: false)
  }

  /// The number of live subscriptions.
  public var subscriberCount: Int {
    fanout.count
  }

  deinit {
    fanout.close()
  }
}
