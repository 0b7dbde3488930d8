import Testing
import TrellisCore
import TrellisCoreTesting

/// Resumes its waiter only when told, ignoring task cancellation: models a service call that
/// does not honour cancellation, to show that cancellation alone stops delivery.
@MainActor
final class StubbornCall {
  private var continuation: CheckedContinuation<String, Never>?
  private(set) var isWaiting = false

  func wait() async -> String {
    await withCheckedContinuation {
      continuation = $0
      isWaiting = true
    }
  }

  func finish(with value: String) {
    continuation?.resume(returning: value)
    continuation = nil
  }
}

@MainActor
@Suite("Cancellation, stop and release")
struct CancellationTests {
  @Test(.startsEffectsWithinSend) func theLatestProjectWinsAndTheStaleAnswerNeverLands()
    async throws
  {
    let gate = Gate<[String]>()
    let tester = ReactorTester(ProjectFormReactor(gate: gate))
    tester.send(.selectProject("A"))
    tester.send(.selectProject("B"))
    try await tester.expect { $0.project = "A" }
    try await tester.expect { $0.project = "B" }
    await gate.arrived("A")
    await gate.arrived("B")
    await gate.open("B", with: ["b-1", "b-2"])
    try await tester.expect { $0.milestones = ["b-1", "b-2"] }
    await gate.open("A", with: ["a-1"])  // too late: A's request was cancelled
    try await tester.finish()
    #expect(tester.reactor.currentState.milestones == ["b-1", "b-2"])
  }

  @Test func withoutLatestWinsTheStaleAnswerWouldOverwrite() async throws {
    // The control for the test above: the race is real when nothing cancels.
    let gate = Gate<[String]>()
    let tester = ReactorTester(ProjectFormReactor(gate: gate, latestWins: false))
    tester.send(.selectProject("A"))
    tester.send(.selectProject("B"))
    try await tester.expect { $0.project = "A" }
    try await tester.expect { $0.project = "B" }
    await gate.arrived("A")
    await gate.arrived("B")
    await gate.open("B", with: ["b-1"])
    try await tester.expect { $0.milestones = ["b-1"] }
    await gate.open("A", with: ["a-1"])
    try await tester.expect { $0.milestones = ["a-1"] }
    try await tester.finish()
  }

  @Test(.startsEffectsWithinSend) func aCancelledEffectDeliversNothingEvenIfItsWorkCompletes()
    async throws
  {
    let call = StubbornCall()
    let reactor = ScriptReactor()
    reactor.effect = { _ in
      ReactorEffect.task { .append(await call.wait()) }.cancellable(id: "load")
    }
    let tester = ReactorTester(reactor)
    tester.send("load")
    #expect(call.isWaiting)
    reactor.cancelEffects(id: "load")
    call.finish(with: "stale")
    await reactor.waitUntilIdle()
    #expect(reactor.currentState.log.isEmpty)
    try await tester.finish()
  }

  @Test func cancelEffectCancelsByIdentity() async throws {
    let gate = Gate<String>()
    let reactor = ScriptReactor()
    reactor.effect = { action in
      switch action {
      case "load":
        ReactorEffect.task { .append(try await gate.wait("load")) }.cancellable(id: "load")
      case "other": .task { .append(try await gate.wait("other")) }
      default: .cancel(id: "load")
      }
    }
    let tester = ReactorTester(reactor)
    tester.send("load")
    tester.send("other")
    await gate.arrived("load")
    await gate.arrived("other")
    tester.send("cancel")
    await gate.open("other", with: "other")
    try await tester.expect { $0.log = ["other"] }
    try await tester.finish()
  }

  @Test func stopCancelsEverythingAndIgnoresLaterActions() async {
    let call = StubbornCall()
    let reactor = ScriptReactor()
    reactor.effect = { action in
      action == "slow" ? .task { .append(await call.wait()) } : .just(.append(action))
    }
    reactor.send("slow")
    #expect(reactor.runningEffectCount == 1)
    reactor.stop()
    call.finish(with: "late")
    await reactor.waitUntilIdle()
    reactor.send("after stop")
    #expect(reactor.currentState.log.isEmpty)
    #expect(reactor.isStopped)
    #expect(reactor.runningEffectCount == 0)
  }

  @Test func releasingAReactorCancelsItsEffectsAndFreesIt() async {
    let gate = Gate<String>()
    let ended = Relay(false)
    weak var weakReactor: ScriptReactor?
    do {
      let reactor = ScriptReactor()
      reactor.effect = { _ in
        .run { emit in
          defer { ended.send(true) }
          emit(.append(try await gate.wait("never")))
        }
      }
      reactor.send("go")
      weakReactor = reactor
      await gate.arrived("never")
    }
    #expect(weakReactor == nil)
    // The effect's task was cancelled, so it ends instead of waiting forever.
    for await hasEnded in ended.values where hasEnded { break }
  }

  @Test func aStoppedReactorIsReleasedEvenWhenItsEffectCapturedIt() async {
    let call = StubbornCall()
    weak var weakReactor: ScriptReactor?
    do {
      let reactor = ScriptReactor()
      reactor.effect = { [unowned reactor] _ in
        .run { [reactor] emit in
          _ = reactor.currentState  // the effect's closure holds the reactor strongly
          emit(.append(await call.wait()))
        }
      }
      reactor.send("go")
      weakReactor = reactor
      reactor.stop()
    }
    call.finish(with: "done")
    #expect(await eventually { weakReactor == nil })
  }
}

/// A reactor as an Xcode 26 app target writes it (default isolation: the main actor): its
/// effect identity's `Hashable` conformance is isolated to the main actor, which the effect-id
/// APIs take, and which keeps their guarantees.
@MainActor
final class MainActorIDReactor: ReactorProtocol {
  /// Written `@MainActor Hashable`, as default main-actor isolation infers it.
  enum CancelID: @MainActor Hashable { case search, other }
  enum Action: Sendable {
    case search(String)
    case stopSearching
  }
  enum Mutation: Sendable { case setResult(String) }
  struct State: Sendable, Equatable { var result = "" }
  let initialState = State()
  let runtime = ReactorRuntime<MainActorIDReactor>()
  let gate: Gate<String>
  init(gate: Gate<String>) { self.gate = gate }

  func mutate(action: Action) -> Effect {
    switch action {
    case .search(let text):
      let gate = gate
      return .run { emit in emit(.setResult(try await gate.wait(text))) }
        .cancellable(id: CancelID.search, cancelInFlight: true)
    case .stopSearching:
      return .cancel(id: CancelID.search)
    }
  }

  func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    if case .setResult(let result) = mutation { state.result = result }
    return state
  }
}

@MainActor
@Suite("Effect identities of a main-actor type")
struct MainActorEffectIDTests {
  @Test(.startsEffectsWithinSend) func theLatestWinsAndCancelStopsIt() async throws {
    let gate = Gate<String>()
    let tester = ReactorTester(MainActorIDReactor(gate: gate))
    tester.send(.search("a"))
    tester.send(.search("ab"))
    await gate.arrived("a")
    await gate.arrived("ab")
    await gate.open("ab", with: "results for ab")
    try await tester.expect { $0.result = "results for ab" }
    await gate.open("a", with: "results for a")  // cancelled by the second search
    tester.send(.search("abc"))
    await gate.arrived("abc")
    tester.send(.stopSearching)
    await gate.open("abc", with: "results for abc")  // cancelled by .cancel(id:)
    tester.send(.search("x"))
    await gate.arrived("x")
    tester.reactor.cancelEffects(id: MainActorIDReactor.CancelID.search)
    await gate.open("x", with: "results for x")
    try await tester.finish()
    #expect(tester.reactor.currentState.result == "results for ab")
  }
}
