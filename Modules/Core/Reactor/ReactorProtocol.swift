/// A screen's logic in the MVI shape of ReactorKit: the view sends actions, `mutate` turns an
/// action into mutations (doing the async work), `reduce` folds each mutation into the state,
/// and the view renders the state.
///
/// ```swift
/// @MainActor
/// final class CounterViewReactor: ReactorProtocol {
///   enum Action { case increase }
///   enum Mutation { case increaseValue }
///   struct State: Equatable { var value = 0 }
///
///   let initialState = State()
///   let runtime = ReactorRuntime<CounterViewReactor>()
///
///   func mutate(action: Action) -> Effect {
///     switch action {
///     case .increase: .just(.increaseValue)
///     }
///   }
///
///   func reduce(state: State, mutation: Mutation) -> State {
///     var state = state
///     switch mutation {
///     case .increaseValue: state.value += 1
///     }
///     return state
///   }
/// }
/// ```
///
/// The rules the runtime guarantees (see `Modules/Core/README.md`):
/// - `reduce` runs on the main actor, one mutation at a time, and `currentState` is always the
///   result of the last one. Mutations an action emits synchronously are reduced before
///   ``send(_:)`` returns.
/// - An action sent while another is being processed (from `reduce`, `mutate` or an observer)
///   is queued and processed after it, in order; processing never recurses.
/// - Effects run in tasks the reactor owns; ``stop()`` or releasing the reactor cancels them,
///   and a cancelled effect delivers nothing.
///
/// The protocol is not named `Reactor` because that is the name of the layer module above Core;
/// a type named like a module breaks qualified names such as `Reactor.LoginViewReactor`.
@MainActor
public protocol ReactorProtocol: AnyObject {
  /// What the view (or anything else) asks for.
  associatedtype Action
  /// A change to the state, produced by `mutate` and applied by `reduce`.
  associatedtype Mutation
  /// Everything the view needs to render.
  associatedtype State
  /// One-shot outputs (toast, alert, navigation) that are not state. `Never` when unused.
  associatedtype Event = Never

  /// The state before any action.
  var initialState: State { get }

  /// The reactor's runtime storage, naming the reactor's own type:
  /// `let runtime = ReactorRuntime<CounterViewReactor>()`. (`ReactorRuntime<Self>()` does not
  /// compile in a final class's stored property initializer.)
  var runtime: ReactorRuntime<Self> { get }

  /// Where unhandled effect errors and dropped actions are reported. Defaults to a logger whose
  /// category is the reactor's type name.
  var logger: Logger { get }

  /// Turns an action into the effect that produces its mutations. The only place for side
  /// effects and async work.
  func mutate(action: Action) -> ReactorEffect<Self>

  /// Returns the state after `mutation`. Must be pure and synchronous.
  func reduce(state: State, mutation: Mutation) -> State

  /// Transforms the action stream once, when the reactor starts: map, filter, or merge in
  /// actions that do not come from the view.
  ///
  /// The closures given to the stream's operators live as long as the reactor: one that
  /// captures `self` strongly makes a cycle and the reactor is never released. Capture the
  /// services or values it needs instead (`let service = service` before the closure).
  func transform(action: ReactorStream<Action>) -> ReactorStream<Action>

  /// Transforms the mutation stream once, when the reactor starts: the place to merge a
  /// service's events (session expired, connection lost, server push). Do not capture `self`
  /// strongly in its closures (see ``transform(action:)``).
  func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation>

  /// Transforms the state stream once, when the reactor starts: map or observe states after
  /// `reduce`, before observers see them. Do not capture `self` strongly in its closures (see
  /// ``transform(action:)``).
  func transform(state: ReactorStream<State>) -> ReactorStream<State>
}

extension ReactorProtocol {
  /// The effect type `mutate(action:)` returns for this reactor.
  ///
  /// It is generic over the reactor rather than over `Mutation` and `Event` so that the
  /// compiler never needs `Event` to resolve it: a reactor without events (whose `Event`
  /// defaults to `Never`) can write `-> Effect` without declaring `Event`.
  public typealias Effect = ReactorEffect<Self>

  /// A logger named after the reactor's type.
  public var logger: Logger { Logger(category: String(describing: Self.self)) }

  /// Leaves the action stream as it is.
  public func transform(action: ReactorStream<Action>) -> ReactorStream<Action> { action }

  /// Leaves the mutation stream as it is.
  public func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation> {
    mutation
  }

  /// Leaves the state stream as it is.
  public func transform(state: ReactorStream<State>) -> ReactorStream<State> { state }
}
