import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisLoopbackServer
import TrellisNetwork

@testable import TrellisLoopbackServer

#if canImport(Glibc)
  import Glibc
#endif

/// A server with one route that echoes the body's size, for hostile-input tests.
func echoServer(limits: LoopbackServer.Limits = LoopbackServer.Limits()) throws -> LoopbackServer {
  let router = Router()
  router.post("/echo") { request in .text("\(request.body.count)") }
  router.get("/ok") { _ in .text("ok") }
  return try LoopbackServer(router: router, limits: limits)
}

/// Whether the server still answers a plain request.
func answers(_ server: LoopbackServer) throws -> Bool {
  let client = try RawClient(port: server.port)
  client.send("GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
  return RawClient.statuses(in: client.readAll()) == [200]
}

@Suite("LoopbackServer under hostile input")
struct HostileRequestTests {
  @Test(arguments: [
    "7fffffffffffffff", "ffffffffffffffff", "8000000000000000", "fffffffffffffffffffff",
  ])
  func anAbsurdChunkSizeIsRefusedAndTheServerLives(size: String) throws {
    let server = try echoServer()
    defer { server.stop() }
    let client = try RawClient(port: server.port)
    client.send(
      "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "4\r\nabcd\r\n\(size)\r\n")
    let statuses = RawClient.statuses(in: client.readAll())
    #expect(statuses == [413] || statuses == [400], "\(statuses)")
    #expect(try answers(server))
  }

  @Test func aChunkedBodyArrivesWholeEvenByteByByte() throws {
    let server = try echoServer()
    defer { server.stop() }
    let client = try RawClient(port: server.port)
    let request =
      "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
      + "5\r\nhello\r\na;ext=1\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n"
    for byte in request.utf8 { client.send([byte]) }
    let answer = client.readAll()
    #expect(RawClient.statuses(in: answer) == [200])
    #expect(answer.hasSuffix("15"))
  }

  @Test(arguments: [
    ("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nhello", 400),
    ("GET / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400),
    ("POST /echo HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 400),
    ("POST /echo HTTP/1.1\r\nContent-Length: 999999999999\r\n\r\n", 413),
    ("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n", 400),
    ("POST /echo HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
    ("GET / HTTP/2.0\r\n\r\n", 505),
    ("GET /\r\n\r\n", 400),
    ("G@T / HTTP/1.1\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\nNo colon here\r\n\r\n", 400),
    ("GET / HTTP/1.1\r\n folded: value\r\n\r\n", 400),
    ("GET / HTTP/1.1\nHost: x\r\n\r\n", 400),
    ("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
    ("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXX", 400),
  ])
  func aMalformedRequestIsAnsweredWithTheRightStatus(request: String, status: Int) throws {
    let server = try echoServer()
    defer { server.stop() }
    let client = try RawClient(port: server.port)
    client.send(request)
    #expect(RawClient.statuses(in: client.readAll()) == [status])
    #expect(try answers(server))
  }

  @Test func aHeadOverTheLimitIs431AndTooManyFieldsToo() throws {
    var limits = LoopbackServer.Limits()
    limits.maximumHeadSize = 1024
    limits.maximumHeaderFields = 10
    let server = try echoServer(limits: limits)
    defer { server.stop() }
    let long = try RawClient(port: server.port)
    long.send("GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 4000))
    #expect(RawClient.statuses(in: long.readAll()) == [431])
    let many = try RawClient(port: server.port)
    many.send("GET / HTTP/1.1\r\n" + (0..<20).map { "X-\($0): y\r\n" }.joined() + "\r\n")
    #expect(RawClient.statuses(in: many.readAll()) == [431])
  }

  @Test func pipelinedRequestsAreAnsweredInOrder() throws {
    let server = try echoServer()
    defer { server.stop() }
    let client = try RawClient(port: server.port)
    client.send(
      "POST /echo HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
        + "GET /ok HTTP/1.1\r\n\r\n"
        + "POST /echo HTTP/1.1\r\nContent-Length: 1\r\nConnection: close\r\n\r\nz")
    let answer = client.readAll()
    #expect(RawClient.statuses(in: answer) == [200, 200, 200])
    #expect(answer.hasSuffix("1"))
  }

  @Test func aSlowHeadIsCutOffAtTheHeaderDeadline() throws {
    var limits = LoopbackServer.Limits()
    limits.headerTimeout = .milliseconds(300)
    let server = try echoServer(limits: limits)
    defer { server.stop() }
    let client = try RawClient(port: server.port)
    client.send("GET /ok HTTP/1.1\r\n")
    // A slowloris client: a header byte now and then, never the end of the head.
    var answer = ""
    for _ in 0..<40 {
      Thread.sleep(forTimeInterval: 0.05)
      if !client.send("X") { break }
    }
    answer = client.readAll()
    #expect(RawClient.statuses(in: answer) == [408])
    #expect(try answers(server))
  }

  @Test func connectionsBeyondTheMaximumAreAnswered503() throws {
    var limits = LoopbackServer.Limits()
    limits.maximumConnections = 4
    let server = try echoServer(limits: limits)
    defer { server.stop() }
    let held = try (0..<4).map { _ in try RawClient(port: server.port) }
    // Wait (bounded) until the server has accepted all four.
    for _ in 0..<500 where server.openConnections < 4 { Thread.sleep(forTimeInterval: 0.01) }
    #expect(server.openConnections == 4)
    let extra = try RawClient(port: server.port)
    #expect(RawClient.statuses(in: extra.readAll()) == [503])
    #expect(server.refusedConnections == 1)
    withExtendedLifetime(held) {}
  }

  @Test func anIdleConnectionIsClosedAfterTheIdleTimeout() throws {
    var limits = LoopbackServer.Limits()
    limits.idleTimeout = .milliseconds(200)
    let server = try echoServer(limits: limits)
    defer { server.stop() }
    let client = try RawClient(port: server.port)
    // Nothing sent: the server closes without answering, well before the client's 10 s.
    #expect(client.readAll() == "")
    for _ in 0..<500 where server.openConnections > 0 { Thread.sleep(forTimeInterval: 0.01) }
    #expect(server.openConnections == 0)
  }

  @Test func transientAcceptFailuresAreRetried() throws {
    let failures = Mutex([EMFILE, ENFILE, ENOBUFS, ECONNABORTED])
    let router = Router()
    router.get("/ok") { _ in .text("ok") }
    let server = try LoopbackServer(
      router: router, port: 0, limits: LoopbackServer.Limits(), recordedRequests: 0,
      logger: Logger(category: "test", sink: MemoryLogSink()),
      accept: { listener in
        if let code = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
          return (-1, code)
        }
        let descriptor = Glibc.accept(listener, nil, nil)
        return (descriptor, descriptor < 0 ? errno : 0)
      })
    defer { server.stop() }
    #expect(try answers(server))
    #expect(server.acceptFailures == 4)
  }

  @Test func requestsAreRecordedOnlyWhenAskedBoundedAndWithoutSecrets() throws {
    let quiet = try echoServer()
    defer { quiet.stop() }
    #expect(try answers(quiet))
    #expect(quiet.requests.isEmpty)

    let router = Router()
    router.get("/ok") { _ in .text("ok") }
    let recording = try LoopbackServer(router: router, recordedRequests: 3)
    defer { recording.stop() }
    for index in 0..<5 {
      let client = try RawClient(port: recording.port)
      client.send(
        "GET /ok?n=\(index) HTTP/1.1\r\nAuthorization: Bearer secret-\(index)\r\n"
          + "Connection: close\r\n\r\n")
      _ = client.readAll()
    }
    #expect(recording.requests.count == 3)
    #expect(recording.requests.allSatisfy { $0.headers["Authorization"] == "<redacted>" })
  }
}
