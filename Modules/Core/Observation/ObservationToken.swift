/// Keeps one observation alive: cancelling the token, or releasing it, ends the observation.
///
/// Tokens play the role of RxSwift's `Disposable`: keep them in an ``ObservationBag`` owned
/// by the observer, and every observation ends when the observer goes away.
public final class ObservationToken: Sendable {
  /// What cancelling does: a closure, or (for a reactor's observers, without allocating one)
  /// the observation itself.
  private enum Cancellation: Sendable {
    case closure(@Sendable () -> Void)
    case observation(any CancellableObservation)
  }

  private let cancellation: Lock<Cancellation?>

  /// Creates a token that runs `onCancel` once, on the first ``cancel()`` or on release.
  public init(onCancel: @escaping @Sendable () -> Void) {
    cancellation = Lock(.closure(onCancel))
  }

  /// Creates a token that ends `observation` once, on the first ``cancel()`` or on release.
  @usableFromInline
  init(ending observation: any CancellableObservation) {
    cancellation = Lock(.observation(observation))
  }

  /// Ends the observation. Calling it again does nothing.
  public func cancel() {
    let action = cancellation.withLock { action in
      defer { action = nil }
      return action
    }
    switch action {
    case .closure(let onCancel): onCancel()
    case .observation(let observation): observation.endObservation()
    case nil: break
    }
  }

  /// Whether ``cancel()`` has run.
  public var isCancelled: Bool {
    cancellation.withLock { $0 == nil }
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
  private let tokens = Lock<[ObservationToken]>([])

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

/// An observation a token can end from any thread.
@usableFromInline
protocol CancellableObservation: AnyObject, Sendable {
  /// Ends the observation: nothing is delivered after this returns.
  func endObservation()
}

/// A flag shared between an observer entry and its token: cleared (from any thread) when the
/// observation ends, and checked before each delivery, so that no value is delivered after
/// `cancel()` returns even though the entry is removed later.
@usableFromInline
final class ObservationFlag: Sendable {
  @usableFromInline let active = AtomicFlag(true)

  @usableFromInline init() {}

  @inlinable var isActive: Bool { active.value }

  @inlinable func deactivate() { active.set(false) }
}
