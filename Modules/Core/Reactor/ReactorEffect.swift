/// What a reactor's `mutate(action:)` returns: the mutations (and one-shot events) an action
/// produces, now or over time. Inside a reactor it is spelled `Effect`
/// (`ReactorEffect<Self>`).
///
/// Effects are values; the reactor's runtime performs them on the main actor. Synchronous
/// parts (``just(_:)``, ``mutations(_:)``, the start of ``concat(_:)``) are reduced before
/// `send` returns; asynchronous parts run in a task owned by the reactor.
///
/// The seed's file upload, in Trellis:
///
/// ```swift
/// case .selectFileUpload(let file):
///   return .concat(
///     .just(.setIndicator(true)),
///     .task { .appendUploadedFile(try await fileService.upload(file)) },
///     .just(.setIndicator(false))
///   )
///   .catch { error in
///     .concat(.event(.alert(error.localizedDescription)), .just(.setIndicator(false)))
///   }
/// ```
public struct ReactorEffect<R: ReactorProtocol> {
  /// The reactor's mutation type.
  public typealias Mutation = R.Mutation
  /// The reactor's one-shot event type.
  public typealias Event = R.Event

  @usableFromInline
  enum Operation {
    case none
    case mutation(Mutation)
    case mutations([Mutation])
    case event(Event)
    case run(@MainActor (EffectSender<R>) async throws -> Void)
    case concat([ReactorEffect])
    case merge([ReactorEffect])
    indirect case catching(ReactorEffect, @MainActor (any Error) -> ReactorEffect)
    /// Boxed (a class reference) rather than `indirect`: it keeps the `AnyHashable`
    /// existential out of the enum's inline payload, so copying any effect stays cheap.
    case identified(Identity)
    case cancel(id: Identifier)
  }

  /// An identified effect: the effect, its identity, and whether it replaces one in flight.
  @usableFromInline
  final class Identity {
    @usableFromInline let effect: ReactorEffect
    @usableFromInline let id: AnyHashable
    @usableFromInline let cancelInFlight: Bool

    @usableFromInline
    init(effect: ReactorEffect, id: AnyHashable, cancelInFlight: Bool) {
      self.effect = effect
      self.id = id
      self.cancelInFlight = cancelInFlight
    }
  }

  /// An effect identity, boxed for the same reason.
  @usableFromInline
  final class Identifier {
    @usableFromInline let value: AnyHashable

    init(_ value: AnyHashable) {
      self.value = value
    }
  }

  @usableFromInline let operation: Operation
  /// Whether performing the effect never suspends; such effects skip task creation entirely.
  @usableFromInline let isSynchronous: Bool

  @inlinable
  init(_ operation: Operation, isSynchronous: Bool) {
    self.operation = operation
    self.isSynchronous = isSynchronous
  }

  /// Whether this is a `merge` (whose parts, not itself, count as running effects).
  @inlinable var isMerge: Bool {
    if case .merge = operation { return true }
    return false
  }

  init(combining effects: [ReactorEffect], concurrently: Bool) {
    self.init(
      concurrently ? .merge(effects) : .concat(effects),
      isSynchronous: effects.allSatisfy(\.isSynchronous))
  }

  // MARK: Building effects

  /// No mutation.
  @inlinable public static var none: Self { Self(.none, isSynchronous: true) }

  /// One mutation, reduced before `send` returns.
  @inlinable public static func just(_ mutation: Mutation) -> Self {
    Self(.mutation(mutation), isSynchronous: true)
  }

  /// Several mutations, reduced in order before `send` returns.
  @inlinable
  public static func mutations(_ mutations: Mutation...) -> Self {
    Self(.mutations(mutations), isSynchronous: true)
  }

  /// Several mutations, reduced in order before `send` returns.
  @inlinable
  public static func mutations(_ mutations: [Mutation]) -> Self {
    Self(.mutations(mutations), isSynchronous: true)
  }

  /// A one-shot event (toast, alert, navigation), delivered once to the event observers. See
  /// `observeEvents` on ``ReactorProtocol`` for the delivery rules.
  @inlinable public static func event(_ event: Event) -> Self {
    Self(.event(event), isSynchronous: true)
  }

  /// Asynchronous work that emits mutations and events over time through its ``EffectSender``
  /// (`.run { emit in ... emit(.setLoading(false)) }`), and ends when `operation` returns. A
  /// thrown error goes to the nearest ``catch(_:)``, or is logged.
  ///
  /// `operation` starts on the main actor, synchronously: whatever it emits before its first
  /// suspension is reduced before the `reactor.send` that started it returns (below iOS 26 and
  /// macOS 26, right after it: see `ImmediateTask`). Awaiting a service runs the service where
  /// it is isolated. Once the effect is cancelled, `emit` delivers nothing.
  public static func run(
    _ operation: @escaping @MainActor (EffectSender<R>) async throws -> Void
  ) -> Self {
    Self(.run(operation), isSynchronous: false)
  }

  /// Asynchronous work that produces one mutation: `.task { .setUser(try await api.me()) }`.
  public static func task(_ operation: @escaping @MainActor () async throws -> Mutation) -> Self {
    .run { emit in emit(try await operation()) }
  }

  /// Effects performed one after another: each starts when the previous one has finished.
  public static func concat(_ effects: ReactorEffect...) -> Self {
    Self(combining: effects, concurrently: false)
  }

  /// Effects performed one after another: each starts when the previous one has finished.
  public static func concat(_ effects: [ReactorEffect]) -> Self {
    Self(combining: effects, concurrently: false)
  }

  /// Effects performed at the same time; the merged effect ends when all have ended. The first
  /// error cancels the others.
  public static func merge(_ effects: ReactorEffect...) -> Self {
    Self(combining: effects, concurrently: true)
  }

  /// Effects performed at the same time; the merged effect ends when all have ended. The first
  /// error cancels the others.
  public static func merge(_ effects: [ReactorEffect]) -> Self {
    Self(combining: effects, concurrently: true)
  }

  /// Cancels every effect in flight with identity `id` (see ``cancellable(id:cancelInFlight:)``).
  public static func cancel(id: some Hashable) -> Self {
    Self(.cancel(id: Identifier(AnyHashable(id))), isSynchronous: true)
  }

  // MARK: Modifying effects

  /// Replaces a failure of this effect by the effect `handler` returns (RxSwift's `catch`):
  /// the rest of this effect is skipped, `handler`'s effect is performed instead.
  /// Cancellation is not an error: a cancelled effect never reaches `handler`.
  public func `catch`(_ handler: @escaping @MainActor (any Error) -> ReactorEffect) -> Self {
    Self(.catching(self, handler), isSynchronous: isSynchronous)
  }

  /// Gives this effect an identity so it can be cancelled with ``cancel(id:)`` or
  /// `cancelEffects(id:)`.
  ///
  /// With `cancelInFlight: true`, starting it first cancels any effect in flight with the same
  /// identity, so the latest one wins: a slow answer for the project chosen first can never
  /// overwrite the answer for the project chosen next.
  ///
  /// Any `Hashable` value is an identity, a main-actor type's too: an app target whose default
  /// isolation is the main actor (Xcode 26's new apps) makes its `enum CancelID` conform to
  /// `Hashable` on the main actor only, and that is enough. Identities are kept by the reactor's
  /// runtime and compared only there, on the main actor; they never cross to another isolation,
  /// so they need not be `Sendable`.
  public func cancellable(id: some Hashable, cancelInFlight: Bool = false) -> Self {
    Self(
      .identified(Identity(effect: self, id: AnyHashable(id), cancelInFlight: cancelInFlight)),
      isSynchronous: isSynchronous)
  }
}

/// Delivers mutations and events from a ``ReactorEffect/run(_:)`` operation to its reactor.
///
/// Call it like a function to emit a mutation: `emit(.setLoading(false))`. After the effect is
/// cancelled (or its reactor stopped or released) it delivers nothing.
///
/// Trellis names it `emit` (`.run { emit in ... }`), not TCA's `send`: it emits *mutations*
/// straight to `reduce`, and `reactor.send(_:)` is the one that sends *actions* to `mutate`.
/// To send an action from an effect, use ``action(_:)``: `emit.action(.selectProject(id))`.
@MainActor
public struct EffectSender<R: ReactorProtocol> {
  /// The reactor's mutation type.
  public typealias Mutation = R.Mutation
  /// The reactor's one-shot event type.
  public typealias Event = R.Event

  @usableFromInline let handle: EffectHandle<R>

  @usableFromInline
  init(handle: EffectHandle<R>) {
    self.handle = handle
  }

  /// Reduces `mutation` into the reactor's state now, unless the effect was cancelled.
  @inlinable
  public func callAsFunction(_ mutation: Mutation) {
    handle.deliver(mutation)
  }

  /// Emits a one-shot event, unless the effect was cancelled.
  @inlinable
  public func event(_ event: Event) {
    handle.emit(event)
  }

  /// Sends `action` to the reactor, as the user would, unless the effect was cancelled by the
  /// time of this call: how an effect chains work (load the projects, then select the first).
  /// Unlike capturing the reactor and calling `send` on it, nothing is sent once the effect is
  /// cancelled, and a ``ReactorProtocol/observeEffectActions(_:)`` observer (a tester) sees the
  /// action as it is sent (before `transform(action:)`, and before actions already queued are
  /// processed).
  public func action(_ action: R.Action) {
    handle.sendAction(action)
  }

  /// Whether the effect was cancelled (or its reactor is gone); long loops can stop early.
  @inlinable
  public var isCancelled: Bool {
    handle.isFinished
  }
}
