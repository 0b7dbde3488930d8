import Synchronization

/// An observer of a reactor's state: one object per observation, with the delivery in a
/// subclass, so that delivering a state is one virtual call (plus the user's closure) whatever
/// the kind of observation.
///
/// `isActive` is cleared from any thread when the observation's token is cancelled, and
/// checked before each delivery, so nothing is delivered after `cancel()` returns even though
/// the entry is removed from the list later.
@MainActor
@usableFromInline
class StateObserver<State> {
  @usableFromInline nonisolated let active = Atomic<Bool>(true)

  @usableFromInline init() {}

  @inlinable nonisolated final var isActive: Bool { active.load(ordering: .acquiring) }

  @inlinable nonisolated final func deactivate() { active.store(false, ordering: .releasing) }

  /// Delivers `state`; returns `false` when the observation has ended (its owner is gone).
  @usableFromInline
  func deliver(_ state: State) -> Bool { true }
}

/// `observe { state in ... }`.
@usableFromInline
final class ClosureStateObserver<State>: StateObserver<State> {
  @usableFromInline let body: @MainActor (State) -> Void

  @usableFromInline
  init(_ body: @escaping @MainActor (State) -> Void) {
    self.body = body
  }

  @inlinable
  override func deliver(_ state: State) -> Bool {
    body(state)
    return true
  }
}

/// `observe(by: owner) { owner, state in ... }`: ends when the owner is released.
@usableFromInline
final class OwnedStateObserver<State, Owner: AnyObject>: StateObserver<State> {
  @usableFromInline weak var owner: Owner?
  @usableFromInline let body: @MainActor (Owner, State) -> Void

  @usableFromInline
  init(owner: Owner, _ body: @escaping @MainActor (Owner, State) -> Void) {
    self.owner = owner
    self.body = body
  }

  @inlinable
  override func deliver(_ state: State) -> Bool {
    guard let owner else { return false }
    body(owner, state)
    return true
  }
}

/// `observe(\.value) { value in ... }` and its owner form: one value of the state, duplicates
/// removed. The owner is held weakly; without one (token-based observation) it is `nil` and
/// not checked.
@usableFromInline
final class DistinctStateObserver<State, Value: Equatable, Owner: AnyObject>: StateObserver<
  State
>
{
  @usableFromInline let value: @MainActor (State) -> Value
  @usableFromInline let body: @MainActor (Owner?, Value) -> Void
  @usableFromInline let hasOwner: Bool
  @usableFromInline weak var owner: Owner?
  /// The last value delivered. Main-actor only, and never accessed across a call out (read
  /// and written in single statements around `body`), hence unchecked.
  @exclusivity(unchecked) @usableFromInline var last: Value?

  @usableFromInline
  init(
    value: @escaping @MainActor (State) -> Value, owner: Owner?,
    _ body: @escaping @MainActor (Owner?, Value) -> Void
  ) {
    self.value = value
    self.body = body
    self.owner = owner
    hasOwner = owner != nil
  }

  @inlinable
  override func deliver(_ state: State) -> Bool {
    let current = value(state)
    if let last, last == current { return !hasOwner || owner != nil }
    last = current
    guard hasOwner else {
      body(nil, current)
      return true
    }
    guard let owner else { return false }
    body(owner, current)
    return true
  }
}

/// An observer of a reactor's one-shot events.
@MainActor
@usableFromInline
class EventObserver<Event> {
  @usableFromInline nonisolated let active = Atomic<Bool>(true)

  @usableFromInline init() {}

  @inlinable nonisolated final var isActive: Bool { active.load(ordering: .acquiring) }

  @inlinable nonisolated final func deactivate() { active.store(false, ordering: .releasing) }

  /// Delivers `event`; returns `false` when the observation has ended.
  @usableFromInline
  func deliver(_ event: Event) -> Bool { true }
}

/// `observeEvents { event in ... }`, and its owner form (the owner held weakly).
@usableFromInline
final class ClosureEventObserver<Event, Owner: AnyObject>: EventObserver<Event> {
  @usableFromInline let body: @MainActor (Owner?, Event) -> Void
  @usableFromInline let hasOwner: Bool
  @usableFromInline weak var owner: Owner?

  @usableFromInline
  init(owner: Owner?, _ body: @escaping @MainActor (Owner?, Event) -> Void) {
    self.body = body
    self.owner = owner
    hasOwner = owner != nil
  }

  @inlinable
  override func deliver(_ event: Event) -> Bool {
    guard hasOwner else {
      body(nil, event)
      return true
    }
    guard let owner else { return false }
    body(owner, event)
    return true
  }
}

extension ReactorRuntime {
  // MARK: Registering

  /// Adds `observer` and gives it the current state, through the queue: an action its first
  /// delivery sends waits until that delivery is over, as any re-entrant action does.
  @inlinable
  func add(_ observer: StateObserver<R.State>, reactor: R) {
    if !isStarted { start(reactor) }
    stateObservers.append(observer)
    if isBusy || isReducing {
      pending.append(.firstDelivery(observer))
      return
    }
    isBusy = true
    deliverFirst(to: observer, reactor: reactor)
    if pendingHead < pending.count { drain(reactor) }
    isBusy = false
  }

  @inlinable
  func deliverFirst(to observer: StateObserver<R.State>, reactor: R) {
    guard observer.isActive else { return }
    if !observer.deliver(currentState(of: reactor)) { observer.deactivate() }
  }

  /// Adds `observer` and gives it the events kept while nobody observed.
  @usableFromInline
  func add(_ observer: EventObserver<R.Event>, reactor: R) {
    if !isStarted { start(reactor) }
    eventObservers.append(observer)
    let buffered = bufferedEvents
    bufferedEvents.removeAll()
    for event in buffered where observer.isActive {
      if !observer.deliver(event) { observer.deactivate() }
    }
  }

  /// A token that ends the observation: delivery stops at once, the entry is removed on the
  /// main actor soon after.
  @usableFromInline
  func token(deactivating deactivate: @escaping @Sendable () -> Void) -> ObservationToken {
    ObservationToken { [weak self] in
      deactivate()
      Task { @MainActor in self?.purgeObservers() }
    }
  }

  /// Removes ended observations, unless a notification loop is walking the lists (then the
  /// last loop to finish does it).
  @usableFromInline
  func purgeObservers() {
    guard notifyDepth == 0 else {
      needsPurge = true
      return
    }
    needsPurge = false
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
    notifyDepth += 1
    var index = 0
    while index < count {
      // Entries are only removed when no loop runs (`notifyDepth` is 0), and appends keep
      // them in the (possibly moved) buffer, so the observer lives without a retain here.
      let delivered = stateObservers.withUnsafeBufferPointer { buffer in
        Unmanaged.passUnretained(buffer[index])
      }._withUnsafeGuaranteedRef { observer in
        !observer.isActive || observer.deliver(state) || Self.ended(observer)
      }
      if !delivered { needsPurge = true }
      index += 1
    }
    notifyDepth -= 1
    if needsPurge, notifyDepth == 0 { purgeObservers() }
  }

  /// Marks `observer` as ended (its owner is gone); always `false`.
  @usableFromInline
  static func ended(_ observer: StateObserver<R.State>) -> Bool {
    observer.deactivate()
    return false
  }

  @usableFromInline
  func notifyEventObservers(_ event: R.Event) {
    let count = eventObservers.count
    var delivered = false
    notifyDepth += 1
    for index in 0..<count {
      let observer = eventObservers[index]
      guard observer.isActive else { continue }
      if observer.deliver(event) {
        delivered = true
      } else {
        observer.deactivate()
        needsPurge = true
      }
    }
    notifyDepth -= 1
    if needsPurge, notifyDepth == 0 { purgeObservers() }
    if !delivered {
      if bufferedEvents.count == Self.eventBufferLimit { bufferedEvents.removeFirst() }
      bufferedEvents.append(event)
    }
  }
}
