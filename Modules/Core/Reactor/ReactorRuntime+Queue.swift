/// The queue and delivery: every unit of work (an action, a mutation or event from an effect,
/// a merged state, an observer's first state) runs with the runtime marked busy, and whatever
/// it causes re-entrantly waits in `pending` and runs right after it, in order. Processing
/// never recurses.
extension ReactorRuntime {
  // MARK: Actions

  @inlinable
  func send(_ action: R.Action, reactor: R, transformed: Bool = false) {
    if !isStarted { start(reactor) }
    if let stub {
      stub.record(action)
      return
    }
    guard !isStopped else {
      reactor.logger.debug("Dropped an action sent after stop(): \(action, privacy: .caseName)")
      return
    }
    var action = action
    if !transformed, let actionTransform {
      guard let transformedAction = actionTransform(action) else { return }
      action = transformedAction
    }
    if isProcessing {
      pending.append(.action(action))
      return
    }
    isProcessing = true
    process(action, reactor: reactor)
    if pendingHead < pending.count { drain(reactor) }
    isProcessing = false
  }

  @inlinable
  func process(_ action: R.Action, reactor: R) {
    actionSequence &+= 1
    let effect = reactor.mutate(action: action)
    if effect.isSynchronous {
      performSynchronously(effect, reactor: reactor)
      return
    }
    // What a `concat` does before its first asynchronous part is done now, on every system:
    // `.concat(.just(.setSaving(true)), .run { ... })` marks the state saving before `send`
    // returns, so a second send in the same turn sees it (below iOS 26 the task starts later).
    let remainder = performLeadingSynchronousParts(of: effect, reactor: reactor) ?? effect
    guard !isStopped else { return }
    if case .identified(let identity) = remainder.operation {
      // Registered under its identity now, not when a wrapper's task gets to it: a
      // `cancelEffects(id:)` or a newer `cancelInFlight` right after this send must find it,
      // even where the task starts only after this returns (below iOS 26). A `.cancellable`
      // nested in a `concat`, `merge` or `catch` is registered when its wrapper's task reaches
      // it: "latest wins" still follows the order of the sends (`takeOver`), but below iOS 26
      // a `cancelEffects(id:)` made before that part started does not reach it.
      startEffect(identity.effect, key: identity.id, parent: nil, group: nil, reactor: reactor)
    } else {
      startEffect(remainder, key: nil, parent: nil, group: nil, reactor: reactor)
    }
  }

  /// Performs the synchronous parts `effect` starts with (a `concat`'s leading `.just`,
  /// `.event` and `.cancel` parts, also under `catch` and `cancellable`), and returns the
  /// asynchronous rest, or `nil` when nothing was performed and `effect` runs as it is. An
  /// identity with `cancelInFlight` cancels the effects in flight first, as the effect would on
  /// starting; its rest keeps the flag, so a nested part still stands down for a newer send.
  /// A `merge` is left whole: its parts start together. (Inlinable like `process`: called
  /// unspecialized, for a reactor type of the client's, it cost ~150 ns per `.run`.)
  @inlinable
  func performLeadingSynchronousParts(of effect: Effect, reactor: R) -> Effect? {
    switch effect.operation {
    case .concat(let parts):
      var first = parts.startIndex
      while first < parts.endIndex, parts[first].isSynchronous {
        performSynchronously(parts[first], reactor: reactor)
        first += 1
      }
      guard first < parts.endIndex else { return first == parts.startIndex ? nil : .none }
      let head = performLeadingSynchronousParts(of: parts[first], reactor: reactor)
      guard first > parts.startIndex || head != nil else { return nil }
      return .concat([head ?? parts[first]] + parts[(first + 1)...])
    case .catching(let inner, let handler):
      guard let rest = performLeadingSynchronousParts(of: inner, reactor: reactor) else {
        return nil
      }
      return Effect(.catching(rest, handler), isSynchronous: rest.isSynchronous)
    case .identified(let identity):
      if identity.cancelInFlight { cancelEffects(id: identity.id) }
      guard let rest = performLeadingSynchronousParts(of: identity.effect, reactor: reactor)
      else { return nil }
      let kept = Effect.Identity(
        effect: rest, id: identity.id, cancelInFlight: identity.cancelInFlight)
      return Effect(.identified(kept), isSynchronous: rest.isSynchronous)
    default:
      return nil
    }
  }

  /// Runs the work that waited while the runtime was busy, in order, including work it queues.
  @usableFromInline
  func drain(_ reactor: R) {
    while pendingHead < pending.count, !isStopped {
      let next = pending[pendingHead]
      pendingHead += 1
      switch next {
      case .action(let action): process(action, reactor: reactor)
      case .mutation(let mutation): reduce(mutation, reactor: reactor)
      case .event(let event): notifyEventObservers(event)
      case .state(let state): show(state)
      case .firstDelivery(let observer): deliverFirst(to: observer, reactor: reactor)
      }
    }
    pending.removeAll(keepingCapacity: true)
    pendingHead = 0
  }

  // MARK: Mutations, states and events

  /// Reduces a mutation from an effect or a merged source. Inside the processing of an action
  /// it is reduced at once (it belongs to that action); otherwise it is processed as a unit of
  /// its own, draining whatever its observers queue.
  @inlinable
  func deliver(_ mutation: R.Mutation, reactor: R, transformed: Bool = false) {
    guard !isStopped else { return }
    var mutation = mutation
    if !transformed, let mutationTransform {
      guard let transformedMutation = mutationTransform(mutation) else { return }
      mutation = transformedMutation
    }
    if isProcessing {
      reduce(mutation, reactor: reactor)
      return
    }
    isProcessing = true
    reduce(mutation, reactor: reactor)
    if pendingHead < pending.count { drain(reactor) }
    isProcessing = false
  }

  @inlinable
  func reduce(_ mutation: R.Mutation, reactor: R) {
    if isReducing {
      pending.append(.mutation(mutation))
      return
    }
    isReducing = true
    defer { isReducing = false }
    guard foldsReducedState else {
      // The common case: observers see what `reduce` returns, so it folds `state`.
      let newState = reactor.reduce(state: state ?? reactor.initialState, mutation: mutation)
      show(newState)
      return
    }
    // `transform(state:)` maps or merges: `reduce` folds the state it produced (as in
    // ReactorKit), observers see the stream's version.
    let extras = ensuredExtras
    let newState = reactor.reduce(
      state: extras.reducedState ?? reactor.initialState, mutation: mutation)
    extras.reducedState = newState
    guard let stateTransform = extras.stateTransform else { return show(newState) }
    if let shown = stateTransform(newState) { show(shown) }
  }

  /// Makes `newState` the current state and tells the observers.
  @inlinable
  func show(_ newState: R.State) {
    state = newState
    notifyStateObservers(newState)
    // Those observing through `Observation` (made on first read; none usually), and the
    // trace (none unless asked for): out of line, so the common path stays one check.
    if let extras { showToExtras(extras, newState) }
  }

  @usableFromInline @inline(never)
  func showToExtras(_ extras: Extras, _ newState: R.State) {
    if let observed = extras.observedState { observed.update(newState) }
    if let tracer = extras.tracer { tracer.state(newState) }
  }

  /// A state from a stream merged in `transform(state:)`: shown as a unit of its own, like an
  /// action, so what observers do in response waits until every observer has it.
  @usableFromInline
  func deliverMerged(_ newState: R.State, reactor: R) {
    guard !isStopped else { return }
    if isProcessing || isReducing {
      pending.append(.state(newState))
      return
    }
    isProcessing = true
    show(newState)
    if pendingHead < pending.count { drain(reactor) }
    isProcessing = false
  }

  @inlinable
  func emit(_ event: R.Event, reactor: R) {
    guard !isStopped else { return }
    if isReducing {
      pending.append(.event(event))
      return
    }
    if isProcessing {
      notifyEventObservers(event)
      return
    }
    isProcessing = true
    notifyEventObservers(event)
    if pendingHead < pending.count { drain(reactor) }
    isProcessing = false
  }
}
