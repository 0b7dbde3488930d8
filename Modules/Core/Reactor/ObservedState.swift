import Observation

/// A reactor's state as Swift's `Observation` module sees it: `reactor.state.title` reads the
/// current state's `title` and, inside `withObservationTracking` (or a SwiftUI view's `body`),
/// registers that property, and only that one. A view that reads `title` is invalidated when
/// `title` changes, not when another property does.
///
/// ```swift
/// // SwiftUI (Apple platforms)
/// struct ProfileView: View {
///   @State var reactor: ProfileViewReactor
///   var body: some View {
///     let bio = reactor.binding(\.bio, send: ProfileViewReactor.Action.setBio)
///     Form {
///       Text(reactor.state.displayName)  // re-renders when displayName changes
///       TextField("Bio", text: Binding(get: { bio.value }, set: { bio.value = $0 }))
///     }
///   }
/// }
/// ```
///
/// The state stays the reactor's: this is a read-only view of it (writes go through actions,
/// see ``ReactorProtocol/binding(_:send:)``). The terminal Front renders through the same
/// mechanism (`ReactorViewController`), so it is exercised by every view test.
///
/// It is made on the first read of `reactor.state`; until then the runtime does no work for
/// it. Afterwards, each new state is compared with the previous one for each property read so
/// far (with `==` when the property's type is `Equatable`; otherwise any new state counts as a
/// change of it), and only the properties that changed are reported. Observers are told after
/// the new state is in place.
@MainActor
@dynamicMemberLookup
public final class ObservedState<R: ReactorProtocol>: Observable {
  /// A property read at least once: its key path from this object (what the registrar
  /// tracks) and how to tell whether it changed between two states.
  private struct Tracked {
    var path: AnyKeyPath
    var notify: @MainActor (ObservedState) -> Void
    var changed: @MainActor (R.State, R.State) -> Bool
  }

  private let registrar = ObservationRegistrar()
  /// The state observers see now.
  private(set) var value: R.State
  private var tracked: [AnyKeyPath: Tracked] = [:]

  init(_ state: R.State) {
    value = state
  }

  /// The whole current state, tracked as a whole: any new state counts as a change. Prefer
  /// reading single properties (`state.title`), which invalidate only when they change.
  public var current: R.State {
    read(\.self) { _, _ in true }
  }

  /// One property of the current state, tracked on its own (compared with `==`).
  public subscript<Value: Equatable>(dynamicMember keyPath: KeyPath<R.State, Value>) -> Value {
    read(keyPath) { $0[keyPath: keyPath] != $1[keyPath: keyPath] }
  }

  /// One property of the current state, tracked on its own (any new state counts as a change,
  /// since the value cannot be compared).
  public subscript<Value>(dynamicMember keyPath: KeyPath<R.State, Value>) -> Value {
    read(keyPath) { _, _ in true }
  }

  /// Reads `keyPath`, registering it with the observation registrar.
  func read<Value>(
    _ keyPath: KeyPath<R.State, Value>, changed: @escaping @MainActor (R.State, R.State) -> Bool
  ) -> Value {
    let path: KeyPath<ObservedState, Value>
    if let known = tracked[keyPath]?.path as? KeyPath<ObservedState, Value> {
      path = known
    } else {
      path = (\ObservedState.value).appending(path: keyPath)
      tracked[keyPath] = Tracked(
        path: path,
        notify: { observed in observed.registrar.withMutation(of: observed, keyPath: path) {} },
        changed: changed)
    }
    registrar.access(self, keyPath: path)
    return value[keyPath: keyPath]
  }

  /// Takes `newState` and tells the observers of each property read so far that changed.
  @usableFromInline
  func update(_ newState: R.State) {
    let old = value
    value = newState
    for entry in tracked.values where entry.changed(old, newState) { entry.notify(self) }
  }
}

/// A two-way handle on one property of a reactor's state whose writes are actions: reading
/// gives the state's value (tracked, like ``ObservedState``), writing sends the action made
/// from the new value and never changes the state itself. One-way data flow with a binding's
/// convenience, as seed 003 asks of a SwiftUI MVI screen.
///
/// SwiftUI takes it as `Binding(get: { binding.value }, set: { binding.value = $0 })`; the
/// terminal Front's text fields take it directly.
@MainActor
public struct StateBinding<Value> {
  private let read: @MainActor () -> Value
  private let write: @MainActor (Value) -> Void

  /// Creates a binding from a getter and a setter.
  public init(get: @escaping @MainActor () -> Value, set: @escaping @MainActor (Value) -> Void) {
    read = get
    write = set
  }

  /// The state's value; setting it sends the action (the state changes only if `reduce` says
  /// so).
  public var value: Value {
    get { read() }
    nonmutating set { write(newValue) }
  }
}

extension ReactorProtocol {
  /// The reactor's state, observable property by property through the `Observation` module:
  /// `reactor.state.title`. See ``ObservedState``.
  public var state: ObservedState<Self> {
    runtime.observedState(of: self)
  }

  /// A binding to one property of the state whose writes send `action(newValue)`:
  /// `reactor.binding(\.title, send: Action.setTitle)`.
  public func binding<Value: Equatable>(
    _ keyPath: KeyPath<State, Value>, send action: @escaping (Value) -> Action
  ) -> StateBinding<Value> {
    let observed = state
    return StateBinding(
      get: { observed[dynamicMember: keyPath] },
      set: { [weak self] in self?.send(action($0)) })
  }
}
