import Testing
import TrellisCore
import TrellisCoreTesting

/// A counter whose state stream a test can merge another stream into.
@MainActor
final class MergedStateReactor: ReactorProtocol {
  enum Action { case increment }
  enum Mutation { case increment }
  struct State: Equatable { var count = 0 }

  let initialState = State()
  let runtime = ReactorRuntime<MergedStateReactor>()
  let outside: Relay<Int>?
  let doubles: Bool

  init(merging outside: Relay<Int>? = nil, doubles: Bool = false) {
    self.outside = outside
    self.doubles = doubles
  }

  func mutate(action: Action) -> Effect { .just(.increment) }

  func reduce(state: State, mutation: Mutation) -> State {
    State(count: state.count + 1)
  }

  func transform(state: ReactorStream<State>) -> ReactorStream<State> {
    var stream = state
    if doubles { stream = stream.map { State(count: $0.count * 2) } }
    if let outside { stream = stream.merge(outside.changes) { State(count: $0) } }
    return stream
  }
}

@MainActor
@Suite("The runtime's guarantees on every path")
struct GuaranteeTests {
  @Test func anActionSentDuringTheFirstDeliveryIsQueuedNotRecursed() {
    let reactor = CounterReactor()
    var rendered: [Int] = []
    let token = reactor.observe { state in
      if state.count == 0 { reactor.send(.increment) }  // during the initial delivery
      rendered.append(state.count)
    }
    defer { token.cancel() }
    // Queued: the first delivery completes (0) before the action runs (1).
    #expect(rendered == [0, 1])
    #expect(rendered.last == reactor.currentState.count)
  }

  @Test func aMergedStateIsDeliveredInTurnWithTheQueueDrainedAfterIt() async throws {
    let outside = Relay(0)
    let reactor = MergedStateReactor(merging: outside)
    var first: [Int] = []
    var second: [Int] = []
    let tokenA = reactor.observe { state in
      first.append(state.count)
      if state.count == 100 { reactor.send(.increment) }
    }
    let tokenB = reactor.observe { second.append($0.count) }
    defer {
      tokenA.cancel()
      tokenB.cancel()
    }
    outside.send(100)
    #expect(await eventually { second.count == 3 })
    // The action sent while 100 was being delivered waits until every observer has it.
    #expect(second == [0, 100, 1])
    #expect(first == [0, 100, 1])
  }

  @Test func currentStateIsAlwaysTheLastStateObserversSaw() async throws {
    let outside = Relay(0)
    let reactor = MergedStateReactor(merging: outside)
    var seen: [Int] = []
    let token = reactor.observe { seen.append($0.count) }
    defer { token.cancel() }
    outside.send(50)
    #expect(await eventually { seen.last == 50 })
    #expect(reactor.currentState.count == 50)
    reactor.send(.increment)
    #expect(seen.last == 1)
    #expect(reactor.currentState.count == 1)  // not frozen at the merged 50
    var late: [Int] = []
    let lateToken = reactor.observe { late.append($0.count) }
    defer { lateToken.cancel() }
    #expect(late == [1])
  }

  @Test func aStubStateSetBeforeTheFirstObservationIsWhatObserversSee() {
    let reactor = MergedStateReactor(doubles: true)
    let stub = reactor.enableStub()
    stub.state = MergedStateReactor.State(count: 7)
    var seen: [Int] = []
    let token = reactor.observe { seen.append($0.count) }
    defer { token.cancel() }
    #expect(seen == [7])
    #expect(reactor.currentState.count == 7)
  }

  @Test func runningEffectsAreCountedAsTheUserWroteThem() async throws {
    let gate = Gate<String>()
    let reactor = ScriptReactor()
    reactor.effect = { name in
      switch name {
      case "identified":
        .run { emit in emit(.append(try await gate.wait("a"))) }.cancellable(id: "a")
      default:
        .merge(
          .run { emit in emit(.append(try await gate.wait("b"))) },
          .run { emit in emit(.append(try await gate.wait("c"))) })
      }
    }
    reactor.send("identified")
    await gate.arrived("a")
    #expect(reactor.runningEffectCount == 1)
    reactor.send("merged")
    await gate.arrived("b")
    await gate.arrived("c")
    #expect(reactor.runningEffectCount == 3)
    let tester = ReactorTester(reactor, timeout: .milliseconds(50))
    await #expect {
      try await tester.finish()
    } throws: { error in
      "\(error)".contains("3 effect(s) still running")
    }
  }

  @Test func aCancellationErrorNobodyAskedForIsReportedLikeAnyError() async throws {
    let sink = MemoryLogSink()
    let reactor = ScriptReactor(
      logger: Logger(category: "ScriptReactor", sink: sink, minimumLevel: .trace))
    reactor.effect = { _ in .run { _ in throw CancellationError() } }
    reactor.send("go")
    await reactor.waitUntilIdle()
    #expect(
      sink.messages.contains { $0.contains("Unhandled error") && $0.contains("Cancellation") })
  }

  @Test func anErrorEndingAMergedSourceGoesToTheReactorsLogger() async throws {
    struct Broken: Error {}
    let sink = MemoryLogSink()
    let reactor = ScriptReactor(
      logger: Logger(category: "ScriptReactor", sink: sink, minimumLevel: .trace))
    let (failing, continuation) = AsyncThrowingStream<ScriptReactor.Mutation, any Error>
      .makeStream()
    reactor.mutationTransform = { $0.merge(failing) }
    let token = reactor.observe { _ in }
    defer { token.cancel() }
    continuation.finish(throwing: Broken())
    #expect(await eventually { sink.messages.contains { $0.contains("ended with an error") } })
  }
}
