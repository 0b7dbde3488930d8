/// Performs one asynchronous effect for a runtime.
///
/// It reaches the reactor (and through it the runtime) weakly, so an effect in flight never
/// keeps its reactor alive; once the reactor is gone, or the effect's handle is cancelled,
/// deliveries stop.
@MainActor
@usableFromInline
final class EffectContext<R: ReactorProtocol> {
  @usableFromInline typealias Effect = ReactorEffect<R>

  @usableFromInline weak var reactor: R?
  @usableFromInline let handle: EffectHandle

  @usableFromInline
  init(reactor: R, handle: EffectHandle) {
    self.reactor = reactor
    self.handle = handle
  }

  @inlinable
  var isCancelled: Bool {
    handle.isCancelled || reactor == nil
  }

  @inlinable
  func deliver(_ mutation: R.Mutation) {
    guard !handle.isCancelled, let reactor else { return }
    reactor.runtime.deliver(mutation, reactor: reactor)
  }

  @inlinable
  func emit(_ event: R.Event) {
    guard !handle.isCancelled, let reactor else { return }
    reactor.runtime.emit(event, reactor: reactor)
  }

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
      guard !isCancelled else { return }
      try await operation(
        EffectSender(
          deliverMutation: { self.deliver($0) },
          deliverEvent: { self.emit($0) },
          cancelled: { self.isCancelled }))
    case .concat(let effects):
      for effect in effects {
        guard !isCancelled else { return }
        try await perform(effect)
      }
    case .merge(let effects):
      try await performMerged(effects)
    case .catching(let effect, let handler):
      do {
        try await perform(effect)
      } catch {
        guard !isCancelled, !(error is CancellationError) else { throw error }
        try await perform(handler(error))
      }
    case .identified(let effect, let id, let cancelInFlight):
      guard let reactor, !handle.isCancelled else { return }
      let runtime = reactor.runtime
      if cancelInFlight { runtime.cancelEffects(id: id) }
      let child = runtime.start(effect, key: id, parent: handle, group: nil, reactor: reactor)
      let result = await child.task?.result
      // A part cancelled by its identity ends quietly; the effect around it goes on.
      if case .failure(let error) = result, !child.isCancelled { throw error }
    case .cancel(let id):
      reactor?.runtime.cancelEffects(id: id)
    }
  }

  @usableFromInline
  func performMerged(_ effects: [Effect]) async throws {
    guard let reactor, !handle.isCancelled else { return }
    let runtime = reactor.runtime
    let group = MergeGroup()
    for effect in effects where group.firstError == nil {
      group.parts.append(
        runtime.start(effect, key: nil, parent: handle, group: group, reactor: reactor))
    }
    for part in group.parts { _ = await part.task?.result }
    if let error = group.firstError { throw error }
  }

  /// Called when the effect's task ends, whatever the outcome.
  @usableFromInline
  func finish(parent: EffectHandle?) {
    parent?.release(handle)
    reactor?.runtime.finished(handle)
  }

  /// Called with the error of a top-level effect that nothing caught.
  @usableFromInline
  func report(_ error: any Error) {
    guard !isCancelled, !(error is CancellationError) else { return }
    let reactorName = reactor.map { String(describing: type(of: $0)) } ?? "\(R.self)"
    let logger = reactor?.logger ?? Logger(category: reactorName)
    logger.error("Unhandled error in an effect of \(reactorName): \(error)")
  }
}
