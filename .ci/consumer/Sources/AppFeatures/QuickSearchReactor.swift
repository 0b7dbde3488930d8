import TrellisCore

/// A reactor of the app's own: a search field whose query is looked up a moment after the
/// user stops typing (a debounce on an injected clock), the latest query winning.
@MainActor
public final class QuickSearchReactor: ReactorProtocol {
  /// What the user does.
  public enum Action: Sendable {
    /// Typed in the field: its whole text.
    case type(String)
    /// Tapped "Clear".
    case clear
  }

  /// State changes.
  public enum Mutation: Sendable {
    /// The field's text.
    case setQuery(String)
    /// The results of the last search.
    case setResults([String])
  }

  /// What the screen shows.
  public struct State: Sendable, Equatable {
    /// The field's text.
    public var query = ""
    /// The results of the last search.
    public var results: [String] = []
  }

  /// The identity of the search in flight: a new one cancels it.
  enum CancelID { case search }

  /// Nothing typed.
  public let initialState = State()
  /// The runtime.
  public let runtime = ReactorRuntime<QuickSearchReactor>()
  private let search: @Sendable (String) async throws -> [String]
  private let clock: any Clock<Duration>

  /// Creates the reactor; `clock` times the pause (a `TestClock` in tests), `search` looks a
  /// query up.
  public init(
    clock: any Clock<Duration> = ContinuousClock(),
    search: @escaping @Sendable (String) async throws -> [String]
  ) {
    self.clock = clock
    self.search = search
  }

  /// Types and clears; searches after a pause.
  public func mutate(action: Action) -> Effect {
    switch action {
    case .type(let query):
      let (clock, search) = (clock, search)
      return .concat(
        .just(.setQuery(query)),
        .run { emit in
          try await clock.sleep(for: .milliseconds(300))
          emit(.setResults(try await search(query)))
        }
        .cancellable(id: CancelID.search, cancelInFlight: true))
    case .clear:
      return .concat(.cancel(id: CancelID.search), .just(.setQuery("")), .just(.setResults([])))
    }
  }

  /// Applies a mutation.
  public func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setQuery(let query): state.query = query
    case .setResults(let results): state.results = results
    }
    return state
  }
}
