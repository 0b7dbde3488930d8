import Testing
import TrellisCore

/// A stand-in for a view controller that owns its reactor and observes it by owner.
@MainActor
final class FakeView {
  let reactor: CounterReactor
  var rendered: [Int] = []
  var titles: [String] = []

  init(reactor: CounterReactor) {
    self.reactor = reactor
    reactor.observe(by: self) { view, state in view.rendered.append(state.count) }
    reactor.observe(\.title, by: self) { view, title in view.titles.append(title) }
  }
}

@MainActor
@Suite("State observation")
struct ObservationTests {
  @Test func everyObserverGetsTheCurrentStateFirstThenEachChange() {
    let reactor = CounterReactor()
    reactor.send(.add(5))
    var first: [Int] = []
    var second: [Int] = []
    let tokens = [
      reactor.observe { first.append($0.count) },
      reactor.observe { second.append($0.count) },
    ]
    reactor.send(.increment)
    #expect(first == [5, 6])
    #expect(second == [5, 6])
    _ = tokens
  }

  @Test func observingOneValueRemovesDuplicates() {
    let reactor = CounterReactor()
    var counts: [Int] = []
    var titles: [String] = []
    let tokens = [
      reactor.observe(\.count) { counts.append($0) },
      reactor.observe(\.title) { titles.append($0) },
    ]
    reactor.send(.increment)
    reactor.send(.add(0))  // a new state with an equal count
    reactor.send(.increment)
    #expect(counts == [0, 1, 2])
    #expect(titles == ["counter"])
    _ = tokens
  }

  @Test func observationEndsWhenItsTokenIsCancelledOrReleased() {
    let reactor = CounterReactor()
    var cancelled: [Int] = []
    var released: [Int] = []
    let token = reactor.observe { cancelled.append($0.count) }
    var held: ObservationToken? = reactor.observe { released.append($0.count) }
    reactor.send(.increment)
    token.cancel()
    held = nil
    reactor.send(.increment)
    #expect(cancelled == [0, 1])
    #expect(released == [0, 1])
    #expect(held == nil)
  }

  @Test func observationEndsWithItsBag() {
    let reactor = CounterReactor()
    var seen: [Int] = []
    var bag: ObservationBag? = ObservationBag()
    if let bag { reactor.observe { seen.append($0.count) }.store(in: bag) }
    reactor.send(.increment)
    bag = nil
    reactor.send(.increment)
    #expect(seen == [0, 1])
  }

  @Test func ownerObservationEndsWithTheOwnerAndLeavesNoCycle() {
    weak var weakView: FakeView?
    weak var weakReactor: CounterReactor?
    do {
      let reactor = CounterReactor()
      let view = FakeView(reactor: reactor)
      reactor.send(.increment)
      #expect(view.rendered == [0, 1])
      #expect(view.titles == ["counter"])
      weakView = view
      weakReactor = reactor
    }
    #expect(weakView == nil)
    #expect(weakReactor == nil)
  }

  @Test func anObserverCanEndItsOwnObservationWhileBeingNotified() {
    let reactor = CounterReactor()
    var seen: [Int] = []
    var token: ObservationToken?
    token = reactor.observe { state in
      seen.append(state.count)
      if state.count == 1 { token?.cancel() }
    }
    reactor.send(.increment)
    reactor.send(.increment)
    #expect(seen == [0, 1])
  }
}
