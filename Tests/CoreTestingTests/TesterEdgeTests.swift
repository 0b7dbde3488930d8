import Testing
import TrellisCore
import TrellisCoreTesting

/// A reactor whose `transform(state:)` stamps every state, the initial one included.
@MainActor
final class StampedReactor: ReactorProtocol {
  enum Action { case rename(String) }
  enum Mutation { case setName(String) }
  struct State: Equatable {
    var name = ""
    var stamped = false
  }
  let initialState = State()
  let runtime = ReactorRuntime<StampedReactor>()
  func mutate(action: Action) -> Effect {
    switch action {
    case .rename(let name): .just(.setName(name))
    }
  }
  func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    if case .setName(let name) = mutation { state.name = name }
    return state
  }
  func transform(state: ReactorStream<State>) -> ReactorStream<State> {
    state.map { state in
      var state = state
      state.stamped = true
      return state
    }
  }
}

/// A search box that waits for typing to pause (300 ms, on an injected clock) before it asks,
/// and chains its effects with actions.
@MainActor
final class SearchReactor: ReactorProtocol {
  enum Action: Equatable {
    case type(String)
    case search(String)
  }
  enum Mutation { case setResults([String]) }
  struct State: Equatable { var results: [String] = [] }
  enum Debounce: Hashable, Sendable { case id }
  let initialState = State()
  let runtime = ReactorRuntime<SearchReactor>()
  let clock: any Clock<Duration>
  init(clock: any Clock<Duration>) { self.clock = clock }

  func mutate(action: Action) -> Effect {
    switch action {
    case .type(let text):
      let clock = clock
      return ReactorEffect.run { emit in
        try await clock.sleep(for: .milliseconds(300))
        emit.action(.search(text))
      }
      .cancellable(id: Debounce.id, cancelInFlight: true)
    case .search(let text):
      return .just(.setResults([text.uppercased()]))
    }
  }
  func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    if case .setResults(let results) = mutation { state.results = results }
    return state
  }
}

@MainActor
@Suite("ReactorTester: its edges, the test clock, actions from effects")
struct TesterEdgeTests {
  /// The starting point is the first state the reactor delivers, after its `transform(state:)`:
  /// an `expect` that changes one field does not trip on another the transform set.
  @Test func theFirstStateIsTheOneDeliveredAfterTheTransform() async throws {
    let tester = ReactorTester(StampedReactor())
    tester.send(.rename("Ada"))
    try await tester.expect { $0.name = "Ada" }
    try await tester.finish()
  }

  /// A tester released without `finish()` while outputs are unasserted records an issue that
  /// names them, as TCA's TestStore does.
  @Test func aForgottenFinishFailsTheTestAndNamesWhatWasLeft() {
    withKnownIssue {
      let tester = ReactorTester(StampedReactor())
      tester.send(.rename("Left unasserted"))
      #expect(tester.reactor.currentState.name == "Left unasserted")
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("released without finish()") }
        && issue.comments.contains { $0.rawValue.contains("Left unasserted") }
    }
  }

  /// A debounce on a test clock: time moves only when the test moves it (299 ms in, the search
  /// still waits), only the last text is searched, and the action the effect sends is asserted
  /// like a state.
  @Test func aDebounceOnATestClockTakesNoRealTime() async throws {
    let clock = TestClock()
    let tester = ReactorTester(SearchReactor(clock: clock))
    tester.send(.type("a"))
    tester.send(.type("ab"))
    #expect(await eventually { clock.sleeperCount == 1 })  // "a" was cancelled; "ab" waits
    await clock.advance(by: .milliseconds(299))
    #expect(clock.sleeperCount == 1)  // still waiting
    await clock.advance(by: .milliseconds(1))
    try await tester.expectActions(.search("ab"))
    try await tester.expect { $0.results = ["AB"] }
    try await tester.finish()
  }

  /// An action an effect sends is not a state or an event: the interleaved check names it.
  @Test func anActionAmongInterleavedOutputsFails() async throws {
    let clock = TestClock()
    let tester = ReactorTester(SearchReactor(clock: clock))
    tester.send(.type("ab"))
    #expect(await eventually { clock.sleeperCount == 1 })
    await clock.advance(by: .milliseconds(300))
    let failure = await #expect(throws: ReactorTestFailure.self) {
      try await tester.expect(states: [SearchReactor.State(results: ["AB"])], interleavedWith: [])
    }
    #expect(
      failure?.message.contains("Output 1: expected a state or an event, received the action")
        == true, "\(failure?.message ?? "no failure")")
    tester.skipOutputs()
    try await tester.finish()
  }

  /// An action an effect sends is cancelled with the effect: none arrives after the cancel.
  @Test func anActionFromACancelledEffectIsNeverSent() async throws {
    let clock = TestClock()
    let reactor = SearchReactor(clock: clock)
    let tester = ReactorTester(reactor)
    tester.send(.type("gone"))
    #expect(await eventually { clock.sleeperCount == 1 })
    reactor.cancelEffects(id: SearchReactor.Debounce.id)
    await clock.advance(by: .seconds(1))
    try await tester.finish()
    #expect(reactor.currentState.results.isEmpty)
  }

  @Test func aTestClockSleepEndsWhenItsTaskIsCancelled() async {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
    #expect(await eventually { clock.sleeperCount == 1 })
    sleeper.cancel()
    let result = await sleeper.result
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(clock.sleeperCount == 0)
  }
}

@Suite("eventually: a bounded wait")
struct EventuallyTests {
  /// It returns as soon as another task makes the condition hold, and gives up at its deadline
  /// on one that never does (instead of hanging the test).
  @Test func itSeesAChangeAnotherTaskMakesAndGivesUpOnOneThatNeverComes() async {
    let flag = AtomicFlag(false)
    let setter = Task {
      await Task.yield()
      flag.set(true)
    }
    #expect(await eventually { flag.value })
    await setter.value
    #expect(await eventually(timeout: .milliseconds(20)) { false } == false)
  }
}
