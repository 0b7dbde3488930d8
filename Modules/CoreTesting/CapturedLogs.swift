import Testing
import TrellisCore

/// Keeps the log lines of the code under test out of the test run's output, and shows a test's
/// lines only when that test fails: a suite marked `@Suite(.capturesLogs)` sends every record
/// its tests write through the process-wide sink (``TrellisCore/LogSystem``) to a buffer of the
/// test's own, printed to standard error under the test's name if the test records an issue or
/// throws, and dropped otherwise.
///
/// ```swift
/// @Suite(.capturesLogs)
/// struct SessionTests {
///   @Test func aLostConnectionKeepsTheSession() async throws { ... }
/// }
/// ```
///
/// A record belongs to the test whose task (or a task it started) wrote it. Records written
/// where no test's task is (a dispatch queue, a URL session's delegate queue) are kept in a
/// shared buffer of the last ``TestLogSink/strayLimit`` and printed after a failing test's own,
/// marked as such: with tests running in parallel, they may be another test's. Loggers given a
/// sink of their own (a `MemoryLogSink` a test asserts on) are not affected.
public struct CapturedLogs: TestTrait, SuiteTrait, TestScoping {
  /// Applies to every test of a suite it marks.
  public var isRecursive: Bool { true }

  /// Captures the logs of one test (a suite's own scope passes through).
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    guard testCase != nil else { return try await function() }
    TestLogSink.install()
    let buffer = TestLogBuffer()
    do {
      // Sees every issue the test records, and keeps each as it is.
      try await IssueHandlingTrait.filterIssues { _ in
        buffer.markFailed()
        return true
      }.provideScope(for: test, testCase: testCase) {
        try await TestLogSink.$current.withValue(buffer) { try await function() }
      }
    } catch {
      buffer.markFailed()
      buffer.print(for: test)
      throw error
    }
    if buffer.hasFailed { buffer.print(for: test) }
  }
}

extension Trait where Self == CapturedLogs {
  /// Shows the logs of a suite's tests only for those that fail (see ``CapturedLogs``).
  public static var capturesLogs: Self { CapturedLogs() }
}

/// The process-wide sink while tests capture their logs: each record goes to the buffer of the
/// test whose task wrote it.
public struct TestLogSink: LogSink {
  /// How many records written outside any test's task are kept (the last ones).
  public static let strayLimit = 200
  /// The most records kept for one test (the last ones).
  public static let perTestLimit = 5000

  /// The buffer of the test running in this task, if it captures its logs.
  @TaskLocal static var current: TestLogBuffer?

  /// Records written where no test's task is.
  static let stray = Lock(BoundedRecords(limit: strayLimit))
  private static let installed = Lock(false)

  /// Makes this the process-wide sink, once, keeping the minimum level.
  static func install() {
    let first = installed.withLock { installed in
      defer { installed = true }
      return !installed
    }
    if first { LogSystem.bootstrap(sink: TestLogSink(), minimumLevel: LogSystem.minimumLevel) }
  }

  /// Keeps `record` for the test that wrote it.
  public func write(_ record: LogRecord) {
    if let buffer = Self.current {
      buffer.append(record)
    } else {
      Self.stray.withLock { $0.append(record) }
    }
  }
}

/// The last records, at most `limit` of them. Appending is amortized O(1): the oldest are
/// dropped in batches once twice the limit is held.
struct BoundedRecords {
  let limit: Int
  private var storage: [LogRecord] = []
  private var total = 0

  init(limit: Int) { self.limit = max(1, limit) }

  /// The last `limit` records, oldest first.
  var records: [LogRecord] { Array(storage.suffix(limit)) }
  /// How many records were written before those.
  var dropped: Int { total - min(total, limit) }

  mutating func append(_ record: LogRecord) {
    storage.append(record)
    total += 1
    if storage.count >= 2 * limit { storage.removeFirst(storage.count - limit) }
  }
}

/// One test's records, and whether it failed.
final class TestLogBuffer: Sendable {
  private struct State {
    var records = BoundedRecords(limit: TestLogSink.perTestLimit)
    var hasFailed = false
  }

  private let state = Lock(State())

  var hasFailed: Bool { state.withLock { $0.hasFailed } }

  /// The records kept.
  var records: [LogRecord] { state.withLock { $0.records.records } }

  func append(_ record: LogRecord) { state.withLock { $0.records.append(record) } }

  func markFailed() { state.withLock { $0.hasFailed = true } }

  /// Writes the records to standard error under `test`'s name.
  func print(for test: Test) {
    let own = state.withLock { $0.records }
    let stray = TestLogSink.stray.withLock { $0 }
    guard !own.records.isEmpty || !stray.records.isEmpty else { return }
    var text = "--- log of \(test.name) (\(own.records.count) lines"
    if own.dropped > 0 { text += ", the first \(own.dropped) dropped" }
    text += ")\n"
    text += own.records.map { $0.description + "\n" }.joined()
    if !stray.records.isEmpty {
      text += "--- and the last \(stray.records.count) lines written outside any test's task\n"
      text += stray.records.map { $0.description + "\n" }.joined()
    }
    StandardStream.error.write(text + "--- end of the log of \(test.name)\n")
  }
}
