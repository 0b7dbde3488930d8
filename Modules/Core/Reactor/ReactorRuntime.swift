/// The machinery behind a ``ReactorProtocol``: the state, the action queue, the observers and
/// the effects in flight. A reactor stores one (`let runtime = ReactorRuntime<Self>()`) and uses
/// it through the protocol's methods (`send`, `observe`, `currentState`, `stop`).
///
/// The runtime holds no reference to its reactor: tasks and observers reach the reactor
/// weakly, so releasing the reactor releases the runtime, which cancels everything in flight.
@MainActor
public final class ReactorRuntime<R: ReactorProtocol> {
  @usableFromInline typealias Effect = ReactorEffect<R>

  @usableFromInline
  enum Pending {
    case action(R.Action)
    case mutation(R.Mutation)
    case event(R.Event)
  }

  @usableFromInline
  final class Observer<Value> {
    @usableFromInline let flag = ObservationFlag()
    /// Delivers a value; returns `false` when the observation ended (its owner is gone).
    @usableFromInline let deliver: @MainActor (Value) -> Bool

    @usableFromInline
    init(deliver: @escaping @MainActor (Value) -> Bool) {
      self.deliver = deliver
    }
  }

  /// Everything the runtime mutates, in one place.
  @usableFromInline
  struct Storage {
    /// The last reduced state; `nil` until the reactor starts.
    @usableFromInline var reducedState: R.State?
    /// The state after `transform(state:)`, when that hook changes the stream.
    @usableFromInline var transformedState: R.State?
    @usableFromInline var isStarted = false
    @usableFromInline var isStopped = false
    @usableFromInline var stub: ReactorStub<R>?

    /// Processing an action (or an effect's delivery); new actions wait in `pending`.
    @usableFromInline var isBusy = false
    /// Inside `reduce` or the observers it notifies; new mutations wait in `pending` too.
    @usableFromInline var isReducing = false
    @usableFromInline var pending: [Pending] = []
    @usableFromInline var pendingHead = 0

    @usableFromInline var actionTransform: ReactorStream<R.Action>.Transform?
    @usableFromInline var mutationTransform: ReactorStream<R.Mutation>.Transform?
    @usableFromInline var stateTransform: ReactorStream<R.State>.Transform?
    var sourceTasks: [Task<Void, Never>] = []

    @usableFromInline var stateObservers: [Observer<R.State>] = []
    @usableFromInline var eventObservers: [Observer<R.Event>] = []
    @usableFromInline var bufferedEvents: [R.Event] = []

    var effects: [Int: EffectHandle] = [:]
    var nextEffectSerial = 0
    var idleWaiters: [CheckedContinuation<Void, Never>] = []

    @usableFromInline init() {}
  }

  /// The runtime's mutable state, behind a pointer instead of in stored properties.
  ///
  /// Stored properties of a class pay a dynamic exclusivity check on every access (about
  /// 10 ns each, most of the cost of an action). The invariant that makes the pointer safe:
  /// the runtime is `@MainActor`, so only one thread ever touches `storage`; and no access
  /// spans a call into reactor or observer code (state is read into a local before `reduce`,
  /// observer lists are copied before they are iterated), so a re-entrant `send` from such
  /// code never overlaps another access. Allocated in `init`, freed in `deinit`.
  @usableFromInline let storage: UnsafeMutablePointer<Storage>

  /// Events emitted while nobody observes are kept for the next observer, up to this many.
  @usableFromInline static var eventBufferLimit: Int { 64 }

  /// Creates an idle runtime; it starts on the reactor's first `send` or `observe`.
  public init() {
    storage = .allocate(capacity: 1)
    storage.initialize(to: Storage())
  }

  isolated deinit {
    for handle in storage.pointee.effects.values { handle.cancel() }
    for task in storage.pointee.sourceTasks { task.cancel() }
    for waiter in storage.pointee.idleWaiters { waiter.resume() }
    storage.deinitialize(count: 1)
    storage.deallocate()
  }

  // MARK: Reading state

  @inlinable
  func currentState(of reactor: R) -> R.State {
    storage.pointee.transformedState ?? storage.pointee.reducedState ?? reactor.initialState
  }

  var isStopped: Bool { storage.pointee.isStopped }

  var stub: ReactorStub<R>? { storage.pointee.stub }

  var runningEffectCount: Int { storage.pointee.effects.count }

  func waitUntilIdle() async {
    guard !storage.pointee.effects.isEmpty else { return }
    await withCheckedContinuation { storage.pointee.idleWaiters.append($0) }
  }

  // MARK: Starting and stopping

  @usableFromInline
  func start(_ reactor: R) {
    guard !storage.pointee.isStarted else { return }
    storage.pointee.isStarted = true
    let initial = reactor.initialState
    storage.pointee.reducedState = initial

    let actions = reactor.transform(action: ReactorStream())
    storage.pointee.actionTransform = actions.transform
    let mutations = reactor.transform(mutation: ReactorStream())
    storage.pointee.mutationTransform = mutations.transform
    let states = reactor.transform(state: ReactorStream())
    storage.pointee.stateTransform = states.transform
    if let transform = states.transform {
      storage.pointee.transformedState = transform(initial) ?? initial
    }
    guard storage.pointee.stub == nil else { return }

    startSources(actions.sources, reactor: reactor) { runtime, reactor, action in
      runtime.send(action, reactor: reactor, transformed: true)
    }
    startSources(mutations.sources, reactor: reactor) { runtime, reactor, mutation in
      runtime.deliver(mutation, reactor: reactor, transformed: true)
    }
    startSources(states.sources, reactor: reactor) { runtime, _, state in
      runtime.storage.pointee.transformedState = state
      runtime.notifyStateObservers(state)
    }
  }

  private func startSources<Element>(
    _ sources: [ReactorStream<Element>.Source],
    reactor: R,
    deliver: @escaping @MainActor (ReactorRuntime, R, Element) -> Void
  ) {
    for source in sources {
      let transform = source.transform
      let emit: @MainActor (Element) -> Void = { [weak self, weak reactor] element in
        guard let self, let reactor, !self.storage.pointee.isStopped else { return }
        guard let element = transform.map({ $0(element) }) ?? element else { return }
        deliver(self, reactor, element)
      }
      let iterate = source.iterate
      storage.pointee.sourceTasks.append(Task { await iterate(emit) })
    }
  }

  func stop() {
    guard !storage.pointee.isStopped else { return }
    storage.pointee.isStopped = true
    cancelEverything()
    storage.pointee.pending.removeAll()
    storage.pointee.pendingHead = 0
  }

  private func cancelEverything() {
    for handle in storage.pointee.effects.values { handle.cancel() }
    for task in storage.pointee.sourceTasks { task.cancel() }
    storage.pointee.sourceTasks.removeAll()
  }

  // MARK: Actions

  @inlinable
  func send(_ action: R.Action, reactor: R, transformed: Bool = false) {
    if !storage.pointee.isStarted { start(reactor) }
    if let stub = storage.pointee.stub {
      stub.record(action)
      return
    }
    guard !storage.pointee.isStopped else {
      reactor.logger.debug("Dropped an action sent after stop(): \(action, privacy: .caseName)")
      return
    }
    var action = action
    if !transformed, let actionTransform = storage.pointee.actionTransform {
      guard let transformedAction = actionTransform(action) else { return }
      action = transformedAction
    }
    if storage.pointee.isBusy {
      storage.pointee.pending.append(.action(action))
      return
    }
    storage.pointee.isBusy = true
    process(action, reactor: reactor)
    if storage.pointee.pendingHead < storage.pointee.pending.count { drain(reactor) }
    storage.pointee.isBusy = false
  }

  @inlinable
  func process(_ action: R.Action, reactor: R) {
    let effect = reactor.mutate(action: action)
    if effect.isSynchronous {
      performSynchronously(effect, reactor: reactor)
    } else {
      start(effect, key: nil, parent: nil, group: nil, reactor: reactor)
    }
  }

  @usableFromInline
  func drain(_ reactor: R) {
    while storage.pointee.pendingHead < storage.pointee.pending.count,
      !storage.pointee.isStopped
    {
      let next = storage.pointee.pending[storage.pointee.pendingHead]
      storage.pointee.pendingHead += 1
      switch next {
      case .action(let action): process(action, reactor: reactor)
      case .mutation(let mutation): reduce(mutation, reactor: reactor)
      case .event(let event): notifyEventObservers(event)
      }
    }
    storage.pointee.pending.removeAll(keepingCapacity: true)
    storage.pointee.pendingHead = 0
  }

  // MARK: Mutations and events

  /// Reduces a mutation from an effect or a merged source. Inside the processing of an action
  /// it is reduced at once (it belongs to that action); otherwise it is processed as a unit of
  /// its own, draining whatever its observers queue.
  @inlinable
  func deliver(_ mutation: R.Mutation, reactor: R, transformed: Bool = false) {
    guard !storage.pointee.isStopped else { return }
    var mutation = mutation
    if !transformed, let mutationTransform = storage.pointee.mutationTransform {
      guard let transformedMutation = mutationTransform(mutation) else { return }
      mutation = transformedMutation
    }
    if storage.pointee.isBusy {
      reduce(mutation, reactor: reactor)
      return
    }
    storage.pointee.isBusy = true
    reduce(mutation, reactor: reactor)
    if storage.pointee.pendingHead < storage.pointee.pending.count { drain(reactor) }
    storage.pointee.isBusy = false
  }

  @inlinable
  func reduce(_ mutation: R.Mutation, reactor: R) {
    if storage.pointee.isReducing {
      storage.pointee.pending.append(.mutation(mutation))
      return
    }
    storage.pointee.isReducing = true
    defer { storage.pointee.isReducing = false }
    let state = storage.pointee.reducedState ?? reactor.initialState
    let newState = reactor.reduce(state: state, mutation: mutation)
    storage.pointee.reducedState = newState
    if let stateTransform = storage.pointee.stateTransform {
      guard let transformed = stateTransform(newState) else { return }
      storage.pointee.transformedState = transformed
      notifyStateObservers(transformed)
    } else {
      notifyStateObservers(newState)
    }
  }

  @inlinable
  func emit(_ event: R.Event, reactor: R) {
    guard !storage.pointee.isStopped else { return }
    if storage.pointee.isReducing {
      storage.pointee.pending.append(.event(event))
      return
    }
    if storage.pointee.isBusy {
      notifyEventObservers(event)
      return
    }
    storage.pointee.isBusy = true
    notifyEventObservers(event)
    if storage.pointee.pendingHead < storage.pointee.pending.count { drain(reactor) }
    storage.pointee.isBusy = false
  }

  // MARK: Observation

  @inlinable
  func observeState(
    reactor: R,
    _ deliver: @escaping @MainActor (R.State) -> Bool
  ) -> ObservationFlag {
    if !storage.pointee.isStarted { start(reactor) }
    let observer = Observer(deliver: deliver)
    storage.pointee.stateObservers.append(observer)
    if !observer.deliver(currentState(of: reactor)) { observer.flag.deactivate() }
    return observer.flag
  }

  @usableFromInline
  func observeEvents(
    reactor: R,
    _ deliver: @escaping @MainActor (R.Event) -> Bool
  ) -> ObservationFlag {
    if !storage.pointee.isStarted { start(reactor) }
    let observer = Observer(deliver: deliver)
    storage.pointee.eventObservers.append(observer)
    let buffered = storage.pointee.bufferedEvents
    storage.pointee.bufferedEvents.removeAll()
    for event in buffered where observer.flag.isActive {
      if !observer.deliver(event) { observer.flag.deactivate() }
    }
    return observer.flag
  }

  /// A token that ends the observation behind `flag`: delivery stops at once, the entry is
  /// removed on the main actor soon after.
  @usableFromInline
  func token(for flag: ObservationFlag) -> ObservationToken {
    ObservationToken { [weak self] in
      flag.deactivate()
      Task { @MainActor in self?.purgeObservers() }
    }
  }

  @usableFromInline
  func purgeObservers() {
    storage.pointee.stateObservers.removeAll { !$0.flag.isActive }
    storage.pointee.eventObservers.removeAll { !$0.flag.isActive }
  }

  @inlinable
  func notifyStateObservers(_ state: R.State) {
    // A copy: observers may add or remove observers while they are notified.
    let observers = storage.pointee.stateObservers
    var needsPurge = false
    for observer in observers {
      guard observer.flag.isActive else {
        needsPurge = true
        continue
      }
      if !observer.deliver(state) {
        observer.flag.deactivate()
        needsPurge = true
      }
    }
    if needsPurge { purgeObservers() }
  }

  @usableFromInline
  func notifyEventObservers(_ event: R.Event) {
    let observers = storage.pointee.eventObservers
    var delivered = false
    for observer in observers where observer.flag.isActive {
      if observer.deliver(event) {
        delivered = true
      } else {
        observer.flag.deactivate()
      }
    }
    purgeObservers()
    if !delivered {
      if storage.pointee.bufferedEvents.count == Self.eventBufferLimit {
        storage.pointee.bufferedEvents.removeFirst()
      }
      storage.pointee.bufferedEvents.append(event)
    }
  }

  // MARK: Effects

  @inlinable
  func performSynchronously(_ effect: Effect, reactor: R) {
    switch effect.operation {
    case .none:
      break
    case .mutation(let mutation):
      deliver(mutation, reactor: reactor)
    case .mutations(let mutations):
      for mutation in mutations { deliver(mutation, reactor: reactor) }
    case .event(let event):
      emit(event, reactor: reactor)
    case .concat(let effects), .merge(let effects):
      for effect in effects { performSynchronously(effect, reactor: reactor) }
    case .catching(let effect, _):
      performSynchronously(effect, reactor: reactor)
    case .identified(let effect, let id, let cancelInFlight):
      if cancelInFlight { cancelEffects(id: id) }
      performSynchronously(effect, reactor: reactor)
    case .cancel(let id):
      cancelEffects(id: id)
    case .run:
      assertionFailure("an asynchronous effect was classified as synchronous")
    }
  }

  /// Starts `effect` in a task of its own. The task starts immediately, on the main actor, so
  /// everything up to the effect's first suspension happens before this returns.
  @inlinable
  @discardableResult
  func start(
    _ effect: Effect,
    key: AnyHashable?,
    parent: EffectHandle?,
    group: MergeGroup?,
    reactor: R
  ) -> EffectHandle {
    let handle = register(key: key, parent: parent)
    let context = EffectContext(reactor: reactor, handle: handle)
    let isTopLevel = parent == nil
    handle.task = Task.immediate { @MainActor in
      defer { context.finish(parent: parent) }
      do {
        try await context.perform(effect)
      } catch {
        if let group {
          group.fail(with: error)  // the merge rethrows the first error of its parts
        } else if isTopLevel {
          context.report(error)
        } else {
          throw error  // an identified part: the effect around it handles it
        }
      }
    }
    return handle
  }

  @usableFromInline
  func register(key: AnyHashable?, parent: EffectHandle?) -> EffectHandle {
    let handle = EffectHandle(serial: storage.pointee.nextEffectSerial, key: key)
    storage.pointee.nextEffectSerial += 1
    storage.pointee.effects[handle.serial] = handle
    parent?.adopt(handle)
    return handle
  }

  @usableFromInline
  func finished(_ handle: EffectHandle) {
    storage.pointee.effects[handle.serial] = nil
    if storage.pointee.effects.isEmpty, !storage.pointee.idleWaiters.isEmpty {
      let waiters = storage.pointee.idleWaiters
      storage.pointee.idleWaiters.removeAll()
      for waiter in waiters { waiter.resume() }
    }
  }

  @usableFromInline
  func cancelEffects(id: AnyHashable) {
    for handle in storage.pointee.effects.values where handle.key == id { handle.cancel() }
  }

  // MARK: Stub

  func enableStub(reactor: R) -> ReactorStub<R> {
    if let stub = storage.pointee.stub { return stub }
    let stub = ReactorStub<R>(runtime: self, state: currentState(of: reactor))
    storage.pointee.stub = stub
    cancelEverything()
    return stub
  }

  func setStubState(_ state: R.State) {
    storage.pointee.transformedState = state
    notifyStateObservers(state)
  }

  func emitStubEvent(_ event: R.Event) {
    notifyEventObservers(event)
  }
}
