/// Keeps one observation alive: cancelling the token, or releasing it, ends the observation.
///
/// Tokens play the role of RxSwift's `Disposable`: keep them in an ``ObservationBag`` owned
/// by the observer, and every observation ends when the observer goes away.
public final class ObservationToken: Sendable {
  /// What cancelling does: a closure run once, or (for a reactor's observers, without a lock
  /// or a closure of its own) ending the observation, which is idempotent and thread-safe.
  private enum Cancellation: Sendable {
    case closure(Lock<(@Sendable () -> Void)?>)
    case observation(any CancellableObservation)
  }

  private let cancellation: Cancellation

  /// Creates a token that runs `onCancel` once, on the first ``cancel()`` or on release.
  public init(onCancel: @escaping @Sendable () -> Void) {
    cancellation = .closure(Lock(onCancel))
  }

  /// Creates a token that ends `observation` once, on the first ``cancel()`` or on release.
  @usableFromInline
  init(ending observation: any CancellableObservation) {
    cancellation = .observation(observation)
  }

  /// Ends the observation. Calling it again does nothing.
  public func cancel() {
    switch cancellation {
    case .closure(let lock):
      let onCancel = lock.withLock { onCancel in
        defer { onCancel = nil }
        return onCancel
      }
      onCancel?()
    case .observation(let observation):
      observation.endObservation()
    }
  }

  /// Whether ``cancel()`` has run (or, for a reactor's observer, the observation ended).
  public var isCancelled: Bool {
    switch cancellation {
    case .closure(let lock): lock.withLock { $0 == nil }
    case .observation(let observation): !observation.isObservationActive
    }
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
  /// Ends the observation: nothing is delivered after this returns. Calling it again does
  /// nothing.
  func endObservation()
  /// Whether the observation goes on.
  var isObservationActive: Bool { get }
}
