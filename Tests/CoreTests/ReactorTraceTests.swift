import Testing
import TrellisCore

/// A sign-in form: its password must never reach a trace.
@MainActor
private final class TracedSignInReactor: ReactorProtocol {
  enum Action: Sendable {
    case setUsername(String)
    case setPassword(String)
    case submit
  }
  enum Mutation: Sendable {
    case setUsername(String)
    case setPassword(String)
    case setSubmitting(Bool)
  }
  struct State: Sendable, Equatable {
    var username = ""
    var password = ""
    var isSubmitting = false
  }
  let initialState = State()
  let runtime = ReactorRuntime<TracedSignInReactor>()
  let sink = MemoryLogSink()
  var logger: Logger { Logger(category: "TracedSignInReactor", sink: sink, minimumLevel: .trace) }

  func mutate(action: Action) -> Effect {
    switch action {
    case .setUsername(let name): .just(.setUsername(name))
    case .setPassword(let password): .just(.setPassword(password))
    case .submit: .just(.setSubmitting(true))
    }
  }

  func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setUsername(let name): state.username = name
    case .setPassword(let password): state.password = password
    case .setSubmitting(let isSubmitting): state.isSubmitting = isSubmitting
    }
    return state
  }
}

/// The same reactor, never traced.
@MainActor
private final class UntracedCounterReactor: ReactorProtocol {
  enum Action: Sendable { case increment }
  struct State: Sendable, Equatable { var count = 0 }
  let initialState = State()
  let runtime = ReactorRuntime<UntracedCounterReactor>()
  let sink = MemoryLogSink()
  var logger: Logger {
    Logger(category: "UntracedCounterReactor", sink: sink, minimumLevel: .trace)
  }
  func mutate(action: Action) -> Effect { .just(action) }
  func reduce(state: State, mutation: Action) -> State { State(count: state.count + 1) }
}

@MainActor
@Suite("Reactor traces")
struct ReactorTraceTests {
  @Test func aTracedReactorLogsActionsMutationsAndStateChangesWithoutItsSecrets() {
    ReactorTrace.enable(["TracedSignInReactor"])
    let reactor = TracedSignInReactor()
    reactor.send(.setUsername("alice"))
    reactor.send(.setPassword("hunter2-secret"))
    reactor.send(.submit)
    let lines = reactor.sink.records.map(\.message)
    #expect(
      lines == [
        #"action setUsername("alice")"#,
        #"mutation setUsername("alice")"#,
        #"state username: "" -> "alice""#,
        "action setPassword(<redacted>)",
        "mutation setPassword(<redacted>)",
        "state password: <redacted> (changed)",
        "action submit",
        "mutation setSubmitting(true)",
        "state isSubmitting: false -> true",
      ])
    #expect(!lines.joined().contains("hunter2"))
  }

  /// A name asked for that no reactor that started carries is reported, with the types that
  /// did start (what the app prints for a misspelt `--trace`).
  @Test func aNameThatMatchesNoReactorIsReported() {
    ReactorTrace.enable(["TracedSignInReactr"])
    defer { ReactorTrace.disable(["TracedSignInReactr"]) }
    let reactor = UntracedCounterReactor()
    reactor.send(.increment)
    let report = ReactorTrace.namesThatMatchedNothing()
    #expect(report.unmatched.contains("TracedSignInReactr"))
    #expect(report.started.contains("UntracedCounterReactor"))
  }

  @Test func aReactorNotTracedWritesNothing() {
    let reactor = UntracedCounterReactor()
    reactor.send(.increment)
    #expect(reactor.currentState.count == 1)
    #expect(reactor.sink.records.isEmpty)
  }

  @Test func valuesAreDescribedCompactlyWithSecretsRedactedAtAnyDepth() {
    struct Account {
      var user: String
      var apiKey: String
    }
    struct Form {
      var name: String
      var account: Account
      var tags: [Int]
    }
    let form = Form(name: "x", account: Account(user: "u", apiKey: "k-123"), tags: Array(1...10))
    let text = ReactorTrace.describe(form)
    #expect(text.contains(#"name: "x""#))
    #expect(text.contains("apiKey: <redacted>"))
    #expect(!text.contains("k-123"))
    #expect(text.contains("… 10 in all"))
    #expect(ReactorTrace.describe(String(repeating: "a", count: 500)).count <= 120)
    #expect(
      ReactorTrace.changes(from: form, to: form).isEmpty
        && ReactorTrace.changes(
          from: form, to: Form(name: "y", account: form.account, tags: form.tags))
          == [#"name: "x" -> "y""#]
    )
  }
}
