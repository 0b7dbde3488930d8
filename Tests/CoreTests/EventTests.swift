import Testing
import TrellisCore

@MainActor
@Suite("One-shot events")
struct EventTests {
  private func reactorEmittingNotes() -> ScriptReactor {
    let reactor = ScriptReactor()
    reactor.effect = { .event(.note($0)) }
    return reactor
  }

  @Test func eachEmissionIsDeliveredOnceEvenWhenEqualToThePrevious() {
    let reactor = reactorEmittingNotes()
    var received: [ScriptReactor.Event] = []
    let token = reactor.observeEvents { received.append($0) }
    reactor.send("saved")
    reactor.send("saved")
    #expect(received == [.note("saved"), .note("saved")])
    token.cancel()
  }

  @Test func anEventIsNeverReplayedToALaterObserver() {
    let reactor = reactorEmittingNotes()
    var early: [ScriptReactor.Event] = []
    var late: [ScriptReactor.Event] = []
    let first = reactor.observeEvents { early.append($0) }
    reactor.send("toast")
    let second = reactor.observeEvents { late.append($0) }
    reactor.send("alert")
    #expect(early == [.note("toast"), .note("alert")])
    #expect(late == [.note("alert")])
    _ = (first, second)
  }

  @Test func eventsEmittedWithNoObserverGoOnceToTheNextObserver() {
    let reactor = reactorEmittingNotes()
    reactor.send("navigate")
    var first: [ScriptReactor.Event] = []
    var second: [ScriptReactor.Event] = []
    let tokens = [
      reactor.observeEvents { first.append($0) },
      reactor.observeEvents { second.append($0) },
    ]
    #expect(first == [.note("navigate")])
    #expect(second.isEmpty)
    _ = tokens
  }

  @Test func eventsAndStatesKeepTheirRelativeOrder() {
    let reactor = ScriptReactor()
    reactor.effect = { .concat(.just(.append($0)), .event(.note("after \($0)"))) }
    var timeline: [String] = []
    let tokens = [
      reactor.observe { timeline.append("state \($0.log)") },
      reactor.observeEvents { timeline.append("event \($0)") },
    ]
    reactor.send("x")
    #expect(timeline == ["state []", "state [\"x\"]", "event note(\"after x\")"])
    _ = tokens
  }
}

@MainActor
@Suite("Stub mode for view tests")
struct StubTests {
  @Test func aStubRecordsActionsAndDrivesStateWithoutRunningTheReactor() {
    let reactor = CounterReactor()
    let stub = reactor.enableStub()
    var rendered: [Int] = []
    let token = reactor.observe { rendered.append($0.count) }
    reactor.send(.increment)
    reactor.send(.add(3))
    #expect(stub.actions == [.increment, .add(3)])
    #expect(reactor.mutateLog.isEmpty)  // mutate did not run
    #expect(reactor.currentState.count == 0)  // nor did reduce
    stub.state.count = 42
    #expect(rendered == [0, 42])
    #expect(reactor.currentState.count == 42)
    #expect(reactor.isStubEnabled)
    token.cancel()
  }

  @Test func aStubEmitsEvents() {
    let reactor = ScriptReactor()
    let stub = reactor.enableStub()
    var received: [ScriptReactor.Event] = []
    let token = reactor.observeEvents { received.append($0) }
    stub.emit(.note("toast"))
    #expect(received == [.note("toast")])
    token.cancel()
  }
}
