import Synchronization

/// Keeps one observation alive: cancelling the token, or releasing it, ends the observation.
///
/// Tokens play the role of RxSwift's `Disposable`: keep them in an ``ObservationBag`` owned
/// by the observer, and every observation ends when the observer goes away.
public final class ObservationToken: Sendable {
  private let onCancel: Mutex<(@Sendable () -> Void)?>

  /// Creates a token that runs `onCancel` once, on the first ``cancel()`` or on release.
  public init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = Mutex(onCancel)
  }

  /// Ends the observation. Calling it again does nothing.
  public func cancel() {
    let action = onCancel.withLock { action in
      defer { action = nil }
      return action
    }
    action?()
  }

  /// Whether ``cancel()`` has run.
  public var isCancelled: Bool {
    onCancel.withLock { $0 == nil }
  }

  /// Hands the token to `bag`, which ends the observation when the bag is released.
  public func store(in bag: ObservationBag) {
    bag.insert(self)
  }

  deinit {
    cancel()
  }
}

/// Holds tokens for an owner (a view controller, a service) and ends them all with it: the
/// DisposeBag of RxSwift.
public final class ObservationBag: Sendable {
  private let tokens = Mutex<[ObservationToken]>([])

  /// Creates an empty bag.
  public init() {}

  /// Adds `token`; it is cancelled when the bag is released or emptied.
  public func insert(_ token: ObservationToken) {
    tokens.withLock { $0.append(token) }
  }

  /// Cancels every token in the bag and empties it.
  public func cancelAll() {
    let removed = tokens.withLock { tokens in
      defer { tokens.removeAll() }
      return tokens
    }
    for token in removed { token.cancel() }
  }

  /// The number of tokens held.
  public var count: Int {
    tokens.withLock { $0.count }
  }

  deinit {
    cancelAll()
  }
}

/// A flag shared between an observer entry and its token: cleared (from any thread) when the
/// observation ends, and checked before each delivery, so that no value is delivered after
/// `cancel()` returns even though the entry is removed later.
@usableFromInline
final class ObservationFlag: Sendable {
  @usableFromInline let active = Atomic<Bool>(true)

  @usableFromInline init() {}

  @inlinable var isActive: Bool { active.load(ordering: .acquiring) }

  @inlinable func deactivate() { active.store(false, ordering: .releasing) }
}
