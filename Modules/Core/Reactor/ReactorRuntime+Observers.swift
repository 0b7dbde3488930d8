import Foundation
import Synchronization

/// An observer of a reactor's state or events: one object per observation holding one
/// closure, built by the (inlined, specialised) `observe` overload, that does the whole
/// delivery: read the value, drop a duplicate, check the owner, call the user's code. So a
/// delivery is a single indirect call into specialised code, whatever the kind of observation.
///
/// `isActive` is cleared from any thread when the observation's token is cancelled, and
/// checked before each delivery, so nothing is delivered after `cancel()` returns even though
/// the entry is removed from the list later. The flag lives in the observer itself: an
/// `Atomic` in ``AtomicObserver`` where the system has Synchronization's (iOS 18, macOS 15,
/// Linux), a Boolean under an `NSLock` in ``LockedObserver`` below (and with
/// ``Fallbacks/areForced``); ``make(_:)`` picks. (A separate flag object cost an allocation per
/// observer and a pointer chase per delivery: fanout to ten observers went from 114 to 190 ns.)
@MainActor
@usableFromInline
class Observer<Value>: CancellableObservation {
  /// Delivers a value; returns `false` when the observation has ended (its owner is gone).
  /// Replaced by a no-op once the observation ends, so what it captured (often the view) is
  /// released at once, not when the entry is purged.
  @exclusivity(unchecked) @usableFromInline final var deliver: @MainActor (Value) -> Bool

  /// Whether this is an ``AtomicObserver``: tested before a direct call, cheaper than a
  /// dynamically dispatched one on a path as hot as a delivery.
  @usableFromInline let isAtomic: Bool

  @usableFromInline
  init(_ deliver: @escaping @MainActor (Value) -> Bool, isAtomic: Bool) {
    self.deliver = deliver
    self.isAtomic = isAtomic
  }

  /// An observer delivering with `deliver`, its flag the system's best.
  @inlinable
  static func make(_ deliver: @escaping @MainActor (Value) -> Bool) -> Observer<Value> {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *), !Fallbacks.areForced {
      return AtomicObserver(deliver)
    }
    return LockedObserver(deliver)
  }

  /// Whether the observation goes on (any thread).
  @inlinable final nonisolated var isActive: Bool {
    if isAtomic, #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
      return unsafeDowncast(self, to: AtomicObserver<Value>.self).loadActive()
    }
    return unsafeDowncast(self, to: LockedObserver<Value>.self).loadActive()
  }

  /// Ends delivery (any thread).
  @inlinable final nonisolated func deactivate() {
    if isAtomic, #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
      unsafeDowncast(self, to: AtomicObserver<Value>.self).storeInactive()
    } else {
      unsafeDowncast(self, to: LockedObserver<Value>.self).storeInactive()
    }
  }

  /// Ends the observation from any thread: delivery stops at once; the closure is dropped on
  /// the main actor soon after (the entry itself goes at the next purge).
  @usableFromInline
  final nonisolated func endObservation() {
    guard isActive else { return }  // already ended (a token cancels again on release)
    deactivate()
    Task { @MainActor in self.deliver = { _ in false } }
  }

  @usableFromInline
  final nonisolated var isObservationActive: Bool { isActive }
}

/// An ``Observer`` whose flag is Synchronization's `Atomic`.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
@usableFromInline
final class AtomicObserver<Value>: Observer<Value> {
  @usableFromInline let active = Atomic<Bool>(true)

  @usableFromInline
  init(_ deliver: @escaping @MainActor (Value) -> Bool) {
    super.init(deliver, isAtomic: true)
  }

  @inlinable nonisolated func loadActive() -> Bool { active.load(ordering: .acquiring) }

  @inlinable nonisolated func storeInactive() { active.store(false, ordering: .releasing) }
}

/// An ``Observer`` for systems without `Atomic`: its flag under an `NSLock`.
@usableFromInline
final class LockedObserver<Value>: Observer<Value> {
  private let lock = NSLock()
  /// Read and written only between `lock.lock()` and `lock.unlock()`.
  nonisolated(unsafe) private var active = true

  @usableFromInline
  init(_ deliver: @escaping @MainActor (Value) -> Bool) {
    super.init(deliver, isAtomic: false)
  }

  @usableFromInline nonisolated func loadActive() -> Bool {
    lock.lock()
    defer { lock.unlock() }
    return active
  }

  @usableFromInline nonisolated func storeInactive() {
    lock.lock()
    defer { lock.unlock() }
    active = false
  }
}

/// The previous value seen by one duplicate-removing observer.
///
/// Main-actor only in practice (only its observer's closure touches it), and never accessed
/// across a call out (read and written in single statements around the user's closure), so
/// the dynamic exclusivity check a class's `var` pays is turned off.
@usableFromInline
final class LastValue<Value> {
  @exclusivity(unchecked) @usableFromInline var value: Value?

  @usableFromInline init() {}
}

extension ReactorRuntime {
  // MARK: Registering

  /// Adds `observer` and gives it the current state, through the queue: an action its first
  /// delivery sends waits until that delivery is over, as any re-entrant action does.
  ///
  /// Added while the runtime is busy, the observer joins the list at its first delivery, not
  /// before: a state reduced in between would otherwise reach it through the notification loop
  /// and then again as its first state.
  @inlinable
  func add(_ observer: Observer<R.State>, reactor: R) {
    if !isStarted { start(reactor) }
    if hasObserversToRemove { purgeObservers() }
    if isProcessing || isReducing {
      pending.append(.firstDelivery(observer))
      return
    }
    isProcessing = true
    deliverFirst(to: observer, reactor: reactor)
    if pendingHead < pending.count { drain(reactor) }
    isProcessing = false
  }

  /// Lists `observer` and gives it the current state (unless it was cancelled meanwhile).
  @inlinable
  func deliverFirst(to observer: Observer<R.State>, reactor: R) {
    guard observer.isActive else { return }
    stateObservers.append(observer)
    if !observer.deliver(currentState(of: reactor)) { observer.deactivate() }
  }

  /// Adds `observer` and gives it the events kept while nobody observed.
  @usableFromInline
  func add(_ observer: Observer<R.Event>, reactor: R) {
    if !isStarted { start(reactor) }
    if hasObserversToRemove { purgeObservers() }
    eventObservers.append(observer)
    let buffered = extras?.bufferedEvents ?? []
    extras?.bufferedEvents.removeAll()
    for event in buffered where observer.isActive {
      if !observer.deliver(event) { observer.deactivate() }
    }
  }

  /// Adds an observer of the actions effects send (``EffectSender/action(_:)``).
  func addEffectActionObserver(_ observer: Observer<R.Action>) {
    let extras = ensuredExtras
    extras.effectActionObservers.removeAll { !$0.isActive }
    extras.effectActionObservers.append(observer)
  }

  /// Tells the observers of effects' actions about `action`, before it is sent.
  @usableFromInline
  func announceEffectAction(_ action: R.Action) {
    guard let observers = extras?.effectActionObservers, !observers.isEmpty else { return }
    for observer in observers where observer.isActive {
      if !observer.deliver(action) { observer.deactivate() }
    }
  }

  /// Removes ended observations, unless a notification loop is walking the lists (then the
  /// last loop to finish does it).
  @usableFromInline
  func purgeObservers() {
    guard notificationDepth == 0 else {
      hasObserversToRemove = true
      return
    }
    hasObserversToRemove = false
    stateObservers.removeAll { !$0.isActive }
    eventObservers.removeAll { !$0.isActive }
  }

  // MARK: Notifying

  /// Delivers `state` to the observers registered when it was produced (one registered
  /// during the loop gets its first state through the queue instead).
  @inlinable
  func notifyStateObservers(_ state: R.State) {
    let count = stateObservers.count
    guard count > 0 else { return }
    notificationDepth += 1
    var index = 0
    while index < count {
      // Not retained: entries are only removed when no loop runs (`notificationDepth` is 0), and
      // appends keep them in the (possibly moved) buffer, so the list keeps each observer
      // alive for the whole loop.
      unowned(unsafe) let observer = stateObservers[index]
      if !observer.isActive {
        hasObserversToRemove = true
      } else if !observer.deliver(state) {
        observer.deactivate()
        hasObserversToRemove = true
      }
      index += 1
    }
    notificationDepth -= 1
    if hasObserversToRemove, notificationDepth == 0 { purgeObservers() }
  }

  @usableFromInline
  func notifyEventObservers(_ event: R.Event) {
    let count = eventObservers.count
    var delivered = false
    notificationDepth += 1
    for index in 0..<count {
      let observer = eventObservers[index]
      guard observer.isActive else {
        hasObserversToRemove = true
        continue
      }
      if observer.deliver(event) {
        delivered = true
      } else {
        observer.deactivate()
        hasObserversToRemove = true
      }
    }
    notificationDepth -= 1
    if hasObserversToRemove, notificationDepth == 0 { purgeObservers() }
    if !delivered {
      let extras = ensuredExtras
      if extras.bufferedEvents.count == Self.eventBufferLimit {
        extras.bufferedEvents.removeFirst()
      }
      extras.bufferedEvents.append(event)
    }
  }
}
