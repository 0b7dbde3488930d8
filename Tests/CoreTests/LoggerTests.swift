import Foundation
import Testing
import TrellisCore

@Suite("Logger and redaction")
struct LoggerTests {
  @Test func recordsBelowTheMinimumLevelAreDropped() {
    let sink = MemoryLogSink()
    let logger = Logger(category: "Test", sink: sink, minimumLevel: .info)
    logger.debug("hidden")
    logger.info("shown")
    logger.error("failed")
    #expect(sink.messages == ["shown", "failed"])
    #expect(sink.records.map(\.level) == [.info, .error])
    #expect(sink.records.allSatisfy { $0.category == "Test" })
  }

  @Test func messagesAreOnlyBuiltWhenTheirLevelIsEnabled() {
    let sink = MemoryLogSink()
    let logger = Logger(category: "Test", sink: sink, minimumLevel: .warning)
    var built = false
    func expensive() -> String {
      built = true
      return "x"
    }
    logger.debug("\(expensive())")
    #expect(!built)
  }

  @Test func secretInterpolationsAreRedacted() {
    let sink = MemoryLogSink()
    let logger = Logger(category: "Auth", sink: sink, minimumLevel: .trace)
    let token = "eyJhbGciOi.secret.token"
    logger.info("Bearer \(token, privacy: .secret) for \("alice")")
    #expect(sink.messages == ["Bearer <redacted> for alice"])
    #expect(!sink.messages[0].contains(token))
  }

  @Test func redactorHidesSensitiveHeadersAndJSONFields() {
    let redactor = SecretRedactor(additionalKeys: ["X-Session"])
    let headers = redactor.redacting([
      "Authorization": "Bearer abc", "Accept": "application/json", "x-session": "s1",
    ])
    #expect(headers["Authorization"] == "<redacted>")
    #expect(headers["x-session"] == "<redacted>")
    #expect(headers["Accept"] == "application/json")

    let body: [String: Any] = [
      "username": "alice", "password": "hunter2",
      "nested": ["refresh_token": "r1", "ok": 1] as [String: Any],
    ]
    let redacted = redactor.redacting(jsonObject: body) as? [String: Any]
    #expect(redacted?["password"] as? String == "<redacted>")
    #expect(redacted?["username"] as? String == "alice")
    let nested = redacted?["nested"] as? [String: Any]
    #expect(nested?["refresh_token"] as? String == "<redacted>")
    #expect(nested?["ok"] as? Int == 1)
  }

  @Test func levelsParseFromTheirNames() {
    #expect(LogLevel(name: "DEBUG") == .debug)
    #expect(LogLevel(name: "loud") == nil)
    #expect(LogLevel.warning > LogLevel.info)
  }

  @Test func aFileSinkAppendsLinesWithOwnerOnlyPermissions() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-log-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("app.log")
    let sink = try FileLogSink(url: url)
    sink.write(LogRecord(level: .info, category: "App", message: "one"))
    sink.write(LogRecord(level: .error, category: "App", message: "two"))
    let text = try String(contentsOf: url, encoding: .utf8)
    #expect(text.split(separator: "\n").count == 2)
    #expect(text.contains("[error] [App] two"))
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
  }

  /// A log file left readable by others (an older version, a hand-made file) is narrowed to
  /// its owner when opened.
  @Test func aFileSinkNarrowsAWiderFileToItsOwner() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-log-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent("app.log")
    #expect(
      FileManager.default.createFile(
        atPath: url.path, contents: Data("old line\n".utf8),
        attributes: [.posixPermissions: 0o644]))
    let sink = try FileLogSink(url: url)
    sink.write(LogRecord(level: .info, category: "App", message: "new"))
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    #expect(try String(contentsOf: url, encoding: .utf8).hasPrefix("old line\n"))
  }

  /// The file is bounded: once full it moves to `<name>.1` (replacing the one before) and a
  /// new one begins, so the log never takes much more than twice the bound; the lines written
  /// last are all there.
  @Test func aFileSinkIsBoundedByMovingAFullFileAside() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-log-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("app.log")
    let previous = URL(fileURLWithPath: url.path + ".1")
    let sink = try FileLogSink(url: url, maximumSize: 1_000)
    for index in 0..<200 {
      sink.write(LogRecord(level: .info, category: "App", message: "line \(index)"))
    }
    let current = try Data(contentsOf: url)
    let moved = try Data(contentsOf: previous)
    #expect(current.count <= 1_000 && moved.count <= 1_000)
    #expect(moved.count > 900)  // moved when the next line would not fit
    let lines = (String(decoding: moved, as: UTF8.self) + String(decoding: current, as: UTF8.self))
      .split(separator: "\n")
    #expect(lines.last?.hasSuffix("line 199") == true)
    #expect(lines.count > 20)
    // Nothing but the two files.
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    #expect(names == ["app.log", "app.log.1"])
    // Erased (the user signed out): both go, and the log goes on from nothing.
    sink.erase()
    #expect(try Data(contentsOf: url).isEmpty)
    #expect(!FileManager.default.fileExists(atPath: previous.path))
    sink.write(LogRecord(level: .info, category: "App", message: "after"))
    #expect(try String(contentsOf: url, encoding: .utf8).hasSuffix("after\n"))
  }

  /// A log "file" that is not a regular file (`--log-file` naming a pipe, a terminal or
  /// `/dev/null`) is written to as it is: never narrowed, moved or emptied. A pipe in a folder
  /// of the test's own stands for them (its mode and place can be checked as any user).
  @Test func aFileSinkLeavesAPipeOrADeviceAlone() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-log-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent("pipe")
    try #require(mkfifo(url.path, 0o644) == 0)
    try #require(chmod(url.path, 0o644) == 0)  // whatever the umask
    // A reader first, so that opening the pipe for writing does not wait for one.
    let reader = open(url.path, O_RDONLY | O_NONBLOCK)
    try #require(reader >= 0)
    defer { _ = close(reader) }
    let sink = try FileLogSink(url: url, maximumSize: 10)
    for index in 0..<5 {
      sink.write(LogRecord(level: .info, category: "App", message: "line \(index)"))
    }
    sink.erase()
    let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions]
    #expect((mode as? NSNumber)?.intValue == 0o644)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["pipe"])
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count: Int = buffer.withUnsafeMutableBytes { bytes in
      read(reader, bytes.baseAddress, bytes.count)
    }
    #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).contains("line 4"))
  }

  @Test func caseNamePrivacyWritesTheCaseWithoutItsPayload() {
    enum Action {
      case setPassword(String)
      case signIn
      case move(x: Int, y: Int)
    }
    struct Plain { var password = "hunter2" }
    let sink = MemoryLogSink()
    let logger = Logger(category: "Test", sink: sink, minimumLevel: .trace)
    logger.debug("\(Action.setPassword("hunter2"), privacy: .caseName)")
    logger.debug(
      "\(Action.signIn, privacy: .caseName) \(Action.move(x: 1, y: 2), privacy: .caseName)")
    logger.debug("\(Plain(), privacy: .caseName)")
    #expect(sink.messages == ["setPassword", "signIn move", "Plain"])
  }

  @Test @MainActor func anActionDroppedAfterStopIsLoggedWithoutItsPayload() {
    let sink = MemoryLogSink()
    let reactor = ScriptReactor(
      logger: Logger(category: "ScriptReactor", sink: sink, minimumLevel: .trace))
    reactor.send("first")
    reactor.stop()
    reactor.send("password hunter2")
    #expect(sink.messages.contains { $0.hasPrefix("Dropped an action sent after stop()") })
    #expect(!sink.messages.contains { $0.contains("hunter2") })
  }
}

@Suite("A log file shared by two instances of the app")
struct SharedLogFileTests {
  /// Two instances writing in turns keep the bound together (each looks at the file's size);
  /// one that moved the file aside, or erased the log, leaves the other writing to the file at
  /// the path from its next line, not to the one moved or removed; so does a log removed by
  /// hand.
  @Test func twoSinksShareTheBoundTheMoveAndTheErase() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-log-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("app.log")
    let previous = URL(fileURLWithPath: url.path + ".1")
    let first = try FileLogSink(url: url, maximumSize: 1_000)
    let second = try FileLogSink(url: url, maximumSize: 1_000)
    for index in 0..<300 {
      let (name, sink) = index.isMultiple(of: 2) ? ("first", first) : ("second", second)
      sink.write(LogRecord(level: .info, category: name, message: "line \(index)"))
    }
    #expect(try Data(contentsOf: url).count <= 1_000)
    #expect(try Data(contentsOf: previous).count <= 1_000)
    #expect(try String(contentsOf: url, encoding: .utf8).hasSuffix("line 299\n"))

    // The second writes a line; the first fills the file and moves it aside: the second's
    // next line goes to the new file.
    first.erase()
    second.write(LogRecord(level: .info, category: "second", message: "before the move"))
    while !FileManager.default.fileExists(atPath: previous.path) {
      first.write(LogRecord(level: .info, category: "first", message: "filling"))
    }
    second.write(LogRecord(level: .info, category: "second", message: "after the move"))
    #expect(try String(contentsOf: url, encoding: .utf8).contains("after the move"))
    // The first erases the log (its user left): the second's next line goes to the emptied
    // file, not to the removed one.
    first.erase()
    #expect(try Data(contentsOf: url).isEmpty)
    #expect(!FileManager.default.fileExists(atPath: previous.path))
    second.write(LogRecord(level: .info, category: "second", message: "after the erase"))
    first.write(LogRecord(level: .info, category: "first", message: "after the erase"))
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 2)
    // The log removed by hand while the app runs: the next line begins a new one.
    try FileManager.default.removeItem(at: url)
    second.write(LogRecord(level: .info, category: "second", message: "after the removal"))
    #expect(try String(contentsOf: url, encoding: .utf8).hasSuffix("after the removal\n"))
  }

  @Test func twoSinksOnOneFileNeverClobberEachOthersLines() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-log-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("app.log")
    // Two instances of the app, each with its own open file.
    let first = try FileLogSink(url: url)
    let second = try FileLogSink(url: url)
    await withTaskGroup(of: Void.self) { group in
      for (name, sink) in [("first", first), ("second", second)] {
        group.addTask {
          for index in 0..<500 {
            sink.write(LogRecord(level: .info, category: name, message: "line \(index) of \(name)"))
          }
        }
      }
    }
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 1000)
    let wellFormed = lines.filter { $0.contains("[info] [") && $0.contains(" of ") }
    #expect(wellFormed.count == 1000, "\(lines.count - wellFormed.count) lines clobbered")
  }
}
