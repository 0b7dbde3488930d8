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
