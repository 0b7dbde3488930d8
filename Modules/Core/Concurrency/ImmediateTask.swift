/// Starts the tasks of a reactor's effects.
///
/// `Task.immediate` (iOS 26, macOS 26) runs a task's first part at once, on the caller's main
/// actor, so an effect's work up to its first suspension happens before the `send` that started
/// it returns. Below those systems (and with ``Fallbacks/areForced``) the task is a main-actor
/// `Task` that the main actor starts after the current job. What that weakens, exactly: the
/// mutations and events an asynchronous effect (`.run`, `.task`, a `merge` or `concat` holding
/// one) emits before its first `await` arrive a moment later, after the code that sent the
/// action has returned, instead of before; their order among themselves, and among effects
/// started one after the other, is the same (the main actor runs its jobs in order); effects
/// made only of `.just`, `.event`, `.none` and `.cancel` are performed synchronously either way,
/// and so are the parts a `concat` starts with (also under `catch` and `cancellable`): the
/// runtime performs them before starting the task, so `.concat(.just(.setSaving(true)), .run
/// { ... })` is saving before `send` returns and a second send in the same turn sees it;
/// cancelling an effect before its task starts still stops it before its first line (of its
/// asynchronous rest: a concat's leading synchronous parts were performed at the send); and
/// `cancelInFlight` follows the order of the sends. One thing is weaker: a `.cancellable` nested
/// in a `concat`, `merge` or `catch` gets its identity when its part starts, so a
/// `cancelEffects(id:)` in the same turn as the send that made it does not reach it.
@usableFromInline
enum ImmediateTask {
  /// A task running `operation` on the main actor, started at once where the system can.
  @MainActor
  @usableFromInline
  static func start(
    _ operation: sending @escaping @MainActor () async throws -> Void
  ) -> Task<Void, any Error> {
    if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *), !Fallbacks.areForced {
      return Task.immediate(operation: operation)
    }
    return Task { @MainActor in try await operation() }
  }
}
