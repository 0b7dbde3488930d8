import Dispatch
import Testing
import TrellisCore
import TrellisCoreTesting

/// Core's fallbacks for systems below the APIs it prefers (`Mutex`, `Atomic`, `Task.immediate`).
/// The suite runs in every test run; the tests marked `.takingFallbacks` run when the fallbacks
/// are taken (`TRELLIS_FALLBACKS=1`, as `.ci/check-portability` runs the portable layers' tests),
/// and check what the fallback promises where it differs from the preferred API.
@MainActor
@Suite("Fallbacks below iOS 18 and 26")
struct FallbackTests {
  @Test func locksAndFlagsFollowTheSwitch() {
    #expect(Lock(0).isFallback == Fallbacks.areForced)
    #expect(AtomicFlag(true).isFallback == Fallbacks.areForced)
  }

  @Test func aLockLosesNoUpdateFromManyThreads() {
    let counter = Lock(0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
    }
    #expect(counter.withLock { $0 } == 80_000)
  }

  @Test func aFlagSetOnOneThreadIsSeenOnAnother() async {
    let flag = AtomicFlag(true)
    await Task.detached { flag.set(false) }.value
    #expect(!flag.value)
  }

  /// "Latest wins" follows the order of the sends, on both paths: an older send's identified
  /// part nested in a `concat` starts (below iOS 26) after a newer send's top-level one, finds
  /// it in flight, and stands down instead of cancelling it.
  @Test func theLatestSendWinsEvenWhenAnOlderPartStartsLater() async throws {
    let reactor = ScriptReactor()
    reactor.effect = { action in
      let load = ReactorEffect<ScriptReactor>.run { emit in
        try await Task.sleep(for: .milliseconds(20))
        emit(.append(action + " loaded"))
      }
      .cancellable(id: "load", cancelInFlight: true)
      return action == "older" ? .concat(.just(.append("older chosen")), load) : load
    }
    reactor.send("older")
    reactor.send("newer")
    await reactor.waitUntilIdle()
    #expect(reactor.currentState.log == ["older chosen", "newer loaded"])
  }

  /// A `concat`'s leading synchronous parts are reduced before `send` returns on both paths,
  /// also under `catch` and `cancellable`: a second send in the same turn sees "saving" and
  /// does not save again (below iOS 26 the `.just` used to wait for the task: two saves).
  @Test(arguments: ["plain", "caught", "identified", "nested"])
  func aSecondSendInTheSameTurnSeesWhatTheFirstMarked(shape: String) async throws {
    let reactor = ScriptReactor()
    let saves = Lock(0)
    reactor.effect = { [unowned reactor] action in
      guard !reactor.currentState.log.contains("saving") else { return .none }
      let save = ReactorEffect<ScriptReactor>.run { emit in
        saves.withLock { $0 += 1 }
        emit(.append("saved"))
      }
      let marked = ReactorEffect<ScriptReactor>.concat(.just(.append("saving")), save)
      switch shape {
      case "caught": return marked.catch { _ in .just(.append("failed")) }
      case "identified": return marked.cancellable(id: "save", cancelInFlight: true)
      case "nested": return .concat(.event(.note("start")), marked.cancellable(id: "save"))
      default: return marked
      }
    }
    reactor.send("save")
    #expect(reactor.currentState.log.first == "saving")
    reactor.send("save")
    await reactor.waitUntilIdle()
    #expect(saves.withLock { $0 } == 1)
    #expect(reactor.currentState.log == ["saving", "saved"])
  }

  /// A `cancelInFlight` identity whose effect starts with synchronous parts still replaces the
  /// one in flight, and its own asynchronous rest stays cancellable by that identity.
  @Test func anIdentifiedEffectWithLeadingPartsStaysCancellable() async throws {
    let reactor = ScriptReactor()
    reactor.effect = { action in
      ReactorEffect<ScriptReactor>.concat(
        .just(.append(action + " chosen")),
        .run { emit in
          try await Task.sleep(for: action == "fast" ? .milliseconds(10) : .seconds(30))
          emit(.append(action + " loaded"))
        }
      )
      .cancellable(id: "load", cancelInFlight: true)
    }
    reactor.send("slow")
    reactor.send("fast")  // replaces "slow"
    await reactor.waitUntilIdle()
    #expect(reactor.currentState.log == ["slow chosen", "fast chosen", "fast loaded"])
    reactor.send("late")
    reactor.cancelEffects(id: "load")
    await reactor.waitUntilIdle()
    #expect(reactor.currentState.log.suffix(1) == ["late chosen"])
  }

  /// Below iOS 26 an effect's task starts after the `send`, but effects start in the order they
  /// were sent, and what one emits arrives in order.
  @Test(.takingFallbacks) func effectsStartAfterTheSendInTheOrderSent() async throws {
    let reactor = ScriptReactor()
    reactor.effect = { action in
      .run { emit in
        emit(.append(action + ".1"))
        emit(.append(action + ".2"))
      }
    }
    reactor.send("a")
    reactor.send("b")
    #expect(reactor.currentState.log.isEmpty)  // not yet: the tasks start after this
    await reactor.waitUntilIdle()
    #expect(reactor.currentState.log == ["a.1", "a.2", "b.1", "b.2"])
  }

  /// An effect cancelled before its task started never runs a line.
  @Test(.takingFallbacks) func anEffectCancelledBeforeItStartsNeverRuns() async throws {
    let ran = AtomicFlag(false)
    let reactor = ScriptReactor()
    reactor.effect = { _ in
      ReactorEffect.task {
        ran.set(true)
        return .append("ran")
      }.cancellable(id: "load")
    }
    reactor.send("load")
    reactor.cancelEffects(id: "load")
    await reactor.waitUntilIdle()
    #expect(!ran.value)
    #expect(reactor.currentState.log.isEmpty)
  }

  /// The latest choice wins even when the first one's request never started: it is cancelled
  /// before its task runs, so it never reaches the server.
  @Test(.takingFallbacks) func theLatestWinsAndTheFirstNeverStarts() async throws {
    let gate = Gate<[String]>()
    let tester = ReactorTester(ProjectFormReactor(gate: gate))
    tester.send(.selectProject("A"))
    tester.send(.selectProject("B"))
    try await tester.expect { $0.project = "A" }
    try await tester.expect { $0.project = "B" }
    await gate.arrived("B")
    await gate.open("B", with: ["b-1"])
    try await tester.expect { $0.milestones = ["b-1"] }
    try await tester.finish()
    #expect(await !gate.hasArrived("A"))
  }
}

extension Trait where Self == ConditionTrait {
  /// For a test of a fallback's own behaviour: run when the fallbacks are taken.
  static var takingFallbacks: Self {
    .enabled(if: Fallbacks.areForced, "runs with TRELLIS_FALLBACKS=1 (.ci/check-portability)")
  }
}
