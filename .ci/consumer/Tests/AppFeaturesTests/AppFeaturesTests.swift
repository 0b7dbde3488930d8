import AppFeatures
import Foundation
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisNetwork
import TrellisRepository
import TrellisService

/// The app team's tests, on `TrellisCoreTesting` from the library products.
@MainActor
@Suite("The app's own screens, store, log and services")
struct AppFeaturesTests {
  @Test func theSearchWaitsForAPauseAndTheLatestQueryWins() async throws {
    let clock = TestClock()
    let tester = ReactorTester(QuickSearchReactor(clock: clock) { query in ["\(query): 1 result"] })
    tester.send(.type("m"))
    try await tester.expect { $0.query = "m" }
    tester.send(.type("mi"))
    try await tester.expect { $0.query = "mi" }
    #expect(await clock.waitForSleepers(1))
    await clock.advance(by: .milliseconds(300))
    try await tester.expect { $0.results = ["mi: 1 result"] }
    tester.send(.clear)
    try await tester.expect { $0.query = "" }
    try await tester.expect { $0.results = [] }
    try await tester.finish()
  }

  @Test func theScreensFieldSendsActionsAndReadsTheState() async throws {
    let clock = TestClock()
    let reactor = QuickSearchReactor(clock: clock) { _ in ["found"] }
    let screen = QuickSearchScreen(reactor: reactor)
    screen.field.set("milk")
    #expect(screen.field.get() == "milk")
    #expect(await clock.waitForSleepers(1))
    await clock.advance(by: .milliseconds(300))
    #expect(await eventually { screen.rows == ["found"] })
    screen.clear()
    #expect(screen.field.get() == "")
  }

  @Test func theKeychainStoreKeepsTheSessionForTheAuthService() async throws {
    let item = MemoryKeychainItem()
    let transport = StubTransport(responder: SignIn())
    let base = URL(string: "https://api.example.com")!
    let first = AuthServiceImpl(
      repo: AuthRepoImpl(requester: HTTPRequester(baseURL: base, transport: transport)),
      store: KeychainSessionStore(item: item))
    _ = try await first.login(username: "dana", password: "secret")
    let relaunched = AuthServiceImpl(
      repo: AuthRepoImpl(requester: HTTPRequester(baseURL: base, transport: transport)),
      store: KeychainSessionStore(item: item))
    #expect(await relaunched.restoreSession().user?.username == "dana")
    await relaunched.logout()
    #expect(item.data == nil)
    // An item that is not a session starts signed out.
    item.data = Data("garbage".utf8)
    #expect(await relaunched.restoreSession() == .signedOut)
  }

  @Test func theSystemLogGetsEachRecordAtItsLevelInItsCategory() {
    let written = Lock<[String]>([])
    let sink = SystemLogSink { category in RecordingLog(category: category, written: written) }
    sink.write(LogRecord(level: .warning, category: "HTTP", message: "GET /bookmarks: offline"))
    sink.write(LogRecord(level: .notice, category: "Auth", message: "Signed in"))
    #expect(
      written.withLock { $0 } == ["HTTP error GET /bookmarks: offline", "Auth default Signed in"])
    #expect(SystemLogSink.level(of: .trace) == .debug)
  }

  @Test func aBlankBookmarkIsRefusedBeforeAnyRequest() async {
    let bookmarks = BookmarkServiceImpl(
      repo: BookmarkRepoImpl(
        requester: HTTPRequester(
          baseURL: URL(string: "https://api.example.com")!, transport: StubTransport())))
    await #expect(
      throws: ServiceError(.validation, "Write something first.", fields: ["text": "required"])
    ) {
      try await bookmarks.add("  ")
    }
  }
}

/// A Keychain item in memory.
nonisolated final class MemoryKeychainItem: KeychainItem {
  private let stored = Lock<Data?>(nil)
  var data: Data? {
    get { stored.withLock { $0 } }
    set { stored.withLock { $0 = newValue } }
  }
  func read() throws -> Data? { data }
  func write(_ data: Data) throws { self.data = data }
  func delete() throws { data = nil }
}

/// A system log that records what it is given.
nonisolated struct RecordingLog: SystemLog {
  let category: String
  let written: Lock<[String]>
  func log(_ level: SystemLogLevel, _ message: String) {
    written.withLock { $0.append("\(category) \(level) \(message)") }
  }
}

/// Signs anyone in, and takes sign-outs.
nonisolated struct SignIn: HTTPResponder {
  func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
    let body =
      #"{"accessToken":"at-1","refreshToken":"rt-1","expiresIn":3600,"user":{"id":7,"username":"dana","displayName":"Dana Ito","email":"dana@example.com","title":"iOS","bio":""}}"#
    return HTTPResponse(
      status: request.url.path == "/auth/logout" ? 204 : 200,
      headers: ["Content-Type": "application/json"], body: Data(body.utf8), request: request)
  }
}
