extension ReactorProtocol {
  // MARK: State and actions

  /// The state the view should render now: `initialState` until the first mutation.
  @inlinable
  public var currentState: State {
    runtime.currentState(of: self)
  }

  /// Sends an action: `mutate(action:)` runs now, and every mutation it emits synchronously is
  /// reduced before this returns. Sent while another action is being processed (from
  /// `reduce`, `mutate`, or an observer), the action is queued and processed right after.
  @inlinable
  public func send(_ action: Action) {
    runtime.send(action, reactor: self)
  }

  // MARK: Observing state

  /// Calls `observer` with the current state now, then with every new state, until the
  /// returned token is cancelled or released.
  ///
  /// An action `observer` sends (on its first call too) is queued and processed once the
  /// delivery is over, like any action sent while the reactor is busy.
  @inlinable
  public func observe(_ observer: @escaping @MainActor (State) -> Void) -> ObservationToken {
    observeState { state in
      observer(state)
      return true
    }
  }

  /// Calls `observer` with one value of the state now, then each time it changes (duplicates
  /// removed), until the returned token is cancelled or released.
  ///
  /// Pass a key path: `reactor.observe(\.isLoading) { spinner.isHidden = !$0 }`. (The
  /// parameter is a function so that the key path compiles to a direct field read instead of a
  /// run-time key path lookup; any `(State) -> Value` function works too.)
  @inlinable
  public func observe<Value: Equatable>(
    _ value: @escaping @MainActor (State) -> Value,
    _ observer: @escaping @MainActor (Value) -> Void
  ) -> ObservationToken {
    let last = LastValue<Value>()
    return observeState { state in
      let current = value(state)
      if let previous = last.value, previous == current { return true }
      last.value = current
      observer(current)
      return true
    }
  }

  /// Calls `observer` with `owner` and the current state now, then with every new state, for
  /// as long as `owner` lives. `owner` is held weakly and passed in, so `observer` need not
  /// capture it: no retain cycle between a view, its reactor and the observation.
  @inlinable
  public func observe<Owner: AnyObject>(
    by owner: Owner,
    _ observer: @escaping @MainActor (Owner, State) -> Void
  ) {
    // No token: the observation ends with the owner.
    let entry = Observer<State>.make { [weak owner] state in
      guard let owner else { return false }
      observer(owner, state)
      return true
    }
    runtime.add(entry, reactor: self)
  }

  /// Calls `observer` with `owner` and one value of the state (pass a key path) now, then each
  /// time it changes (duplicates removed), for as long as `owner` lives (held weakly).
  @inlinable
  public func observe<Owner: AnyObject, Value: Equatable>(
    _ value: @escaping @MainActor (State) -> Value,
    by owner: Owner,
    _ observer: @escaping @MainActor (Owner, Value) -> Void
  ) {
    let last = LastValue<Value>()
    let entry = Observer<State>.make { [weak owner] state in
      guard let owner else { return false }
      let current = value(state)
      if let previous = last.value, previous == current { return true }
      last.value = current
      observer(owner, current)
      return true
    }
    runtime.add(entry, reactor: self)
  }

  /// Registers `deliver` (which returns `false` once the observation has ended) and returns
  /// the token that ends it.
  @inlinable
  func observeState(_ deliver: @escaping @MainActor (State) -> Bool) -> ObservationToken {
    let entry = Observer<State>.make(deliver)
    runtime.add(entry, reactor: self)
    return ObservationToken(ending: entry)
  }

  // MARK: Observing one-shot events

  /// Calls `observer` with each one-shot event until the returned token is cancelled or
  /// released.
  ///
  /// Each emitted event is delivered once to every event observer registered when it is
  /// emitted, even if it equals the previous one, and never replayed to observers added later.
  /// Events emitted while no event observer is registered are kept (up to 64) and delivered
  /// once to the next observer, so a navigation emitted during a screen transition is not lost.
  @inlinable
  public func observeEvents(_ observer: @escaping @MainActor (Event) -> Void) -> ObservationToken {
    let entry = Observer<Event>.make { event in
      observer(event)
      return true
    }
    runtime.add(entry, reactor: self)
    return ObservationToken(ending: entry)
  }

  /// Calls `observer` with `owner` and each one-shot event for as long as `owner` lives (held
  /// weakly). Delivery rules as in ``observeEvents(_:)``.
  @inlinable
  public func observeEvents<Owner: AnyObject>(
    by owner: Owner,
    _ observer: @escaping @MainActor (Owner, Event) -> Void
  ) {
    runtime.add(
      Observer<Event>.make { [weak owner] event in
        guard let owner else { return false }
        observer(owner, event)
        return true
      }, reactor: self)
  }

  /// Calls `observer` with each action an effect sends through ``EffectSender/action(_:)``, as
  /// it is sent (before `transform(action:)` and the queue): what a tester asserts
  /// (`expectActions`), as TCA's `receive` does. Actions sent by the view are not reported.
  public func observeEffectActions(
    _ observer: @escaping @MainActor (Action) -> Void
  ) -> ObservationToken {
    let entry = Observer<Action>.make { action in
      observer(action)
      return true
    }
    runtime.addEffectActionObserver(entry)
    return ObservationToken(ending: entry)
  }

  // MARK: Lifetime and effects

  /// Cancels every effect in flight and the sources merged by the `transform` hooks; later
  /// actions are ignored. Releasing the reactor does the same.
  public func stop() {
    runtime.stop()
  }

  /// Whether ``stop()`` was called.
  public var isStopped: Bool {
    runtime.isStopped
  }

  /// Cancels the effects in flight that were given the identity `id` (any `Hashable` value; see
  /// ``ReactorEffect/cancellable(id:cancelInFlight:)``).
  public func cancelEffects(id: some Hashable) {
    runtime.cancelEffects(id: AnyHashable(id))
  }

  /// The number of effects in flight as written: `.run {}.cancellable(id:)` is one,
  /// `.merge(.run {}, .run {})` two (for tests and leak checks).
  public var runningEffectCount: Int {
    runtime.runningEffectCount
  }

  /// Returns once no effect is in flight.
  public func waitUntilIdle() async {
    await runtime.waitUntilIdle()
  }

  // MARK: Testing

  /// Switches the reactor to stub mode for view tests and returns the stub; see
  /// ``ReactorStub``. Effects in flight and merged sources are cancelled.
  public func enableStub() -> ReactorStub<Self> {
    runtime.enableStub(reactor: self)
  }

  /// Whether the reactor is in stub mode.
  public var isStubEnabled: Bool {
    runtime.stub != nil
  }
}
