import Testing
import TrellisCore

@testable import TrellisCoreTesting

/// What `.capturesLogs` keeps for a test: its own records (from its task and the tasks it
/// starts), the records no test's task wrote apart, each bounded.
@Suite("Captured logs")
struct CapturedLogsTests {
  @Test func aRecordGoesToTheTestWhoseTaskWroteIt() async {
    let mine = TestLogBuffer()
    let sink = TestLogSink()
    let record = LogRecord(level: .info, category: "Test", message: "mine")
    await TestLogSink.$current.withValue(mine) {
      sink.write(record)
      await Task { sink.write(LogRecord(level: .info, category: "Test", message: "child")) }.value
    }
    #expect(mine.records.map(\.message) == ["mine", "child"])
    // Outside any test's task: kept apart.
    let marker = "stray \(Int.random(in: 0..<1_000_000))"
    sink.write(LogRecord(level: .info, category: "Test", message: marker))
    #expect(TestLogSink.stray.withLock { $0.records.contains { $0.message == marker } })
    #expect(!mine.records.contains { $0.message == marker })
  }

  @Test func aBufferKeepsTheLastRecordsAndCountsTheRest() {
    var records = BoundedRecords(limit: 3)
    for index in 0..<5 {
      records.append(LogRecord(level: .info, category: "Test", message: "\(index)"))
    }
    #expect(records.records.map(\.message) == ["2", "3", "4"])
    #expect(records.dropped == 2)
  }

  @Test func aFailureIsRemembered() {
    let buffer = TestLogBuffer()
    #expect(!buffer.hasFailed)
    buffer.markFailed()
    #expect(buffer.hasFailed)
  }
}
