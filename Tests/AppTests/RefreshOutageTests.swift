import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisDemoBackend
import TrellisNetwork
import TrellisRepository
import TrellisService

/// The refresh's answer is lost on its way back (the server rotated the refresh token; the app
/// never saw the new one), then the network stays down for minutes: the app comes back with
/// the old token, and the server must still take it.
@Suite("A refresh lost in an outage", .capturesLogs, .timeLimit(.minutes(1)))
struct RefreshOutageTests {
  /// The network between the app and the demo backend, as the test sets it.
  final class Network: HTTPResponder {
    enum Mode {
      /// Requests and answers pass.
      case up
      /// The next request reaches the server, its answer is lost, and the network goes down.
      case losesTheNextAnswer
      /// Nothing reaches the server.
      case down
    }

    private let server: any HTTPResponder
    private let mode = Mutex(Mode.up)

    init(_ server: some HTTPResponder) { self.server = server }

    func set(_ mode: Mode) { self.mode.withLock { $0 = mode } }

    func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
      switch mode.withLock({ $0 }) {
      case .up:
        return try await server.respond(to: request)
      case .losesTheNextAnswer:
        _ = try await server.respond(to: request)
        set(.down)
        throw .transport(TransportFailure(.connectionLost, detail: "the answer was lost"))
      case .down:
        throw .transport(TransportFailure(.cannotConnect, detail: "no network"))
      }
    }
  }

  private struct Me: HTTPEndpoint {
    var path: String { "/me" }
    var method: HTTPMethod { .get }
  }

  @Test func theAnswerLostThenFiveMinutesOfflineAndTheSessionIsStillThere() async throws {
    let clock = ManualClock()
    let backend = DemoBackend(configuration: .instant, now: { clock.now })
    let network = Network(backend.router)
    let transport = StubTransport(responder: network)
    let baseURL = URL(string: "http://demo.example")!
    let store = InMemorySessionStore()
    let service = AuthServiceImpl(
      repo: AuthRepoImpl(
        requester: HTTPRequester<AuthDataAPI>(baseURL: baseURL, transport: transport)),
      store: store, logger: Logger(category: "Auth", sink: MemoryLogSink()))
    _ = try await service.login(username: "alice", password: "alice1234")

    // The server rotates the token, the answer is lost, and the one retry meets the outage.
    network.set(.losesTheNextAnswer)
    await #expect(throws: AuthenticationFailure.self) { try await service.refreshAccessToken() }
    #expect(service.sessionState.value.user?.username == "alice")
    clock.advance(by: 5 * 60)

    // The network is back: the next refresh, with the token the app still holds, works.
    network.set(.up)
    let token = try await service.refreshAccessToken()
    #expect(service.sessionState.value.user?.username == "alice")
    #expect(try store.load()?.accessToken == token.value)
    let requester = HTTPRequester<Me>(
      baseURL: baseURL, transport: transport, plugins: [AuthPlugin(source: service)])
    #expect(try await requester.request(Me()).status == 200)
  }
}
