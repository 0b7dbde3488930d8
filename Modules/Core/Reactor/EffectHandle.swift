/// One effect in flight: its task, its identity, the identified or merged parts it started,
/// and how it reaches its reactor to deliver what it emits.
///
/// It reaches the reactor (and through it the runtime) weakly, so an effect in flight never
/// keeps its reactor alive. Cancelling a handle sets its flag before anything else, and every
/// delivery checks the flag, so a cancelled effect delivers nothing even if its operation
/// ignores cancellation.
///
/// Its mutable properties are main-actor only and never accessed across a call out, hence
/// `@exclusivity(unchecked)` (see `ReactorRuntime`).
@MainActor
@usableFromInline
final class EffectHandle<R: ReactorProtocol> {
  @usableFromInline typealias Effect = ReactorEffect<R>

  /// Weak: an effect in flight never keeps its reactor alive. Written only in `init`.
  @exclusivity(unchecked) @usableFromInline weak var reactor: R?
  /// Its index in the runtime's `effects`.
  @usableFromInline let slot: Int
  @usableFromInline let key: AnyHashable?
  /// Whether it counts in `runningEffectCount`: effects as the user wrote them, not the
  /// runtime's wrappers (a `merge`'s own task, an identified part's inner task).
  @usableFromInline let counts: Bool
  /// The number of the action that made the effect (see `ReactorRuntime.actionSequence`).
  @usableFromInline let sequence: UInt64
  @exclusivity(unchecked) @usableFromInline private(set) var isCancelled = false
  @exclusivity(unchecked) @usableFromInline var task: Task<Void, any Error>? {
    didSet { if isCancelled { task?.cancel() } }
  }
  @exclusivity(unchecked) @usableFromInline var children: [EffectHandle] = []

  @inlinable
  init(reactor: R, slot: Int, key: AnyHashable?, counts: Bool, sequence: UInt64) {
    self.reactor = reactor
    self.slot = slot
    self.key = key
    self.counts = counts
    self.sequence = sequence
  }

  // MARK: Cancelling

  @usableFromInline
  func cancel() {
    guard !isCancelled else { return }
    isCancelled = true
    task?.cancel()
    for child in children { child.cancel() }
  }

  @inlinable
  func adopt(_ child: EffectHandle) {
    children.append(child)
    if isCancelled { child.cancel() }
  }

  @inlinable
  func release(_ child: EffectHandle) {
    if let index = children.firstIndex(where: { $0 === child }) { children.remove(at: index) }
  }

  /// Whether deliveries stop: cancelled, or the reactor is gone.
  @inlinable
  var isFinished: Bool {
    isCancelled || reactor == nil
  }

  // MARK: Delivering

  @inlinable
  func deliver(_ mutation: R.Mutation) {
    guard !isCancelled, let reactor else { return }
    reactor.runtime.deliver(mutation, reactor: reactor)
  }

  @inlinable
  func emit(_ event: R.Event) {
    guard !isCancelled, let reactor else { return }
    reactor.runtime.emit(event, reactor: reactor)
  }

  @usableFromInline
  func sendAction(_ action: R.Action) {
    guard !isCancelled, let reactor else { return }
    reactor.runtime.announceEffectAction(action)
    reactor.send(action)
  }

  // MARK: Performing

  @inlinable
  func perform(_ effect: Effect) async throws {
    switch effect.operation {
    case .none:
      return
    case .mutation(let mutation):
      deliver(mutation)
    case .mutations(let mutations):
      for mutation in mutations { deliver(mutation) }
    case .event(let event):
      emit(event)
    case .run(let operation):
      // (A released reactor cancels its effects; delivering checks the reactor anyway.)
      guard !isCancelled else { return }
      try await operation(EffectSender(handle: self))
    case .concat(let effects):
      for effect in effects {
        guard !isFinished else { return }
        try await perform(effect)
      }
    case .merge(let effects):
      try await performMerged(effects)
    case .catching(let effect, let handler):
      do {
        try await perform(effect)
      } catch {
        // Cancellation is not an error; a `CancellationError` thrown by work nobody cancelled
        // is one, and goes to the handler like any other.
        guard !isFinished else { throw error }
        try await perform(handler(error))
      }
    case .identified(let identity):
      guard let reactor, !isCancelled else { return }
      let runtime = reactor.runtime
      if identity.cancelInFlight, !runtime.takeOver(id: identity.id, sequence: sequence) {
        return  // a later send's effect with this identity already runs: it wins
      }
      let child = runtime.startEffect(
        identity.effect, key: identity.id, parent: self, group: nil, reactor: reactor)
      let result = await child.task?.result
      // A part cancelled by its identity ends quietly; the effect around it goes on.
      if case .failure(let error) = result, !child.isCancelled { throw error }
    case .cancel(let id):
      reactor?.runtime.cancelEffects(id: id.value)
    }
  }

  @usableFromInline
  func performMerged(_ effects: [Effect]) async throws {
    guard let reactor, !isCancelled else { return }
    let runtime = reactor.runtime
    let group = MergeGroup<R>()
    for effect in effects where group.firstError == nil {
      group.parts.append(
        runtime.startEffect(effect, key: nil, parent: self, group: group, reactor: reactor))
    }
    for part in group.parts { _ = await part.task?.result }
    if let error = group.firstError { throw error }
  }

  /// Called with the error of a top-level effect that nothing caught: reported to the
  /// reactor's logger unless the effect was cancelled.
  @usableFromInline
  func report(_ error: any Error) {
    guard !isFinished else { return }
    let reactorName = "\(R.self)"
    let logger = reactor?.logger ?? Logger(category: reactorName)
    logger.error("Unhandled error in an effect of \(reactorName): \(error)")
  }
}

/// The parts of one `merge`: the first error wins and cancels the rest.
@MainActor
@usableFromInline
final class MergeGroup<R: ReactorProtocol> {
  @usableFromInline var parts: [EffectHandle<R>] = []
  @usableFromInline private(set) var firstError: (any Error)?

  @usableFromInline init() {}

  @usableFromInline
  func fail(with error: any Error) {
    guard firstError == nil else { return }
    firstError = error
    for part in parts { part.cancel() }
  }
}
