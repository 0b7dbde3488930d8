import Testing
import TrellisCore
import TrellisCoreTesting

/// A reactor whose slow action waits for the test to release it.
@MainActor
final class LoaderReactor: ReactorProtocol {
  enum Action {
    case load
    case loadTwice
    case slow
    case toast
  }
  enum Mutation {
    case setLoading(Bool)
    case setValue(Int)
  }
  enum Event: Equatable { case toast(String) }
  struct State: Equatable {
    var isLoading = false
    var value = 0
  }

  let initialState = State()
  let runtime = ReactorRuntime<LoaderReactor>()
  private var release: CheckedContinuation<Void, Never>?

  func finishSlowWork() {
    release?.resume()
    release = nil
  }

  func mutate(action: Action) -> Effect {
    switch action {
    case .load: .mutations(.setLoading(true), .setValue(1), .setLoading(false))
    case .loadTwice: .mutations(.setValue(1), .setValue(2))
    case .slow:
      .run { [weak self] emit in
        await withCheckedContinuation { self?.release = $0 }
        emit(.setValue(99))
      }
    case .toast: .event(.toast("Saved"))
    }
  }

  func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setLoading(let isLoading): state.isLoading = isLoading
    case .setValue(let value): state.value = value
    }
    return state
  }
}

@MainActor
@Suite("ReactorTester")
struct ReactorTesterTests {
  @Test func passesWhenEveryStateAndEventIsAsserted() async throws {
    let tester = ReactorTester(LoaderReactor())
    tester.send(.load)
    try await tester.expect { $0.isLoading = true }
    try await tester.expect(
      LoaderReactor.State(isLoading: true, value: 1),
      LoaderReactor.State(isLoading: false, value: 1))
    tester.send(.toast)
    try await tester.expectEvents(.toast("Saved"))
    try await tester.finish()
  }

  @Test func sendAssertsTheNextStateInTheSameCall() async throws {
    let tester = ReactorTester(LoaderReactor())
    try await tester.send(.loadTwice) { $0.value = 1 }
    try await tester.expect { $0.value = 2 }
    let failure = await #expect(throws: ReactorTestFailure.self) {
      try await tester.send(.loadTwice) { $0.value = 5 }
    }
    #expect(failure?.message.contains("State 1 differs") == true)
    #expect(failure?.location.fileID.hasSuffix("ReactorTesterTests.swift") == true)
    tester.isExhaustive = false
    try await tester.finish()
  }

  @Test func failsOnADifferentStateAndShowsTheDifference() async throws {
    let tester = ReactorTester(LoaderReactor())
    tester.send(.load)
    let failure = await #expect(throws: ReactorTestFailure.self) {
      try await tester.expect { $0.isLoading = false }
    }
    #expect(failure?.message.contains("- ") == true)
    #expect(failure?.message.contains("+ ") == true)
    #expect(failure?.message.contains("isLoading: true") == true)
    #expect(failure?.location.fileID.hasSuffix("ReactorTesterTests.swift") == true)
    tester.skipOutputs()  // the failed expectation took one state; two more came
    try await tester.finish()
  }

  @Test func failsAfterTheTimeoutWhenNothingArrives() async throws {
    let tester = ReactorTester(LoaderReactor(), timeout: .milliseconds(50))
    let failure = await #expect(throws: ReactorTestFailure.self) {
      try await tester.expect { $0.value = 1 }
    }
    #expect(failure?.message.contains("Timed out") == true)
  }

  @Test func finishFailsOnUnassertedStates() async throws {
    let tester = ReactorTester(LoaderReactor())
    tester.send(.loadTwice)
    try await tester.expect { $0.value = 1 }
    let failure = await #expect(throws: ReactorTestFailure.self) { try await tester.finish() }
    #expect(failure?.message.contains("1 output(s) were not asserted") == true)
  }

  @Test func finishFailsOnUnassertedEvents() async throws {
    let tester = ReactorTester(LoaderReactor())
    tester.send(.toast)
    await #expect(throws: ReactorTestFailure.self) { try await tester.finish() }
  }

  @Test func finishFailsWhileEffectsAreStillRunning() async throws {
    let tester = ReactorTester(LoaderReactor(), timeout: .milliseconds(50))
    tester.send(.slow)
    let failure = await #expect(throws: ReactorTestFailure.self) { try await tester.finish() }
    #expect(failure?.message.contains("still running") == true)
  }

  @Test func finishWaitsForEffectsThatEndInTime() async throws {
    let reactor = LoaderReactor()
    let tester = ReactorTester(reactor)
    tester.send(.slow)
    Task { @MainActor in reactor.finishSlowWork() }
    try await tester.expect { $0.value = 99 }
    try await tester.finish()
  }

  @Test func nonExhaustiveFinishIgnoresLeftoversAndCancelsEffects() async throws {
    let reactor = LoaderReactor()
    let tester = ReactorTester(reactor, timeout: .milliseconds(50))
    tester.send(.loadTwice)
    tester.send(.slow)
    tester.isExhaustive = false
    try await tester.finish()
    #expect(reactor.isStopped)
    reactor.finishSlowWork()
    await reactor.waitUntilIdle()
    #expect(reactor.currentState.value == 2)  // the cancelled effect delivered nothing
  }

  @Test func expectingAnEventWhenAStateCameFails() async throws {
    let tester = ReactorTester(LoaderReactor())
    tester.send(.loadTwice)
    let failure = await #expect(throws: ReactorTestFailure.self) {
      try await tester.expectEvents(.toast("Saved"))
    }
    #expect(failure?.message.contains("expected the event") == true)
    tester.skipOutputs()
    try await tester.finish()
  }

  /// States and events whose relative order nothing decides: every interleaving passes (the
  /// event first, last, between the states), each kind still checked in its own order.
  @Test(arguments: [0, 3, 5])
  func statesAndEventsInterleavedInAnyOrderPass(eventAfter statesBefore: Int) async throws {
    let tester = ReactorTester(LoaderReactor())
    if statesBefore == 0 { tester.send(.toast) }
    tester.send(.load)  // three states
    if statesBefore == 3 { tester.send(.toast) }
    tester.send(.loadTwice)  // two more
    if statesBefore == 5 { tester.send(.toast) }
    let loaded = LoaderReactor.State(isLoading: false, value: 1)
    try await tester.expect(
      states: [
        LoaderReactor.State(isLoading: true, value: 0),
        LoaderReactor.State(isLoading: true, value: 1),
        loaded, loaded, LoaderReactor.State(value: 2),
      ],
      interleavedWith: [.toast("Saved")])
    #expect(tester.lastAssertedState.value == 2)
    try await tester.finish()
  }

  /// A wrong state, a wrong event and a wrong count of each kind fail, each saying which.
  @Test func interleavedOutputsThatDifferFail() async throws {
    let tester = ReactorTester(LoaderReactor())
    let loaded = LoaderReactor.State(value: 1)
    tester.send(.toast)
    tester.send(.loadTwice)
    let wrongState = await #expect(throws: ReactorTestFailure.self) {
      try await tester.expect(
        states: [LoaderReactor.State(value: 2), loaded], interleavedWith: [.toast("Saved")])
    }
    #expect(wrongState?.message.contains("State 1 differs") == true)
    tester.send(.toast)
    let wrongEvent = await #expect(throws: ReactorTestFailure.self) {
      try await tester.expect(states: [], interleavedWith: [.toast("Sent")])
    }
    #expect(wrongEvent?.message.contains("Event 1: expected") == true)
    tester.send(.toast)
    tester.send(.toast)
    let wrongCount = await #expect(throws: ReactorTestFailure.self) {
      try await tester.expect(states: [loaded], interleavedWith: [.toast("Saved")])
    }
    #expect(wrongCount?.message.contains("received 0 state(s) and 2 event(s)") == true)
    tester.skipOutputs()
    try await tester.finish()
  }

  @Test func skippedOutputsMoveTheStartingPoint() async throws {
    let tester = ReactorTester(LoaderReactor())
    tester.send(.loadTwice)
    try await tester.expect { $0.value = 1 }
    tester.skipOutputs()
    #expect(tester.lastAssertedState.value == 2)
    tester.send(.load)
    try await tester.expect {
      $0.isLoading = true
      $0.value = 2
    }
    tester.skipOutputs()
    try await tester.finish()
  }
}
