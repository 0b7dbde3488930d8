import Testing
import TrellisCore

/// A counter with every kind of effect, for the runtime tests.
@MainActor
final class CounterReactor: ReactorProtocol {
  indirect enum Action: Equatable, Sendable {
    case increment
    case add(Int)
    case incrementTwice
    case incrementThenSend(Action)
    case none
  }

  enum Mutation: Equatable, Sendable {
    case add(Int)
  }

  struct State: Equatable, Sendable {
    var count = 0
    var title = "counter"
  }

  let initialState = State()
  let runtime = ReactorRuntime<CounterReactor>()
  private(set) var mutateLog: [Action] = []
  var reduceHook: ((State) -> Void)?

  func mutate(action: Action) -> Effect {
    mutateLog.append(action)
    switch action {
    case .increment: return .just(.add(1))
    case .add(let amount): return .just(.add(amount))
    case .incrementTwice: return .mutations(.add(1), .add(1))
    case .incrementThenSend(let next):
      send(next)  // re-entrant: queued behind this action
      return .just(.add(1))
    case .none: return .none
    }
  }

  func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .add(let amount): state.count += amount
    }
    reduceHook?(state)
    return state
  }
}

/// Something went wrong in a fake service.
struct FakeError: Error, Equatable, CustomStringConvertible {
  var message = "boom"
  var description: String { message }
}

/// Answers requests when the test says so, so tests control the order in which async work
/// finishes without sleeping. A waiting caller whose task is cancelled gets `CancellationError`.
actor Gate<Value: Sendable> {
  private struct Waiter {
    var id: Int
    var continuation: CheckedContinuation<Value, any Error>
  }

  private var waiters: [String: [Waiter]] = [:]
  private var arrivals: [String: Int] = [:]
  private var arrivalWaiters: [(key: String, count: Int, CheckedContinuation<Void, Never>)] = []
  private var nextID = 0

  /// Suspends until `open(_:with:)`, `fail(_:with:)`, or cancellation.
  func wait(_ key: String) async throws -> Value {
    let id = nextID
    nextID += 1
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        waiters[key, default: []].append(Waiter(id: id, continuation: continuation))
        arrivals[key, default: 0] += 1
        let ready = arrivalWaiters.filter { arrivals[$0.key, default: 0] >= $0.count }
        arrivalWaiters.removeAll { arrivals[$0.key, default: 0] >= $0.count }
        for waiter in ready { waiter.2.resume() }
      }
    } onCancel: {
      Task { await self.cancel(id) }
    }
  }

  private func cancel(_ id: Int) {
    for (key, list) in waiters {
      guard let index = list.firstIndex(where: { $0.id == id }) else { continue }
      waiters[key]?.remove(at: index).continuation.resume(throwing: CancellationError())
    }
  }

  /// Returns once `count` callers have waited on `key` (in total, over the gate's life).
  func arrived(_ key: String, count: Int = 1) async {
    if arrivals[key, default: 0] >= count { return }
    await withCheckedContinuation { arrivalWaiters.append((key, count, $0)) }
  }

  /// Whether any caller ever waited on `key`.
  func hasArrived(_ key: String) -> Bool { arrivals[key, default: 0] > 0 }

  /// Resumes the oldest caller waiting on `key` with `value`.
  func open(_ key: String, with value: Value) {
    guard var list = waiters[key], !list.isEmpty else { return }
    list.removeFirst().continuation.resume(returning: value)
    waiters[key] = list
  }

  /// Resumes the oldest caller waiting on `key` with `error`.
  func fail(_ key: String, with error: any Error) {
    guard var list = waiters[key], !list.isEmpty else { return }
    list.removeFirst().continuation.resume(throwing: error)
    waiters[key] = list
  }
}

/// Seed 000's file upload: indicator on, upload, append the file, indicator off; on error an
/// alert and indicator off.
@MainActor
final class UploadReactor: ReactorProtocol {
  enum Action { case upload(String) }
  enum Mutation: Equatable {
    case setIndicator(Bool)
    case append(String)
  }
  enum Event: Equatable { case alert(String) }
  struct State: Equatable {
    var isUploading = false
    var files: [String] = []
  }

  let initialState = State()
  let runtime = ReactorRuntime<UploadReactor>()
  let gate: Gate<String>

  init(gate: Gate<String>) {
    self.gate = gate
  }

  func mutate(action: Action) -> Effect {
    switch action {
    case .upload(let name):
      let gate = gate
      return .concat(
        .just(.setIndicator(true)),
        .task { .append(try await gate.wait(name)) },
        .just(.setIndicator(false))
      )
      .catch { error in
        .concat(.event(.alert("Upload failed: \(error)")), .just(.setIndicator(false)))
      }
    }
  }

  func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setIndicator(let isOn): state.isUploading = isOn
    case .append(let file): state.files.append(file)
    }
    return state
  }
}

/// The identity of the milestone fetch, so a newer one can cancel an older one.
enum MilestonesFetch: Hashable, Sendable { case id }

/// Dooray's task form: choosing a project fetches its milestones; the latest choice wins.
@MainActor
final class ProjectFormReactor: ReactorProtocol {
  enum Action { case selectProject(String) }
  enum Mutation: Equatable {
    case setProject(String)
    case setMilestones([String])
  }
  struct State: Equatable {
    var project: String?
    var milestones: [String] = []
  }

  let initialState = State()
  let runtime = ReactorRuntime<ProjectFormReactor>()
  let gate: Gate<[String]>
  let latestWins: Bool

  init(gate: Gate<[String]>, latestWins: Bool = true) {
    self.gate = gate
    self.latestWins = latestWins
  }

  func mutate(action: Action) -> Effect {
    switch action {
    case .selectProject(let project):
      let gate = gate
      return .concat(
        .just(.setProject(project)),
        .task { .setMilestones(try await gate.wait(project)) }
          .cancellable(id: MilestonesFetch.id, cancelInFlight: latestWins)
      )
    }
  }

  func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .setProject(let project): state.project = project
    case .setMilestones(let milestones): state.milestones = milestones
    }
    return state
  }
}

/// A reactor whose effects and transforms each test scripts.
@MainActor
final class ScriptReactor: ReactorProtocol {
  typealias Action = String
  enum Mutation: Equatable, Sendable { case append(String) }
  enum Event: Equatable, Sendable { case note(String) }
  struct State: Equatable, Sendable { var log: [String] = [] }

  let initialState = State()
  let runtime = ReactorRuntime<ScriptReactor>()
  let logger: Logger
  var effect: (String) -> Effect = { .just(.append($0)) }
  var actionTransform: (ReactorStream<Action>) -> ReactorStream<Action> = { $0 }
  var mutationTransform: (ReactorStream<Mutation>) -> ReactorStream<Mutation> = { $0 }
  var stateTransform: (ReactorStream<State>) -> ReactorStream<State> = { $0 }
  private(set) var mutated: [String] = []

  init(logger: Logger = Logger(category: "ScriptReactor", sink: MemoryLogSink())) {
    self.logger = logger
  }

  func mutate(action: Action) -> Effect {
    mutated.append(action)
    return effect(action)
  }

  func reduce(state: State, mutation: Mutation) -> State {
    var state = state
    switch mutation {
    case .append(let entry): state.log.append(entry)
    }
    return state
  }

  func transform(action: ReactorStream<Action>) -> ReactorStream<Action> {
    actionTransform(action)
  }

  func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation> {
    mutationTransform(mutation)
  }

  func transform(state: ReactorStream<State>) -> ReactorStream<State> {
    stateTransform(state)
  }
}

extension Trait where Self == ConditionTrait {
  /// For a test of what `Task.immediate` guarantees (an effect's first part runs within the
  /// `send` that started it): skipped when the run takes Core's fallbacks (`TRELLIS_FALLBACKS=1`),
  /// whose tasks start after the `send` returns; `FallbackTests` checks that path.
  static var startsEffectsWithinSend: Self {
    .enabled(if: !Fallbacks.areForced, "relies on Task.immediate; see FallbackTests")
  }
}
