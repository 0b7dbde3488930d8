import Testing
import TrellisCore
import TrellisCoreTesting

@MainActor
@Suite("Effects returned by mutate")
struct EffectTests {
  @Test func noneChangesNothing() {
    let reactor = CounterReactor()
    var notifications = 0
    let token = reactor.observe { _ in notifications += 1 }
    reactor.send(.none)
    #expect(notifications == 1)  // only the current state, on observing
    #expect(reactor.runningEffectCount == 0)
    token.cancel()
  }

  @Test(.startsEffectsWithinSend) func uploadSucceeds() async throws {
    let gate = Gate<String>()
    let tester = ReactorTester(UploadReactor(gate: gate))
    tester.send(.upload("a.png"))
    #expect(tester.reactor.currentState.isUploading)  // the indicator is on before send returns
    try await tester.expect { $0.isUploading = true }
    await gate.arrived("a.png")
    await gate.open("a.png", with: "a.png")
    try await tester.expect { $0.files = ["a.png"] }
    try await tester.expect { $0.isUploading = false }
    try await tester.finish()
  }

  @Test func uploadFailureShowsAnAlertAndHidesTheIndicator() async throws {
    let gate = Gate<String>()
    let tester = ReactorTester(UploadReactor(gate: gate))
    tester.send(.upload("a.png"))
    try await tester.expect { $0.isUploading = true }
    await gate.arrived("a.png")
    await gate.fail("a.png", with: FakeError())
    try await tester.expectEvents(.alert("Upload failed: boom"))
    try await tester.expect { $0.isUploading = false }
    try await tester.finish()
  }

  @Test func runEmitsMutationsOverTime() async throws {
    let gate = Gate<String>()
    let reactor = ScriptReactor()
    reactor.effect = { _ in
      .run { emit in
        emit(.append("started"))
        emit(.append(try await gate.wait("first")))
        emit.event(.note("halfway"))
        emit(.append(try await gate.wait("second")))
      }
    }
    let tester = ReactorTester(reactor)
    tester.send("go")
    try await tester.expect { $0.log = ["started"] }
    await gate.arrived("first")
    await gate.open("first", with: "one")
    try await tester.expect { $0.log.append("one") }
    try await tester.expectEvents(.note("halfway"))
    await gate.arrived("second")
    await gate.open("second", with: "two")
    try await tester.expect { $0.log.append("two") }
    try await tester.finish()
  }

  @Test func concatRunsPartsInOrderAndMergeRunsThemTogether() async throws {
    let gate = Gate<String>()
    let reactor = ScriptReactor()
    reactor.effect = { action in
      let fetch: (String) -> ReactorEffect<ScriptReactor> = { key in
        .task { .append(try await gate.wait(key)) }
      }
      return action == "concat"
        ? .concat(fetch("a"), fetch("b"))
        : .merge(fetch("a"), fetch("b"))
    }
    let tester = ReactorTester(reactor)

    tester.send("merge")
    await gate.arrived("a")
    await gate.arrived("b")  // both parts are in flight at once
    await gate.open("b", with: "b")
    try await tester.expect { $0.log = ["b"] }
    await gate.open("a", with: "a")
    try await tester.expect { $0.log.append("a") }
    try await tester.finish()

    let second = ReactorTester(ScriptReactor())
    second.reactor.effect = reactor.effect
    second.send("concat")
    await gate.arrived("a", count: 2)
    await gate.open("a", with: "a")
    try await second.expect { $0.log = ["a"] }
    await gate.arrived("b", count: 2)  // b starts only after a has finished
    await gate.open("b", with: "b")
    try await second.expect { $0.log.append("b") }
    try await second.finish()
  }

  @Test func theFirstErrorOfAMergeCancelsTheOtherParts() async throws {
    let gate = Gate<String>()
    let reactor = ScriptReactor()
    reactor.effect = { _ in
      ReactorEffect<ScriptReactor>.merge(
        .task { .append(try await gate.wait("slow")) },
        .task { .append(try await gate.wait("failing")) }
      )
      .catch { error in .just(.append("caught \(error)")) }
    }
    let tester = ReactorTester(reactor)
    tester.send("go")
    await gate.arrived("slow")
    await gate.arrived("failing")
    await gate.fail("failing", with: FakeError())
    try await tester.expect { $0.log = ["caught boom"] }
    try await tester.finish()  // the slow part was cancelled: nothing left running
  }

  @Test func anUnhandledErrorIsLogged() async {
    let sink = MemoryLogSink()
    let reactor = ScriptReactor(logger: Logger(category: "ScriptReactor", sink: sink))
    reactor.effect = { _ in .run { _ in throw FakeError(message: "disk full") } }
    reactor.send("go")
    await reactor.waitUntilIdle()
    #expect(sink.records.count == 1)
    #expect(sink.records.first?.level == .error)
    #expect(sink.messages.first?.contains("Unhandled error") == true)
    #expect(sink.messages.first?.contains("disk full") == true)
  }

  @Test func cancellationIsNotReportedAsAnError() async {
    let sink = MemoryLogSink()
    let gate = Gate<String>()
    let reactor = ScriptReactor(logger: Logger(category: "ScriptReactor", sink: sink))
    reactor.effect = { _ in .task { .append(try await gate.wait("never")) } }
    reactor.send("go")
    await gate.arrived("never")
    reactor.stop()
    await reactor.waitUntilIdle()
    #expect(sink.records.isEmpty)
  }
}
