import Foundation
import Testing
import TrellisCore

/// Drives a reactor in a test and asserts the exact sequence of states and events it produces.
///
/// ```swift
/// @Test @MainActor func uploadShowsTheIndicatorAroundTheUpload() async throws {
///   let tester = ReactorTester(TaskComposeViewReactor(services: FakeServices()))
///   try await tester.send(.attach(file)) { $0.isUploading = true }
///   try await tester.expect { $0.attachments = [file]; $0.isUploading = false }
///   try await tester.finish()
/// }
/// ```
///
/// The tester records every state after the current one, every event, and every action an
/// effect sends (``EffectSender/action(_:)``), in order. Each `expect` waits (up to
/// ``timeout``, without sleeping when the output is already there) for the next recorded outputs
/// and fails, by throwing ``ReactorTestFailure``, if they differ. ``finish()`` fails if outputs
/// were left unasserted or effects are still running, unless ``isExhaustive`` is `false`; a
/// tester released without ``finish()`` while outputs are unasserted or effects run records a
/// test issue naming them (in a Swift Testing test; elsewhere it writes the message to standard
/// error), as TCA's `TestStore` does.
///
/// Time-based logic (a debounce, a retry, a timeout) takes a clock the test drives, such as
/// ``TestClock``, so its test takes no real time; ``timeout`` only bounds how long the tester
/// waits for outputs that never come.
@MainActor
public final class ReactorTester<R: ReactorProtocol> {
  /// One recorded output of the reactor.
  public enum Output {
    /// A new state.
    case state(R.State)
    /// A one-shot event.
    case event(R.Event)
    /// An action an effect sent (``EffectSender/action(_:)``).
    case action(R.Action)
  }

  /// The reactor under test.
  public let reactor: R
  /// How long an `expect` waits for outputs that have not arrived yet, and ``finish()`` for the
  /// effects still running to end (by default ``TestWaits/timeout``, ten seconds).
  public var timeout: Duration
  /// Whether ``finish()`` fails on unasserted outputs and running effects (the default), or
  /// ignores them and cancels the effects.
  public var isExhaustive = true

  /// The state the last assertion left off at: the starting point of `expect { ... }`.
  public private(set) var lastAssertedState: R.State
  private var outputs: [Output] = []
  private var waiter: CheckedContinuation<Void, Never>?
  private var tokens: [ObservationToken] = []
  /// Whether ``finish()`` ran.
  private var isFinished = false
  /// Where the tester was made: where a forgotten ``finish()`` is reported.
  private let creation: ReactorTestFailure.Location

  /// Starts recording the outputs of `reactor`. The state it delivers first (its current state,
  /// after its `transform` hooks ran, which observing starts) is the starting point; it is not
  /// recorded as an output.
  public init(
    _ reactor: R, timeout: Duration = TestWaits.timeout,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    column: Int = #column
  ) {
    self.reactor = reactor
    self.timeout = timeout
    creation = ReactorTestFailure.Location(
      fileID: fileID, filePath: filePath, line: line, column: column)
    // Replaced by the first delivery, which comes before `observe` returns.
    lastAssertedState = reactor.initialState
    var isCurrentState = true
    tokens.append(
      reactor.observe { [weak self] state in
        guard !isCurrentState else {
          isCurrentState = false
          self?.lastAssertedState = state
          return
        }
        self?.record(.state(state))
      })
    tokens.append(reactor.observeEvents { [weak self] event in self?.record(.event(event)) })
    tokens.append(
      reactor.observeEffectActions { [weak self] action in self?.record(.action(action)) })
  }

  // Not an `isolated deinit`: its body runs without the task-local values of the test that
  // released it, so the issue would belong to no test. A plain deinit runs where the last
  // reference goes, which for a main-actor tester is the main actor, in its test; releasing a
  // tester anywhere else is a mistake in the test, and `assumeIsolated` stops it there.
  deinit {
    MainActor.assumeIsolated { reportIfUnfinished() }
  }

  /// Reports a tester released without ``finish()`` with outputs unasserted or effects running.
  private func reportIfUnfinished() {
    guard !isFinished, isExhaustive else { return }
    let running = reactor.runningEffectCount
    guard !outputs.isEmpty || running > 0 else { return }
    var parts: [String] = []
    if !outputs.isEmpty {
      parts.append("\(outputs.count) output(s) not asserted: \(Self.describe(outputs))")
    }
    if running > 0 { parts.append("\(running) effect(s) still running") }
    let message =
      "ReactorTester<\(R.self)> was released without finish(): " + parts.joined(separator: "; ")
    if Test.current != nil {
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(
          fileID: creation.fileID, filePath: creation.filePath, line: creation.line,
          column: creation.column))
    } else {
      FileHandle.standardError.write(Data("\(creation): \(message)\n".utf8))
    }
  }

  /// Sends `action` to the reactor.
  public func send(_ action: R.Action) {
    reactor.send(action)
  }

  private func record(_ output: Output) {
    outputs.append(output)
    wake()
  }

  private func wake() {
    guard let waiter else { return }
    self.waiter = nil
    waiter.resume()
  }

  /// Suspends until `isDone` holds or `timeout` passes; returns whether `isDone` held. Woken by
  /// each recorded output, by the reactor becoming idle, and by the deadline; never polls.
  private func wait(until isDone: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while !isDone() {
      guard ContinuousClock.now < deadline else { return false }
      // Effects finishing can decide the condition; only watch for that while some run.
      let reactor = reactor
      let idle: Task<Void, Never>? =
        reactor.runningEffectCount == 0
        ? nil
        : Task { @MainActor [weak self] in
          await reactor.waitUntilIdle()
          self?.wake()
        }
      let timer = Task { @MainActor [weak self] in
        try? await Task.sleep(until: deadline, clock: .continuous)
        self?.wake()
      }
      await withCheckedContinuation { waiter = $0 }
      idle?.cancel()
      timer.cancel()
    }
    return true
  }

  /// Takes the next `count` outputs, or throws if they do not arrive in time.
  private func take(
    _ count: Int, expecting description: @autoclosure () -> String,
    location: ReactorTestFailure.Location
  ) async throws -> [Output] {
    guard await wait(until: { outputs.count >= count }) else {
      throw ReactorTestFailure(
        "Timed out after \(timeout.readable) waiting for \(description()); "
          + "received only: \(Self.describe(outputs))",
        location: location)
    }
    let taken = Array(outputs.prefix(count))
    outputs.removeFirst(count)
    return taken
  }

  /// Takes the next outputs and checks each against what `expected` says of it: `check`
  /// returns a failure message, or `nil` when the output is the expected one.
  fileprivate func expect<Expected>(
    _ expected: [Expected], kind: String, location: ReactorTestFailure.Location,
    _ check: (_ index: Int, _ expected: Expected, _ received: Output) -> String?
  ) async throws {
    let received = try await take(
      expected.count, expecting: "\(expected.count) \(kind)(s)", location: location)
    for (index, (want, got)) in zip(expected, received).enumerated() {
      if let failure = check(index, want, got) {
        throw ReactorTestFailure(failure, location: location)
      }
    }
  }

  static func describe(_ outputs: [Output]) -> String {
    outputs.isEmpty ? "nothing" : outputs.map { "\n  \($0)" }.joined()
  }

  /// Fails if outputs are left unasserted or effects are still running after ``timeout``
  /// (both ignored, and running effects cancelled, when ``isExhaustive`` is `false`), then
  /// stops the reactor.
  public func finish(
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    column: Int = #column
  ) async throws {
    let location = ReactorTestFailure.Location(
      fileID: fileID, filePath: filePath, line: line, column: column)
    isFinished = true
    defer {
      reactor.stop()
      tokens.removeAll()
    }
    guard isExhaustive else { return }
    let effectsFinished = await wait(until: { reactor.runningEffectCount == 0 })
    if !outputs.isEmpty {
      throw ReactorTestFailure(
        "\(outputs.count) output(s) were not asserted: \(Self.describe(outputs))",
        location: location)
    }
    if !effectsFinished {
      throw ReactorTestFailure(
        "\(reactor.runningEffectCount) effect(s) still running after \(timeout.readable). Cancel them, "
          + "assert what they emit, or set isExhaustive = false.",
        location: location)
    }
  }

  /// Discards the outputs recorded so far (their last state becomes the starting point).
  public func skipOutputs() {
    for case .state(let state) in outputs { lastAssertedState = state }
    outputs.removeAll()
  }
}

extension ReactorTester where R.State: Equatable {
  /// Asserts that the next outputs are exactly the states `expected`, in order.
  public func expect(
    _ expected: R.State...,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    column: Int = #column
  ) async throws {
    let location = ReactorTestFailure.Location(
      fileID: fileID, filePath: filePath, line: line, column: column)
    try await expect(expected, kind: "state", location: location) { index, want, got in
      guard case .state(let state) = got else {
        return "Output \(index + 1): expected a state, received \(got)"
      }
      guard state == want else {
        return "State \(index + 1) differs:\n\(Difference(expected: want, received: state))"
      }
      lastAssertedState = state
      return nil
    }
  }

  /// Asserts that the next output is the last asserted state changed by `update`:
  /// `try await tester.expect { $0.isLoading = true }`.
  public func expect(
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    column: Int = #column,
    _ update: (inout R.State) -> Void
  ) async throws {
    var expected = lastAssertedState
    update(&expected)
    try await expect(expected, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Sends `action` and asserts, in the same call, that the next output is the last asserted
  /// state changed by `expectedChange` (as TCA's `store.send(.action) { $0.value = 1 }`):
  /// `try await tester.send(.increment) { $0.count = 1 }`.
  public func send(
    _ action: R.Action,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    column: Int = #column,
    _ expectedChange: (inout R.State) -> Void
  ) async throws {
    send(action)
    try await expect(
      fileID: fileID, filePath: filePath, line: line, column: column, expectedChange)
  }
}

extension ReactorTester where R.Action: Equatable {
  /// Asserts that the next outputs are exactly the actions `expected`, sent by effects through
  /// ``EffectSender/action(_:)``, in order (TCA's `receive`).
  public func expectActions(
    _ expected: R.Action...,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    column: Int = #column
  ) async throws {
    let location = ReactorTestFailure.Location(
      fileID: fileID, filePath: filePath, line: line, column: column)
    try await expect(expected, kind: "action", location: location) { index, want, got in
      guard case .action(let action) = got else {
        return "Output \(index + 1): expected the action \(want), received \(got)"
      }
      return action == want ? nil : "Action \(index + 1): expected \(want), received \(action)"
    }
  }
}

extension ReactorTester where R.Event: Equatable {
  /// Asserts that the next outputs are exactly the events `expected`, in order.
  public func expectEvents(
    _ expected: R.Event...,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    column: Int = #column
  ) async throws {
    let location = ReactorTestFailure.Location(
      fileID: fileID, filePath: filePath, line: line, column: column)
    try await expect(expected, kind: "event", location: location) { index, want, got in
      guard case .event(let event) = got else {
        return "Output \(index + 1): expected the event \(want), received \(got)"
      }
      return event == want ? nil : "Event \(index + 1): expected \(want), received \(event)"
    }
  }
}

extension ReactorTester where R.State: Equatable, R.Event: Equatable {
  /// Asserts that the next outputs are the states `states` (in order) and the events `events`
  /// (in order), interleaved in any way: for outputs of sources that nothing orders against
  /// each other, such as two services' current values that `transform(action:)` merges, each
  /// delivered when the reactor starts observing it. The last of `states` becomes the starting
  /// point of the next `expect { ... }` only if the whole check passes.
  ///
  /// ```swift
  /// var offline = tester.lastAssertedState
  /// offline.status = .offline
  /// try await tester.expect(
  ///   states: [offline], interleavedWith: [.alert(title: "Not saved", message: "")])
  /// ```
  public func expect(
    states: [R.State], interleavedWith events: [R.Event],
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    column: Int = #column
  ) async throws {
    let location = ReactorTestFailure.Location(
      fileID: fileID, filePath: filePath, line: line, column: column)
    let received = try await take(
      states.count + events.count,
      expecting: "\(states.count) state(s) and \(events.count) event(s)", location: location)
    var receivedStates: [R.State] = []
    var receivedEvents: [R.Event] = []
    for (index, output) in received.enumerated() {
      switch output {
      case .state(let state): receivedStates.append(state)
      case .event(let event): receivedEvents.append(event)
      case .action(let action):
        throw ReactorTestFailure(
          "Output \(index + 1): expected a state or an event, received the action \(action)",
          location: location)
      }
    }
    guard receivedStates.count == states.count else {
      throw ReactorTestFailure(
        "Expected \(states.count) state(s) and \(events.count) event(s), received "
          + "\(receivedStates.count) state(s) and \(receivedEvents.count) event(s): "
          + Self.describe(received), location: location)
    }
    for (index, (want, got)) in zip(states, receivedStates).enumerated() where want != got {
      throw ReactorTestFailure(
        "State \(index + 1) differs:\n\(Difference(expected: want, received: got))",
        location: location)
    }
    for (index, (want, got)) in zip(events, receivedEvents).enumerated() where want != got {
      throw ReactorTestFailure(
        "Event \(index + 1): expected \(want), received \(got)", location: location)
    }
    if let last = receivedStates.last { lastAssertedState = last }
  }
}

/// A failed reactor-test assertion: thrown by ``ReactorTester``, so a test fails with its
/// message at the `try`.
public struct ReactorTestFailure: Error, CustomStringConvertible {
  /// Where an assertion was made. (Not named `SourceLocation`, which is Swift Testing's.)
  public struct Location: Sendable, CustomStringConvertible {
    /// The file's module-qualified name, as `#fileID` gives it.
    public var fileID: String
    /// The file's path.
    public var filePath: String
    /// The line.
    public var line: Int
    /// The column.
    public var column: Int

    /// Creates a location.
    public init(fileID: String, filePath: String, line: Int, column: Int) {
      self.fileID = fileID
      self.filePath = filePath
      self.line = line
      self.column = column
    }

    /// `fileID:line`.
    public var description: String { "\(fileID):\(line)" }
  }

  /// What went wrong.
  public var message: String
  /// Where the failing assertion was made.
  public var location: Location

  /// Creates a failure.
  public init(_ message: String, location: Location) {
    self.message = message
    self.location = location
  }

  /// The message with its location.
  public var description: String { "\(location): \(message)" }
}

/// A line diff of two values' dumps: `-` expected, `+` received, two spaces for lines both
/// share (a longest-common-subsequence diff, so an extra or missing line does not misalign the
/// rest).
struct Difference<Value>: CustomStringConvertible {
  var expected: Value
  var received: Value

  var description: String {
    var expectedDump = ""
    var receivedDump = ""
    dump(expected, to: &expectedDump)
    dump(received, to: &receivedDump)
    let old = expectedDump.split(separator: "\n").map(String.init)
    let new = receivedDump.split(separator: "\n").map(String.init)
    // common[i][j]: the longest common subsequence of old[i...] and new[j...].
    var common = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
    for i in stride(from: old.count - 1, through: 0, by: -1) {
      for j in stride(from: new.count - 1, through: 0, by: -1) {
        common[i][j] =
          old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
      }
    }
    var lines: [String] = []
    var i = 0
    var j = 0
    while i < old.count || j < new.count {
      if i < old.count, j < new.count, old[i] == new[j] {
        lines.append("  " + old[i])
        i += 1
        j += 1
      } else if j < new.count, i == old.count || common[i][j + 1] >= common[i + 1][j] {
        lines.append("+ " + new[j])
        j += 1
      } else {
        lines.append("- " + old[i])
        i += 1
      }
    }
    return lines.joined(separator: "\n")
  }
}
