import Foundation
import Testing
import TrellisNetwork

@testable import TrellisLoopbackServer

/// A small, fast, seedable generator (SplitMix64), so every fuzz case can be replayed from
/// its seed.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Bytes from memory, delivered in the chunks given, then the end of the stream.
struct MemorySource: ByteSource {
  var chunks: [[UInt8]]
  private var next = 0

  init(chunks: [[UInt8]]) { self.chunks = chunks }

  mutating func receive(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant)
    -> ReceiveStatus
  {
    guard next < chunks.count else { return .closed }
    buffer += chunks[next]
    next += 1
    return .received
  }
}

/// How many generated cases a run checks: a few thousand in `swift test`, more when
/// `TRELLIS_FUZZ_CASES` says so (`Tests/LoopbackServerTests/fuzz.sh`).
let fuzzCases = ProcessInfo.processInfo.environment["TRELLIS_FUZZ_CASES"].flatMap(Int.init) ?? 2000
/// The first seed; the script varies it between runs.
let fuzzSeed = ProcessInfo.processInfo.environment["TRELLIS_FUZZ_SEED"].flatMap(UInt64.init) ?? 1

/// Builds requests, valid and broken, from a generator.
struct RequestGenerator {
  var random: SeededGenerator

  mutating func pick<T>(_ options: [T]) -> T {
    options[Int.random(in: 0..<options.count, using: &random)]
  }
  mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

  /// A valid request with a body of known size, and that size.
  mutating func validRequest() -> (bytes: [UInt8], bodySize: Int) {
    let body = [UInt8](repeating: UInt8(ascii: "b"), count: Int.random(in: 0..<300, using: &random))
    var head =
      "\(pick(["GET", "POST", "PUT", "DELETE"])) /echo?x=\(Int.random(in: 0...9, using: &random)) HTTP/1.1\r\n"
    head += "Host: 127.0.0.1\r\n"
    for index in 0..<Int.random(in: 0..<5, using: &random) { head += "X-F\(index): v\(index)\r\n" }
    var bytes: [UInt8]
    if chance(50) {
      head += "Transfer-Encoding: chunked\r\n\r\n"
      bytes = Array(head.utf8)
      var offset = 0
      while offset < body.count {
        let size = min(body.count - offset, Int.random(in: 1...64, using: &random))
        bytes +=
          Array("\(String(size, radix: 16))\r\n".utf8) + body[offset..<(offset + size)] + [13, 10]
        offset += size
      }
      bytes += Array("0\r\n\r\n".utf8)
    } else {
      head += "Content-Length: \(body.count)\r\n\r\n"
      bytes = Array(head.utf8) + body
    }
    return (bytes, body.count)
  }

  /// Breaks `bytes` in one of the ways hostile clients do.
  mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
    var bytes = bytes
    switch Int.random(in: 0..<9, using: &random) {
    case 0:  // flip random bytes
      for _ in 0..<Int.random(in: 1...8, using: &random) where !bytes.isEmpty {
        bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(
          in: 0...255, using: &random)
      }
    case 1:  // cut short (an early close)
      bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
    case 2:  // an absurd length
      bytes = Array(
        "POST /echo HTTP/1.1\r\nContent-Length: \(pick(["-1", "18446744073709551616", "9223372036854775807", "0x10", "1e3", " 5", "5,5"]))\r\n\r\n"
          .utf8)
    case 3:  // an absurd chunk size
      bytes = Array(
        "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n\(pick(["7fffffffffffffff", "-1", "ffffffffffffffffff", "g", "", "1;" + String(repeating: "e", count: 2000)]))\r\nxx\r\n0\r\n\r\n"
          .utf8)
    case 4:  // random garbage
      bytes = (0..<Int.random(in: 0..<400, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
    case 5:  // duplicate, conflicting framing
      bytes = Array(
        "POST /echo HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc".utf8)
    case 6:  // a huge header
      bytes = Array(
        "GET / HTTP/1.1\r\nX: \(String(repeating: "a", count: Int.random(in: 1000...80000, using: &random)))\r\n\r\n"
          .utf8)
    case 7:  // an endless trailer
      bytes =
        Array("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n".utf8)
        + Array(String(repeating: "T: x\r\n", count: 3000).utf8)
    default:  // two requests glued, the second broken
      bytes += mutate(validRequest().bytes)
    }
    return bytes
  }

  /// `bytes` cut into random chunks (sometimes one byte at a time).
  mutating func chunks(_ bytes: [UInt8]) -> [[UInt8]] {
    if chance(10) { return bytes.map { [$0] } }
    var chunks: [[UInt8]] = []
    var offset = 0
    while offset < bytes.count {
      let size = min(bytes.count - offset, Int.random(in: 1...512, using: &random))
      chunks.append(Array(bytes[offset..<(offset + size)]))
      offset += size
    }
    return chunks
  }
}

/// The statuses the reader may refuse a request with.
let refusalStatuses: Set<Int> = [400, 408, 413, 431, 501, 505]

@Suite("The HTTP request reader, fuzzed")
struct RequestFuzzTests {
  @Test func validRequestsInAnyChunkingParseToTheirBodies() {
    var generator = RequestGenerator(random: SeededGenerator(seed: fuzzSeed))
    for _ in 0..<fuzzCases {
      let (bytes, size) = generator.validRequest()
      var source = MemorySource(chunks: generator.chunks(bytes))
      var reader = RequestReader(limits: LoopbackServer.Limits())
      guard case .request(let request) = reader.next(from: &source) else {
        Issue.record("a valid request was refused: \(String(decoding: bytes, as: UTF8.self))")
        return
      }
      #expect(request.request.body.count == size)
      #expect(reader.pendingByteCount == 0)
    }
  }

  @Test func brokenRequestsNeverTrapAndAreRefusedWithAClientError() {
    var generator = RequestGenerator(random: SeededGenerator(seed: fuzzSeed &+ 1))
    var limits = LoopbackServer.Limits()
    limits.maximumBodySize = 1024 * 1024
    for _ in 0..<fuzzCases {
      let bytes = generator.mutate(generator.validRequest().bytes)
      var source = MemorySource(chunks: generator.chunks(bytes))
      var reader = RequestReader(limits: limits)
      // Read everything the bytes hold, as a connection would: at most a few requests.
      for _ in 0..<8 {
        switch reader.next(from: &source) {
        case .request(let request):
          #expect(request.request.body.count <= limits.maximumBodySize)
          continue
        case .reject(let status, _):
          #expect(refusalStatuses.contains(status), "status \(status)")
        case .end:
          break
        }
        break
      }
    }
  }

  @Test func theLiveServerSurvivesBrokenRequestsAndKeepsAnswering() throws {
    let server = try echoServer()
    defer { server.stop() }
    var generator = RequestGenerator(random: SeededGenerator(seed: fuzzSeed &+ 2))
    for _ in 0..<max(20, fuzzCases / 30) {
      let client = try RawClient(port: server.port, timeout: .seconds(5))
      for chunk in generator.chunks(generator.mutate(generator.validRequest().bytes)) {
        guard client.send(chunk) else { break }
      }
      client.finishSending()
      let statuses = RawClient.statuses(in: client.readAll())
      #expect(statuses.allSatisfy { [200, 404, 405].contains($0) || refusalStatuses.contains($0) })
    }
    #expect(try answers(server))
  }
}
