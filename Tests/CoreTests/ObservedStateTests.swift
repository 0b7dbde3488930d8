import Observation
import Testing
import TrellisCore

/// A form with two independent fields, for the observation bridge.
@MainActor
final class FormReactor: ReactorProtocol {
  enum Action: Equatable {
    case setTitle(String)
    case setCount(Int)
  }
  enum Mutation {
    case title(String)
    case count(Int)
  }
  struct State: Equatable {
    var title = ""
    var count = 0
    var tags: [String] = []
  }

  let initialState = State()
  let runtime = ReactorRuntime<FormReactor>()
  private(set) var received: [Action] = []

  func mutate(action: Action) -> Effect {
    received.append(action)
    switch action {
    case .setTitle(let title): return .just(.title(title))
    case .setCount(let count): return .just(.count(count))
    }
  }

  func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .title(let title): state.title = title
    case .count(let count): state.count = count
    }
    return state
  }
}

/// Re-runs `read` inside observation tracking after every change, as a renderer does, and
/// counts the changes.
@MainActor
final class Renderer {
  private(set) var renders = 0
  private let read: @MainActor () -> Void

  init(_ read: @escaping @MainActor () -> Void) {
    self.read = read
    render()
  }

  private func render() {
    renders += 1
    withObservationTracking {
      read()
    } onChange: { [weak self] in
      MainActor.assumeIsolated { self?.render() }
    }
  }
}

@MainActor
@Suite("The state through Observation")
struct ObservedStateTests {
  @Test func aReadTracksExactlyThePropertyRead() {
    let reactor = FormReactor()
    var titles: [String] = []
    let renderer = Renderer { titles.append(reactor.state.title) }
    reactor.send(.setCount(3))  // not read: no render
    #expect(renderer.renders == 1)
    reactor.send(.setTitle("Hello"))
    #expect(renderer.renders == 2)
    #expect(titles == ["", "Hello"])
    reactor.send(.setTitle("Hello"))  // the same value: no render
    #expect(renderer.renders == 2)
  }

  @Test func tenObserversOfOnePropertyNeverRenderForAnother() {
    let reactor = FormReactor()
    let renderers = (0..<10).map { _ in Renderer { _ = reactor.state.title } }
    for count in 1...20 { reactor.send(.setCount(count)) }
    #expect(renderers.map(\.renders) == Array(repeating: 1, count: 10))
    reactor.send(.setTitle("x"))
    #expect(renderers.map(\.renders) == Array(repeating: 2, count: 10))
  }

  @Test func aBindingReadsTheStateAndSendsActionsWithoutWritingIt() {
    let reactor = FormReactor()
    let binding = reactor.binding(\.title, send: FormReactor.Action.setTitle)
    #expect(binding.value == "")
    binding.value = "Typed"
    #expect(reactor.received == [.setTitle("Typed")])
    #expect(binding.value == "Typed")  // because reduce applied the action
    let stubbed = FormReactor()
    let stub = stubbed.enableStub()
    let stubBinding = stubbed.binding(\.title, send: FormReactor.Action.setTitle)
    stubBinding.value = "Ignored"
    #expect(stub.actions == [.setTitle("Ignored")])
    #expect(stubBinding.value == "")  // the binding never wrote the state
  }

  @Test func stubModeDrivesTheSameObservation() {
    let reactor = FormReactor()
    let stub = reactor.enableStub()
    var titles: [String] = []
    let renderer = Renderer { titles.append(reactor.state.title) }
    stub.state.count = 5
    #expect(renderer.renders == 1)
    stub.state.title = "Stubbed"
    #expect(titles == ["", "Stubbed"])
  }

  @Test func observingThroughTheBridgeKeepsNoReactorAlive() {
    weak var weakReactor: FormReactor?
    var renderer: Renderer?
    do {
      let reactor = FormReactor()
      weakReactor = reactor
      let observed = reactor.state
      renderer = Renderer { _ = observed.title }
      reactor.send(.setTitle("a"))
      #expect(renderer?.renders == 2)
    }
    #expect(weakReactor == nil)
    #expect(renderer != nil)
  }
}
