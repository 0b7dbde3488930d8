import Foundation

/// The machinery behind a ``ReactorProtocol``: the state, the action queue, the observers and
/// the effects in flight. A reactor stores one, naming its own type:
///
/// ```swift
/// let runtime = ReactorRuntime<CounterViewReactor>()
/// ```
///
/// (`ReactorRuntime<Self>()` does not compile in a final class's stored property initializer.)
/// The reactor uses it through the protocol's methods (`send`, `observe`, `currentState`,
/// `stop`).
///
/// The runtime holds no reference to its reactor: tasks and observers reach the reactor
/// weakly, so releasing the reactor releases the runtime, which cancels everything in flight.
///
/// Its code is split by concern: the queue and delivery (`ReactorRuntime+Queue.swift`),
/// observers (`+Observers`), effects (`+Effects`) and stub mode (`+Stub`).
///
/// ## What is `@inlinable`, and why
///
/// The runtime is generic over the client's reactor type. A generic function the client's
/// module cannot see the body of runs unspecialized (through metadata and witness tables), and
/// on this path that costs many times the work itself. So what runs for every action, mutation
/// and observer is `@inlinable`: sending and processing (`send`, `process`, `deliver`,
/// `reduce`, `show`, `emit`), performing synchronous effects, starting, finishing and
/// delivering from asynchronous ones (`startEffect`, `register`, `finished`, `EffectHandle`),
/// notifying state observers, and the public API over them (`send`, `observe`, the
/// `ReactorEffect` builders). What runs once per reactor, observer or cancellation, or only
/// when work was queued re-entrantly, is `@usableFromInline` only, out of line: `drain`,
/// starting and stopping, adding observers and their first delivery, event observers,
/// cancelling by identity, idle waiting, error reports, traces, stubs and transforms.
/// Measured with `swift run -c release ReactorBenchmark --runs 5` (three runs each, medians,
/// side by side on one machine): with nothing inlinable, sync 23 -> 595 ns per action, fanout
/// 167 -> 1,280 ns, effect-task 665 -> 1,825 ns; with only the effect machinery out of line,
/// effect-task 665 -> 1,065 ns; with only the observers out of line, sync 23 -> 68 ns and
/// fanout 167 -> 337 ns. (SwiftPM builds without library evolution, so clients are rebuilt
/// with the package anyway; in a binary framework these bodies would be part of its ABI.)
///
/// ## Why `@exclusivity(unchecked)`
///
/// A class's stored `var` pays a dynamic exclusivity check on every access, which was most of
/// the cost of an action. The runtime's mutable properties opt out of it. The invariant that
/// makes this safe: the runtime is `@MainActor`, so one thread at a time touches them; and no
/// access to them spans a call into reactor, observer or effect code (values are read into
/// locals before `mutate`, `reduce` or an observer runs, and written after it returns), so a
/// re-entrant `send` from such code never overlaps another access.
@MainActor
public final class ReactorRuntime<R: ReactorProtocol> {
  @usableFromInline typealias Effect = ReactorEffect<R>

  /// Work waiting for the runtime to be free, in arrival order.
  @usableFromInline
  enum Pending {
    case action(R.Action)
    case mutation(R.Mutation)
    case event(R.Event)
    /// A state from a stream merged in `transform(state:)`.
    case state(R.State)
    /// The first delivery to an observer registered while the runtime was busy.
    case firstDelivery(Observer<R.State>)
  }

  // MARK: State

  /// What observers saw last; `nil` until the reactor starts (and in stub mode until the
  /// stub sets it). `currentState` reads it.
  @exclusivity(unchecked) @usableFromInline var state: R.State?
  /// Whether `transform(state:)` maps or merges, so observers may see other states than the
  /// ones `reduce` returns.
  @exclusivity(unchecked) @usableFromInline var foldsReducedState = false

  // MARK: Processing

  @exclusivity(unchecked) @usableFromInline var isStarted = false
  @exclusivity(unchecked) @usableFromInline var isStopped = false
  /// Processing an action (or a delivery); new work waits in `pending`.
  @exclusivity(unchecked) @usableFromInline var isProcessing = false
  /// Inside `reduce` or the observers it notifies (a narrower window than `isProcessing`); new
  /// mutations wait in `pending` too.
  @exclusivity(unchecked) @usableFromInline var isReducing = false
  @exclusivity(unchecked) @usableFromInline var pending: [Pending] = []
  @exclusivity(unchecked) @usableFromInline var pendingHead = 0

  // MARK: Observers

  @exclusivity(unchecked) @usableFromInline var stateObservers: [Observer<R.State>] = []
  @exclusivity(unchecked) @usableFromInline var eventObservers: [Observer<R.Event>] = []
  /// How many notification loops are running (nested when an observer sends): observers are
  /// only removed from the lists when none is, so a loop can walk the list without retaining
  /// each entry.
  @exclusivity(unchecked) @usableFromInline var notificationDepth = 0
  /// An observer was cancelled during a notification loop: the lists are compacted when the
  /// last loop ends.
  @exclusivity(unchecked) @usableFromInline var hasObserversToRemove = false

  // MARK: Effects

  /// Effects in flight, in slots reused through `freeSlots`.
  @exclusivity(unchecked) @usableFromInline var effects: [EffectHandle<R>?] = []
  @exclusivity(unchecked) @usableFromInline var freeSlots: [Int] = []
  /// Tasks in flight (effects and their internal parts): idle when it reaches 0.
  @exclusivity(unchecked) @usableFromInline var taskCount = 0
  /// Counts the actions processed: each effect carries the number of the action that made it,
  /// so "latest wins" (`cancelInFlight`) follows the order of the sends even where an effect's
  /// parts start after later sends (below iOS 26).
  @exclusivity(unchecked) @usableFromInline var actionSequence: UInt64 = 0
  /// Effects in flight as the user wrote them (see `runningEffectCount`).
  @exclusivity(unchecked) @usableFromInline var countedEffects = 0

  // MARK: Seldom used

  /// What only some reactors need (transform hooks, merged sources, buffered events, idle
  /// waiters, stub mode), allocated the first time one of them is: a reactor that uses none
  /// stays small.
  @exclusivity(unchecked) @usableFromInline var extras: Extras?

  /// The seldom-used part of the runtime's state.
  @MainActor
  @usableFromInline
  final class Extras {
    /// The last state `reduce` produced, kept when it may differ from ``state``: what the
    /// next `reduce` folds when ``foldsReducedState``.
    @exclusivity(unchecked) @usableFromInline var reducedState: R.State?
    @exclusivity(unchecked) @usableFromInline var actionTransform:
      ReactorStream<R.Action>.Transform?
    @exclusivity(unchecked) @usableFromInline var mutationTransform:
      ReactorStream<R.Mutation>.Transform?
    @exclusivity(unchecked) @usableFromInline var stateTransform: ReactorStream<R.State>.Transform?
    @exclusivity(unchecked) var sourceTasks: [Task<Void, Never>] = []
    @exclusivity(unchecked) @usableFromInline var bufferedEvents: [R.Event] = []
    @exclusivity(unchecked) @usableFromInline var idleWaiters: [CheckedContinuation<Void, Never>] =
      []
    @exclusivity(unchecked) @usableFromInline var stub: ReactorStub<R>?
    /// Told of each action an effect sends (`emit.action`): how a tester sees them.
    @exclusivity(unchecked) var effectActionObservers: [Observer<R.Action>] = []
    /// The state as the `Observation` module sees it, once something has read it.
    @exclusivity(unchecked) @usableFromInline var observedState: ObservedState<R>?
    /// The trace, when the reactor's type is traced (``ReactorTrace``).
    @exclusivity(unchecked) @usableFromInline var tracer: ReactorTracer<R>?

    @usableFromInline init() {}
  }

  /// ``extras``, allocated if needed, for writing.
  @usableFromInline
  var ensuredExtras: Extras {
    if let extras { return extras }
    let created = Extras()
    extras = created
    return created
  }

  @inlinable var actionTransform: ReactorStream<R.Action>.Transform? { extras?.actionTransform }
  @inlinable var mutationTransform: ReactorStream<R.Mutation>.Transform? {
    extras?.mutationTransform
  }
  @inlinable var stateTransform: ReactorStream<R.State>.Transform? { extras?.stateTransform }
  @inlinable var stub: ReactorStub<R>? { extras?.stub }

  /// The observable view of the state, made on first use.
  func observedState(of reactor: R) -> ObservedState<R> {
    if let observed = extras?.observedState { return observed }
    if !isStarted { start(reactor) }
    let observed = ObservedState<R>(currentState(of: reactor))
    ensuredExtras.observedState = observed
    return observed
  }

  /// Events emitted while nobody observes are kept for the next observer, up to this many.
  @usableFromInline static var eventBufferLimit: Int { 64 }

  /// Creates an idle runtime; it starts on the reactor's first `send` or `observe`.
  public init() {}

  // Not an `isolated deinit`, whose back-deployment below iOS 26 and macOS 26 goes through a
  // runtime shim (swiftlang/swift#85663). What the teardown needs is read into locals (the
  // handles and the extras are main-actor objects, so Sendable); a main-actor object is released
  // on the main thread almost always, and there the teardown runs at once; released elsewhere,
  // it runs on the main actor's next turn.
  deinit {
    let effects = effects
    let extras = extras
    let teardown = { @MainActor in
      for handle in effects { handle?.cancel() }
      for task in extras?.sourceTasks ?? [] { task.cancel() }
      for waiter in extras?.idleWaiters ?? [] { waiter.resume() }
    }
    if Thread.isMainThread {
      MainActor.assumeIsolated { teardown() }
    } else {
      Task { @MainActor in teardown() }
    }
  }

  // MARK: Reading state

  @inlinable
  func currentState(of reactor: R) -> R.State {
    state ?? reactor.initialState
  }

  // MARK: Starting and stopping

  /// Runs the `transform` hooks and starts the merged sources (once).
  @usableFromInline
  func start(_ reactor: R) {
    guard !isStarted else { return }
    isStarted = true
    let initial = reactor.initialState
    let actions = reactor.transform(action: ReactorStream())
    let mutations = reactor.transform(mutation: ReactorStream())
    let states = reactor.transform(state: ReactorStream())
    if actions.transform != nil || mutations.transform != nil || states.transform != nil {
      let extras = ensuredExtras
      extras.actionTransform = actions.transform
      extras.mutationTransform = mutations.transform
      extras.stateTransform = states.transform
    }
    if ReactorTrace.isEnabled(for: R.self) { installTracer(reactor) }
    foldsReducedState = states.transform != nil || !states.sources.isEmpty
    if foldsReducedState { ensuredExtras.reducedState = initial }
    // In stub mode the stub's state stands; otherwise observers start from the initial state
    // as the state stream shows it.
    guard stub == nil else { return }
    state = states.transform.map { $0(initial) ?? initial } ?? initial

    startSources(actions.sources, reactor: reactor) { runtime, reactor, action in
      runtime.extras?.tracer?.action(action)
      runtime.send(action, reactor: reactor, transformed: true)
    }
    startSources(mutations.sources, reactor: reactor) { runtime, reactor, mutation in
      runtime.extras?.tracer?.mutation(mutation)
      runtime.deliver(mutation, reactor: reactor, transformed: true)
    }
    startSources(states.sources, reactor: reactor) { runtime, reactor, state in
      runtime.deliverMerged(state, reactor: reactor)
    }
  }

  /// Traces actions and mutations through the transform hooks (before the reactor's own) and
  /// states where they are shown: a reactor that is not traced runs none of this.
  private func installTracer(_ reactor: R) {
    let tracer = ReactorTracer<R>(logger: reactor.logger, initialState: reactor.initialState)
    let extras = ensuredExtras
    extras.tracer = tracer
    let actionTransform = extras.actionTransform
    extras.actionTransform = { action in
      tracer.action(action)
      return actionTransform.map { $0(action) } ?? action
    }
    let mutationTransform = extras.mutationTransform
    extras.mutationTransform = { mutation in
      tracer.mutation(mutation)
      return mutationTransform.map { $0(mutation) } ?? mutation
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
        guard let self, let reactor, !self.isStopped else { return }
        guard let element = transform.map({ $0(element) }) ?? element else { return }
        deliver(self, reactor, element)
      }
      // An error that ends a source goes to the reactor's own logger.
      let report: @MainActor (any Error) -> Void = { [weak reactor] error in
        let name = "\(R.self)"
        (reactor?.logger ?? Logger(category: name)).error(
          "A stream merged into \(name) ended with an error: \(error)")
      }
      let iterate = source.iterate
      ensuredExtras.sourceTasks.append(Task { await iterate(emit, report) })
    }
  }

  func stop() {
    guard !isStopped else { return }
    isStopped = true
    cancelEverything()
    pending.removeAll()
    pendingHead = 0
  }

  func cancelEverything() {
    for handle in effects { handle?.cancel() }
    for task in extras?.sourceTasks ?? [] { task.cancel() }
    extras?.sourceTasks.removeAll()
  }
}
