// ReactorBenchmark: the cost of Core's reactor runtime, one line per case.
//
//   swift run -c release ReactorBenchmark            # full sizes, median of 5 runs
//   swift run -c release ReactorBenchmark --scale 0.01 --runs 1   # smoke test (CI)
//
// Cases (sizes at scale 1):
//   sync       counter reactor, 1,000,000 actions, until the observer has seen the final count
//   async-hop  mutate awaits a nonisolated async function (a hop off the main actor and
//              back) before emitting; 100,000 actions
//   fanout     10 observers of `count` with duplicates removed; 100,000 actions
//   baseline   a plain loop `state = reduce(state, mutation)`, 10,000,000 iterations
//   memory     10,000 live reactors, each with one observer: RSS delta per reactor
import Core
import Foundation

@MainActor
final class CounterReactor: ReactorProtocol {
  enum Action { case increment }
  enum Mutation { case increment }
  struct State {
    var count = 0
    var isLoading = false
  }

  let initialState = State()
  let runtime = ReactorRuntime<CounterReactor>()
  private let hops: Bool

  init(hops: Bool = false) {
    self.hops = hops
  }

  func mutate(action: Action) -> Effect {
    guard hops else { return .just(.increment) }
    return .run { send in
      _ = await offMainWork()
      send(.increment)
    }
  }

  func reduce(state: State, mutation: Mutation) -> State {
    plainReduce(state, mutation)
  }
}

/// A service call in miniature: a nonisolated async function, so awaiting it from the main
/// actor suspends, runs on the global executor, and resumes on the main actor.
nonisolated func offMainWork() async -> Int { 1 }

func plainReduce(_ state: CounterReactor.State, _ mutation: CounterReactor.Mutation)
  -> CounterReactor.State
{
  var state = state
  switch mutation {
  case .increment: state.count += 1
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
func asyncHopCase(actions: Int) async -> Double {
  let reactor = CounterReactor(hops: true)
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
  for _ in 0..<iterations { state = opaqueReduce(state, .increment) }
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
  let before = residentBytes()
  for _ in 0..<count {
    let reactor = CounterReactor()
    tokens.append(reactor.observe { sink &+= $0.count })
    reactors.append(reactor)
  }
  let after = residentBytes()
  precondition(reactors.count == count && tokens.count == count && sink == 0)
  return Double(after - before) / Double(count)
}

@main
struct ReactorBenchmark {
  @MainActor
  static func main() async {
    let options = Options(arguments: Array(CommandLine.arguments.dropFirst()))
    let runs = 0..<options.runs
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
    if options.includes("async-hop") {
      var samples: [Double] = []
      for _ in runs { samples.append(await asyncHopCase(actions: options.size(100_000))) }
      report("async-hop", median(samples))
    }
    if options.includes("fanout") {
      report(
        "fanout",
        median(runs.map { _ in fanoutCase(actions: options.size(100_000), observers: 10) }))
    }
    if options.includes("baseline") {
      report("baseline", baseline)
    }
    if options.includes("memory") {
      // Measured once per process: pages freed by earlier runs are not returned to the OS at
      // once, so a second run would measure their reuse rather than the reactors' size.
      print("memory bytes_per_reactor=\(Int(memoryCase(reactors: options.size(10_000)).rounded()))")
    }
  }
}
