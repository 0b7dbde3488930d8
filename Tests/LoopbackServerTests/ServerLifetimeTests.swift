import Foundation
import Testing
import TrellisLoopbackServer

#if canImport(Glibc)
  import Glibc
#endif

@Suite("LoopbackServer: routing on raw paths, its lifetime, stopping")
struct ServerLifetimeTests {
  /// `%2F` is a character of a segment, not a separator: the path is split first and each
  /// segment decoded after.
  @Test func anEncodedSlashStaysInItsSegment() throws {
    let router = Router()
    router.get("/files/:name") { request in .text(request.pathParameters["name"] ?? "?") }
    router.get("/files/a/b") { _ in .text("the wrong route") }
    let server = try LoopbackServer(router: router)
    defer { server.stop() }
    let client = try RawClient(port: server.port)
    client.send("GET /files/a%2Fb HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    let answer = client.readAll()
    #expect(RawClient.statuses(in: answer) == [200])
    #expect(answer.hasSuffix("\r\n\r\na/b"), "\(answer)")
    // Other escapes in a segment are decoded too.
    let spaced = try RawClient(port: server.port)
    spaced.send("GET /files/two%20words HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    #expect(spaced.readAll().hasSuffix("\r\n\r\ntwo words"))
  }

  /// A server nobody holds any more stops by itself: its accept thread holds it weakly, so it
  /// is released, and its port no longer reaches it (refused, or, as other tests run in
  /// parallel, another server that took the freed port: it answers with another identity).
  ///
  /// Synchronous on purpose: its waits sleep this thread instead of awaiting a wake-up from the
  /// cooperative pool, which the blocking socket tests running beside it can keep busy for
  /// seconds on a two-core machine. Each wait has its own deadline.
  @Test func aServerNobodyHoldsIsReleasedAndClosesItsPort() throws {
    weak var released: LoopbackServer?
    var port = 0
    let identity = UUID().uuidString
    do {
      let router = Router()
      router.get("/whoami") { _ in .text(identity) }
      let server = try LoopbackServer(router: router)
      port = server.port
      released = server
      #expect(try Self.identity(at: port) == identity)  // a connection that ends
    }
    let isReleased = Self.poll(upTo: .seconds(20)) { released == nil }
    #expect(isReleased, "the server was never released")
    let gone = Self.poll(upTo: .seconds(20)) { (try? Self.identity(at: port)) != identity }
    #expect(gone, "port \(port) still reaches the released server")
  }

  /// Checks `condition` every 20 ms, sleeping this thread, until it holds or `limit` passes.
  private static func poll(upTo limit: Duration, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now.advanced(by: limit)
    while !condition() {
      guard ContinuousClock.now < deadline else { return false }
      Thread.sleep(forTimeInterval: 0.02)
    }
    return true
  }

  /// A server released while a client is connecting (its accept thread wakes with the
  /// connection as its deinit runs on another thread) never shuts down another server's
  /// listener that took the freed descriptor number: each new server still answers.
  @Test func aServerReleasedWhileAClientConnectsLeavesTheNextServerAlone() throws {
    for _ in 0..<150 {
      var port = 0
      do {
        let released = try echoServer()
        port = released.port
        // Connections arriving as the server goes: some reach `accept` after its release.
        let knocking = Thread { [port] in
          for _ in 0..<3 { _ = try? RawClient(port: port, timeout: .milliseconds(200)) }
        }
        knocking.start()
      }
      let next = try echoServer()
      defer { next.stop() }
      #expect(try answers(next), "a new server stopped answering (the released one had \(port))")
    }
  }

  /// What `/whoami` answers on `port` (throws when nothing listens).
  private static func identity(at port: Int) throws -> String {
    let client = try RawClient(port: port, timeout: .seconds(2))
    client.send("GET /whoami HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    let answer = client.readAll()
    return answer.components(separatedBy: "\r\n\r\n").last ?? ""
  }

  /// Stopping while connections end on their own never shuts down a descriptor the system gave
  /// to another socket meanwhile: the bystander sockets opened and closed alongside keep
  /// working. (The race is closed by construction: connections are shut down and closed under
  /// one lock; this runs it many times.)
  @Test func stoppingWhileConnectionsCloseLeavesOtherSocketsAlone() throws {
    for _ in 0..<30 {
      let server = try echoServer()
      let clients = try (0..<8).map { _ in try RawClient(port: server.port) }
      for client in clients {
        client.send("GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      }
      // Descriptors that may take the numbers the server's connections free.
      var pairs: [[Int32]] = []
      for _ in 0..<8 {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { continue }
        pairs.append(pair)
      }
      server.stop()
      for pair in pairs {
        var byte: UInt8 = 42
        #expect(
          send(pair[0], &byte, 1, Int32(MSG_NOSIGNAL)) == 1, "a bystander socket was shut down")
        var read: UInt8 = 0
        #expect(recv(pair[1], &read, 1, Int32(MSG_DONTWAIT)) == 1)
        close(pair[0])
        close(pair[1])
      }
    }
  }
}
