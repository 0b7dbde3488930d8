import Testing
import TrellisCore
import TrellisCoreTesting

@MainActor
@Suite("transform hooks")
struct TransformTests {
  @Test func transformActionMapsAndFilters() {
    let reactor = ScriptReactor()
    reactor.actionTransform = { actions in
      actions.filter { $0 != "ignored" }.map { $0.uppercased() }
    }
    reactor.send("hello")
    reactor.send("ignored")
    #expect(reactor.mutated == ["HELLO"])
    #expect(reactor.currentState.log == ["HELLO"])
  }

  @Test func transformMutationMergesAServiceRelayForTheReactorsLifetime() async throws {
    let session = Relay("signed in")
    weak var weakReactor: ScriptReactor?
    do {
      let reactor = ScriptReactor()
      reactor.mutationTransform = { mutations in
        mutations.merge(session.changes) { .append("session \($0)") }
      }
      let tester = ReactorTester(reactor)
      #expect(session.subscriberCount == 1)  // subscribed when the reactor started
      session.send("expired")
      try await tester.expect { $0.log = ["session expired"] }
      tester.send("local")
      try await tester.expect { $0.log.append("local") }
      tester.isExhaustive = false
      try await tester.finish()
      weakReactor = reactor
    }
    #expect(weakReactor == nil)
    #expect(await eventually { session.subscriberCount == 0 })  // the merge ended with it
  }

  @Test func operatorsApplyOnlyToWhatIsUpstream() async throws {
    let events = Relay("")
    let reactor = ScriptReactor()
    reactor.mutationTransform = { mutations in
      mutations
        .map { mutation in
          guard case .append(let entry) = mutation else { return mutation }
          return .append("mapped \(entry)")
        }
        .merge(events.changes) { .append("merged \($0)") }
    }
    let tester = ReactorTester(reactor)
    tester.send("own")
    try await tester.expect { $0.log = ["mapped own"] }
    events.send("outside")
    try await tester.expect { $0.log.append("merged outside") }  // not mapped: merged after map
    tester.isExhaustive = false
    try await tester.finish()
  }

  @Test func transformActionCanMergeActionsThatDoNotComeFromTheView() async throws {
    let connection = Relay("online")
    let reactor = ScriptReactor()
    reactor.actionTransform = { actions in actions.merge(connection.changes) }
    let tester = ReactorTester(reactor)
    connection.send("offline")
    try await tester.expect { $0.log = ["offline"] }
    #expect(reactor.mutated == ["offline"])
    tester.isExhaustive = false
    try await tester.finish()
  }

  @Test func transformStateChangesWhatObserversAndCurrentStateSee() {
    let reactor = ScriptReactor()
    reactor.stateTransform = { states in
      states.map { state in
        var state = state
        state.log = state.log.map { $0.uppercased() }
        return state
      }
    }
    var seen: [[String]] = []
    let token = reactor.observe { seen.append($0.log) }
    reactor.send("a")
    reactor.send("b")
    #expect(seen == [[], ["A"], ["A", "B"]])
    #expect(reactor.currentState.log == ["A", "B"])
    token.cancel()
  }

  @Test func onEachSeesEveryElement() {
    var actions: [String] = []
    let reactor = ScriptReactor()
    reactor.actionTransform = { $0.onEach { actions.append($0) } }
    reactor.send("one")
    reactor.send("two")
    #expect(actions == ["one", "two"])
  }
}
