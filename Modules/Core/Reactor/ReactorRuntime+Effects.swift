/// Effects: synchronous ones performed inline, asynchronous ones in tasks the runtime owns
/// (kept in slots, cancelled by identity, on `stop()` and with the reactor).
extension ReactorRuntime {
  /// The number of effects in flight as the user wrote them: `.run {}.cancellable(id:)` is
  /// one, `.merge(.run {}, .run {})` two.
  var runningEffectCount: Int { countedEffects }

  func waitUntilIdle() async {
    guard taskCount > 0 else { return }
    await withCheckedContinuation { ensuredExtras.idleWaiters.append($0) }
  }

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
    case .identified(let identity):
      if identity.cancelInFlight { cancelEffects(id: identity.id) }
      performSynchronously(identity.effect, reactor: reactor)
    case .cancel(let id):
      cancelEffects(id: id.value)
    case .run:
      assertionFailure("an asynchronous effect was classified as synchronous")
    }
  }

  /// Starts `effect` in a task of its own. The task starts immediately, on the main actor, so
  /// everything up to the effect's first suspension happens before this returns (below iOS 26
  /// and macOS 26, right after: see `ImmediateTask`).
  @inlinable
  @discardableResult
  func startEffect(
    _ effect: Effect, key: AnyHashable?, parent: EffectHandle<R>?, group: MergeGroup<R>?,
    reactor: R
  ) -> EffectHandle<R> {
    // Counted as written: not a merge's own task (its parts count), not an identified
    // part's inner task (the effect around it counts).
    let isIdentifiedPart = parent != nil && group == nil
    let counts = !isIdentifiedPart && !effect.isMerge
    let handle = register(
      key: key, counts: counts, sequence: parent?.sequence ?? actionSequence, reactor: reactor)
    parent?.adopt(handle)
    let isTopLevel = parent == nil
    // The task reaches the runtime through the handle's weak reference to the reactor: an
    // effect in flight must not keep them (and so the cancellation their release performs)
    // alive.
    handle.task = ImmediateTask.start { @MainActor in
      defer { handle.reactor?.runtime.finished(handle, parent: parent) }
      // Cancelled before its task started (which can happen below iOS 26, where the task starts
      // after this returns): none of it runs.
      if handle.isCancelled { return }
      do {
        // The common case, a plain `.run`, skips `perform`'s (large) async frame.
        if case .run(let operation) = effect.operation {
          if !handle.isCancelled { try await operation(EffectSender(handle: handle)) }
        } else {
          try await handle.perform(effect)
        }
      } catch {
        if let group {
          group.fail(with: error)  // the merge rethrows the first error of its parts
        } else if isTopLevel {
          handle.report(error)
        } else {
          throw error  // an identified part: the effect around it handles it
        }
      }
    }
    return handle
  }

  @inlinable
  func register(
    key: AnyHashable?, counts: Bool, sequence: UInt64, reactor: R
  ) -> EffectHandle<R> {
    let slot = freeSlots.popLast() ?? effects.count
    let handle = EffectHandle(
      reactor: reactor, slot: slot, key: key, counts: counts, sequence: sequence)
    if slot == effects.count { effects.append(handle) } else { effects[slot] = handle }
    taskCount += 1
    if counts { countedEffects += 1 }
    return handle
  }

  @inlinable
  func finished(_ handle: EffectHandle<R>, parent: EffectHandle<R>?) {
    parent?.release(handle)
    effects[handle.slot] = nil
    freeSlots.append(handle.slot)
    taskCount -= 1
    if handle.counts { countedEffects -= 1 }
    if taskCount == 0, let extras, !extras.idleWaiters.isEmpty { resumeIdleWaiters() }
  }

  @usableFromInline
  func resumeIdleWaiters() {
    let waiters = extras?.idleWaiters ?? []
    extras?.idleWaiters.removeAll()
    for waiter in waiters { waiter.resume() }
  }

  @usableFromInline
  func cancelEffects(id: AnyHashable) {
    for case let handle? in effects where handle.key == id { handle.cancel() }
  }

  /// For an identified part with `cancelInFlight` made by action number `sequence`: cancels
  /// the effects with its identity made by earlier actions, and returns `false` (the part must
  /// not run) if one made by a later action is in flight: the latest send wins, whichever
  /// part started first.
  @usableFromInline
  func takeOver(id: AnyHashable, sequence: UInt64) -> Bool {
    var isNewest = true
    for case let handle? in effects where handle.key == id && !handle.isCancelled {
      if handle.sequence > sequence {
        isNewest = false
      } else {
        handle.cancel()
      }
    }
    return isNewest
  }
}
