import Testing
import TrellisCore

@MainActor
@Suite("Serialized reduce and the re-entrancy queue")
struct ReduceAndQueueTests {
  @Test func currentStateIsTheInitialStateBeforeAnyAction() {
    let reactor = CounterReactor()
    #expect(reactor.currentState == CounterReactor.State())
  }

  /// "The current state first, then every new state, once": an observer added while an action
  /// is processed (here by another observer, between two mutations of one action) gets its
  /// first state when the action is over, and no state twice.
  @Test func anObserverAddedDuringAnActionGetsEachStateOnce() {
    let reactor = ScriptReactor()
    reactor.effect = { _ in .mutations(.append("1"), .append("2")) }
    var seen: [[String]] = []
    var late: ObservationToken?
    let first = reactor.observe { state in
      if state.log == ["1"], late == nil {
        late = reactor.observe { seen.append($0.log) }
      }
    }
    reactor.send("go")
    #expect(seen == [["1", "2"]])
    reactor.send("more")
    #expect(seen == [["1", "2"], ["1", "2", "1"], ["1", "2", "1", "2"]])
    first.cancel()
    late?.cancel()
  }

  @Test func synchronousMutationsAreReducedBeforeSendReturns() {
    let reactor = CounterReactor()
    reactor.send(.incrementTwice)
    #expect(reactor.currentState.count == 2)
    reactor.send(.add(40))
    #expect(reactor.currentState.count == 42)
  }

  @Test func anActionSentFromAnObserverIsQueuedAfterTheCurrentAction() {
    let reactor = CounterReactor()
    var log: [String] = []
    let token = reactor.observe { state in
      log.append("state \(state.count)")
      if state.count == 1 {
        reactor.send(.add(10))
        log.append("sent from observer")
      }
    }
    reactor.send(.incrementTwice)
    // The queued action runs after both mutations of the current one, never in the middle.
    #expect(log == ["state 0", "state 1", "sent from observer", "state 2", "state 12"])
    token.cancel()
  }

  @Test func anActionSentFromMutateIsQueued() {
    let reactor = CounterReactor()
    var states: [Int] = []
    let token = reactor.observe { states.append($0.count) }
    reactor.send(.incrementThenSend(.add(5)))
    #expect(reactor.mutateLog == [.incrementThenSend(.add(5)), .add(5)])
    #expect(states == [0, 1, 6])
    token.cancel()
  }

  @Test func anActionSentFromReduceIsQueuedAndReduceNeverRecurses() {
    let reactor = CounterReactor()
    var depth = 0
    var maximumDepth = 0
    var states: [Int] = []
    reactor.reduceHook = { [unowned reactor] state in
      depth += 1
      maximumDepth = max(maximumDepth, depth)
      if state.count == 1 { reactor.send(.add(100)) }
      depth -= 1
    }
    let token = reactor.observe { states.append($0.count) }
    reactor.send(.increment)
    #expect(states == [0, 1, 101])
    #expect(maximumDepth == 1)
    token.cancel()
  }

  @Test func queuedActionsKeepTheirOrder() {
    let reactor = CounterReactor()
    var sent = false
    let token = reactor.observe { state in
      guard state.count == 1, !sent else { return }
      sent = true
      for amount in [10, 100, 1000] { reactor.send(.add(amount)) }
    }
    reactor.send(.increment)
    #expect(reactor.mutateLog == [.increment, .add(10), .add(100), .add(1000)])
    #expect(reactor.currentState.count == 1111)
    token.cancel()
  }

  @Test func eightConcurrentSendersLoseNoAction() async {
    let reactor = CounterReactor()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<10_000 { await reactor.send(.increment) }
        }
      }
    }
    #expect(reactor.currentState.count == 80_000)
    #expect(reactor.mutateLog.count == 80_000)
  }
}
