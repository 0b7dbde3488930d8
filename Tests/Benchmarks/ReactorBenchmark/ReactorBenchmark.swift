// ReactorBenchmark: the cost of Core's reactor runtime, one line per case.
//
//   swift run -c release ReactorBenchmark            # full sizes, median of 5 runs
//   swift run -c release ReactorBenchmark --scale 0.01 --runs 1   # smoke test (CI)
//
// Cases (sizes at scale 1), each printed with its ratio to `baseline`:
//   sync         counter reactor, 1,000,000 actions, until the observer has seen the final count
//   effect-task  mutate returns `.run { emit in emit(...) }`: an async effect that starts and
//                completes on the main actor (a task, no hop); 100,000 actions
//   async-hop    the effect awaits a `@concurrent` function, which runs off the main actor
//                (it checks, with `dispatchPrecondition`, and its result is what the state
//                counts), then emits back on the main actor; 100,000 actions
//   fanout       10 observers of `count` with duplicates removed; 100,000 actions
//   baseline     a plain loop `state = reduce(state, mutation)`, 10,000,000 iterations
//   memory       10,000 live reactors, each with one observer: RSS delta per reactor
//
// Reference figures printed at the end were measured elsewhere (ReactorKit 3.2.0 on RxSwift,
// on this machine kind, in another run): they are not measured by this program.
import Foundation
import TrellisCore

/// How the counter's `mutate` produces its mutation.
enum EffectKind {
  /// `.just`: synchronous.
  case synchronous
  /// `.run`, completing on the main actor.
  case task
  /// `.run`, awaiting work off the main actor.
  case hop
}

@MainActor
final class CounterReactor: ReactorProtocol {
  enum Action { case increment }
  enum Mutation { case add(Int) }
  struct State {
    var count = 0
    var isLoading = false
  }

  let initialState = State()
  let runtime = ReactorRuntime<CounterReactor>()
  private let kind: EffectKind

  init(_ kind: EffectKind = .synchronous) {
    self.kind = kind
  }

  func mutate(action: Action) -> Effect {
    switch kind {
    case .synchronous: .just(.add(1))
    case .task: .run { emit in emit(.add(1)) }
    case .hop: .run { emit in emit(.add(await offMainWork(1))) }
    }
  }

  func reduce(state: State, mutation: Mutation) -> State {
    plainReduce(state, mutation)
  }
}

/// A service call in miniature. `@concurrent`, so it always runs on the global executor: the
/// precondition fails the benchmark if it ever runs on the main queue (the main actor's
/// executor), and its result is what the state counts, so the call cannot be optimised away.
@concurrent
@inline(never)
nonisolated func offMainWork(_ amount: Int) async -> Int {
  dispatchPrecondition(condition: .notOnQueue(.main))
  return amount
}

func plainReduce(_ state: CounterReactor.State, _ mutation: CounterReactor.Mutation)
  -> CounterReactor.State
{
  var state = state
  switch mutation {
  case .add(let amount): state.count += amount
  }
  return state
}

/// Kept out of line so the baseline loop cannot be folded into one addition.
@inline(never)
func opaqueReduce(_ state: CounterReactor.State, _ mutation: CounterReactor.Mutation)
  -> CounterReactor.State
{
  plainReduce(state, mutation)
}

struct Options {
  var scale = 1.0
  var runs = 5
  var only: String?

  init(arguments: [String]) {
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "--scale": scale = iterator.next().flatMap(Double.init) ?? scale
      case "--runs": runs = iterator.next().flatMap(Int.init) ?? runs
      case "--only": only = iterator.next()
      default:
        print("usage: ReactorBenchmark [--scale FACTOR] [--runs N] [--only CASE]")
        exit(2)
      }
    }
  }

  func size(_ full: Int) -> Int { max(1, Int(Double(full) * scale)) }

  func includes(_ name: String) -> Bool { only == nil || only == name }
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted[sorted.count / 2]
}

/// Where observers record what they saw: a buffer held in a `let`, so that the observers'
/// own stores cost a plain write (a captured `var` would add an exclusivity check per call
/// and measure the benchmark instead of the runtime).
final class SeenCounts {
  let pointer: UnsafeMutablePointer<Int>
  let count: Int

  init(count: Int) {
    self.count = count
    pointer = .allocate(capacity: count)
    pointer.initialize(repeating: 0, count: count)
  }

  subscript(index: Int) -> Int { pointer[index] }

  deinit { pointer.deallocate() }
}

@MainActor
func syncCase(actions: Int) -> Double {
  let reactor = CounterReactor()
  let seen = SeenCounts(count: 1)
  let token = reactor.observe { seen.pointer[0] = $0.count }
  let start = now()
  for _ in 0..<actions { reactor.send(.increment) }
  let elapsed = now() - start
  precondition(seen[0] == actions, "the observer saw \(seen[0]) of \(actions)")
  token.cancel()
  return Double(elapsed) / Double(actions)
}

@MainActor
func asyncCase(_ kind: EffectKind, actions: Int) async -> Double {
  let reactor = CounterReactor(kind)
  var seen = 0
  var done: CheckedContinuation<Void, Never>?
  let token = reactor.observe { state in
    seen = state.count
    if seen == actions { done?.resume() }
  }
  let start = now()
  await withCheckedContinuation { continuation in
    done = continuation
    for _ in 0..<actions { reactor.send(.increment) }
  }
  let elapsed = now() - start
  precondition(seen == actions)
  token.cancel()
  return Double(elapsed) / Double(actions)
}

@MainActor
func fanoutCase(actions: Int, observers: Int) -> Double {
  let reactor = CounterReactor()
  let seen = SeenCounts(count: observers)
  var tokens: [ObservationToken] = []
  for index in 0..<observers {
    tokens.append(reactor.observe(\.count) { seen.pointer[index] = $0 })
  }
  let start = now()
  for _ in 0..<actions { reactor.send(.increment) }
  let elapsed = now() - start
  precondition((0..<observers).allSatisfy { seen[$0] == actions })
  tokens.removeAll()
  return Double(elapsed) / Double(actions)
}

func baselineCase(iterations: Int) -> Double {
  var state = CounterReactor.State()
  let start = now()
  for _ in 0..<iterations { state = opaqueReduce(state, .add(1)) }
  let elapsed = now() - start
  precondition(state.count == iterations)
  return Double(elapsed) / Double(iterations)
}

func residentBytes() -> Int {
  guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
    let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
  else { return 0 }
  return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

@MainActor
func memoryCase(reactors count: Int) -> Double {
  var reactors: [CounterReactor] = []
  var tokens: [ObservationToken] = []
  reactors.reserveCapacity(count)
  tokens.reserveCapacity(count)
  var sink = 0
  // One reactor first, outside the measure: the first start pays one-time costs of the process
  // (Foundation reading the environment for `ReactorTrace`, about 1.3 MB), which spread over
  // 10,000 reactors read as 130 bytes each.
  let warmUp = CounterReactor()
  let warmUpToken = warmUp.observe { sink &+= $0.count }
  let before = residentBytes()
  for _ in 0..<count {
    let reactor = CounterReactor()
    tokens.append(reactor.observe { sink &+= $0.count })
    reactors.append(reactor)
  }
  let after = residentBytes()
  precondition(reactors.count == count && tokens.count == count && sink == 0)
  warmUpToken.cancel()
  return Double(after - before) / Double(count)
}

@main
struct ReactorBenchmark {
  @MainActor
  static func main() async {
    let options = Options(arguments: Array(CommandLine.arguments.dropFirst()))
    let runs = 0..<options.runs
    if options.includes("memory") {
      // Measured first and once per process: pages freed by earlier cases are not returned to
      // the OS at once, so later the reactors would reuse them and measure nothing.
      print("memory bytes_per_reactor=\(Int(memoryCase(reactors: options.size(10_000)).rounded()))")
    }

    // The floor: every other case is also printed as a multiple of it.
    let baseline = median(runs.map { _ in baselineCase(iterations: options.size(10_000_000)) })

    func report(_ name: String, _ nanoseconds: Double) {
      let ratio = nanoseconds / max(baseline, 0.001)
      print(
        "\(name) ns_per_action=\(String(format: "%.1f", nanoseconds)) "
          + "ratio_to_baseline=\(String(format: "%.1f", ratio))")
    }

    if options.includes("sync") {
      report("sync", median(runs.map { _ in syncCase(actions: options.size(1_000_000)) }))
    }
    for (name, kind) in [("effect-task", EffectKind.task), ("async-hop", .hop)]
    where options.includes(name) {
      var samples: [Double] = []
      for _ in runs { samples.append(await asyncCase(kind, actions: options.size(100_000))) }
      report(name, median(samples))
    }
    if options.includes("fanout") {
      report(
        "fanout",
        median(runs.map { _ in fanoutCase(actions: options.size(100_000), observers: 10) }))
    }
    if options.includes("baseline") {
      report("baseline", baseline)
    }
    if options.only == nil {
      print(
        "reference (measured elsewhere, not by this program): ReactorKit 3.2.0 sync ~15,700 ns, "
          + "fanout ~21,600 ns, a real hop ~36,000 ns, 10.4 KB per reactor")
    }
  }
}
