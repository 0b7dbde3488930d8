// NetworkBenchmark: what the HTTPRequester's plugin chain costs against the network itself.
//
//   swift run -c release NetworkBenchmark                   # 2,000 requests per case, 5 runs
//   swift run -c release NetworkBenchmark --requests 40 --runs 1 --refresh-requests 100   # smoke test (CI)
//
// Against a LoopbackServer on 127.0.0.1, one line per case:
//   raw          URLSession alone (`data(for:)`), sequential GETs: microseconds per request
//   raw-handler  URLSession alone with `dataTask(with:completionHandler:)`, the form the
//                transport uses (see URLSessionTransport on why not `data(for:)` on Linux)
//   requester    HTTPRequester (URLSessionTransport, AuthPlugin, LoggingPlugin disabled), with
//                the transport's defaults: the body taken from the delegate chunk by chunk, so
//                its size is bounded (50 MiB)
//   requester-unbounded  the same with `maximumResponseSize: nil`: URLSession collects the body
//                behind a completion handler, with no size bound (what the bound costs)
//   *-concurrent the same with 32 requests in flight
//   chain        the requester and its plugins alone, on a transport that answers at once:
//                what the chain itself costs per request, with no network
//   refresh      refresh calls made for 1,000 concurrent requests on an expired token
// Raw and requester alternate in blocks, so both see the same machine; each ratio is the
// median over runs of (requester time / raw time) within a run.
import Foundation
import Synchronization
import TrellisCore
import TrellisLoopbackServer
import TrellisNetwork

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

struct Options {
  var requests = 2000
  var runs = 5
  var concurrency = 32
  var refreshRequests = 1000

  init(arguments: [String]) {
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "--requests": requests = iterator.next().flatMap(Int.init) ?? requests
      case "--runs": runs = iterator.next().flatMap(Int.init) ?? runs
      case "--concurrency": concurrency = iterator.next().flatMap(Int.init) ?? concurrency
      case "--refresh-requests":
        refreshRequests = iterator.next().flatMap(Int.init) ?? refreshRequests
      default:
        print(
          "usage: NetworkBenchmark [--requests N] [--runs N] [--concurrency N] "
            + "[--refresh-requests N]")
        exit(2)
      }
    }
  }
}

enum BenchmarkAPI: HTTPEndpoint {
  case item(Int)

  @TaskLocal static var server = URL(string: "http://127.0.0.1:9")!

  var baseURL: URL? { Self.server }
  var path: String {
    switch self {
    case .item(let id): "/items/\(id)"
    }
  }
  var method: HTTPMethod { .get }
}

/// A session whose token never expires, or one that starts expired and counts refreshes.
final class BenchmarkTokenSource: AuthTokenSource {
  private let token: Mutex<AccessToken>
  private let refreshes = Atomic<Int>(0)

  init(expired: Bool) {
    token = Mutex(
      AccessToken(
        value: "benchmark-token",
        expiresAt: Date().addingTimeInterval(expired ? -60 : 3600)))
  }

  var refreshCount: Int { refreshes.load(ordering: .relaxed) }
  var currentAccessToken: AccessToken? { token.withLock { $0 } }

  func refreshAccessToken() async throws -> AccessToken {
    refreshes.add(1, ordering: .relaxed)
    try await Task.sleep(for: .milliseconds(20))
    let fresh = AccessToken(value: "benchmark-token-2", expiresAt: Date().addingTimeInterval(3600))
    token.withLock { $0 = fresh }
    return fresh
  }

  func invalidateSession(of token: AccessToken, because failure: AuthenticationFailure) async {}
}

/// Answers every request at once with an empty 200, so that only the requester and its
/// plugins are measured.
struct ImmediateTransport: HTTPTransport {
  func send(_ request: HTTPRequest, for endpoint: any HTTPEndpoint, progress: HTTPProgressHandler?)
    async throws(HTTPError) -> HTTPResponse
  {
    HTTPResponse(status: 200, request: request)
  }
}

func microseconds(_ duration: Duration, per count: Int) -> Double {
  let components = duration.components
  let total = Double(components.seconds) * 1e6 + Double(components.attoseconds) / 1e12
  return total / Double(count)
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted[sorted.count / 2]
}

/// Runs `count` operations one after another. Nonisolated, so the loop stays on the global
/// executor instead of hopping back to the main actor after every request.
nonisolated func runSequentially(
  _ count: Int, _ operation: @escaping @Sendable (Int) async throws -> Void
) async throws {
  for index in 0..<count { try await operation(index) }
}

/// Runs `count` operations, at most `width` at a time.
func runConcurrently(
  _ count: Int, width: Int, _ operation: @escaping @Sendable (Int) async throws -> Void
) async throws {
  try await withThrowingTaskGroup(of: Void.self) { group in
    var next = 0
    while next < min(width, count) {
      let index = next
      group.addTask { try await operation(index) }
      next += 1
    }
    while try await group.next() != nil {
      if next < count {
        let index = next
        group.addTask { try await operation(index) }
        next += 1
      }
    }
  }
}

@main
struct NetworkBenchmark {
  static func main() async throws {
    let options = Options(arguments: Array(CommandLine.arguments.dropFirst()))
    let router = Router()
    router.get("/items/:id") { request in
      .json(["id": request.pathParameters["id"] ?? "", "name": "benchmark item"])
    }
    let server = try LoopbackServer(router: router)
    defer { server.stop() }

    let session = URLSession(configuration: .ephemeral)
    let source = BenchmarkTokenSource(expired: false)
    let quietLogger = Logger(category: "HTTP", minimumLevel: .error)
    let requester = HTTPRequester<BenchmarkAPI>(
      baseURL: server.baseURL, transport: URLSessionTransport(),
      plugins: [AuthPlugin(source: source), LoggingPlugin(logger: quietLogger)])

    let raw: @Sendable (Int) async throws -> Void = { id in
      let url = server.baseURL.appendingPathComponent("items/\(id)")
      let (_, response) = try await session.data(for: URLRequest(url: url))
      guard (response as? HTTPURLResponse)?.statusCode == 200 else {
        throw HTTPError.transport(TransportFailure(.other, detail: "unexpected response"))
      }
    }
    let rawHandler: @Sendable (Int) async throws -> Void = { id in
      let url = server.baseURL.appendingPathComponent("items/\(id)")
      let status: Int = try await withCheckedThrowingContinuation { continuation in
        session.dataTask(with: URLRequest(url: url)) { _, response, error in
          if let error {
            continuation.resume(throwing: error)
          } else {
            continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? 0)
          }
        }.resume()
      }
      guard status == 200 else {
        throw HTTPError.transport(TransportFailure(.other, detail: "unexpected response"))
      }
    }
    let viaRequester: @Sendable (Int) async throws -> Void = { id in
      _ = try await BenchmarkAPI.$server.withValue(server.baseURL) {
        try await requester.request(.item(id))
      }
    }
    let unbounded = HTTPRequester<BenchmarkAPI>(
      baseURL: server.baseURL, transport: URLSessionTransport(maximumResponseSize: nil),
      plugins: [AuthPlugin(source: source), LoggingPlugin(logger: quietLogger)])
    let viaUnbounded: @Sendable (Int) async throws -> Void = { id in
      _ = try await BenchmarkAPI.$server.withValue(server.baseURL) {
        try await unbounded.request(.item(id))
      }
    }

    // Warm up every path (connections, lazy initialisation) before measuring.
    for operation in [raw, rawHandler, viaRequester, viaUnbounded] {
      try await runSequentially(50, operation)
    }

    // Raw and requester alternate in blocks (and swap which goes first each block), so that
    // both see the same machine: a shared VM's noise drifts on a scale of seconds.
    let clock = ContinuousClock()
    let blocks = 10
    let blockSize = max(1, options.requests / blocks)
    var samples: [String: [Double]] = [:]
    for _ in 0..<options.runs {
      var totals: [String: Duration] = [:]
      for block in 0..<blocks {
        let paths = [
          ("raw", raw), ("raw-handler", rawHandler), ("requester", viaRequester),
          ("requester-unbounded", viaUnbounded),
        ]
        let order = block.isMultiple(of: 2) ? paths : paths.reversed()
        for (name, operation) in order {
          totals[name, default: .zero] += try await clock.measure {
            try await runSequentially(blockSize, operation)
          }
          totals["\(name)-concurrent", default: .zero] += try await clock.measure {
            try await runConcurrently(blockSize, width: options.concurrency, operation)
          }
        }
      }
      for (name, total) in totals {
        samples[name, default: []].append(microseconds(total, per: blockSize * blocks))
      }
      for path in ["requester", "requester-unbounded"] {
        for kind in ["", "-concurrent"] {
          let time = samples["\(path)\(kind)"]?.last ?? 0
          samples["\(path)\(kind)/raw", default: []].append(
            time / (samples["raw\(kind)"]?.last ?? 1))
          samples["\(path)\(kind)/raw-handler", default: []].append(
            time / (samples["raw-handler\(kind)"]?.last ?? 1))
        }
      }
    }

    func format(_ value: Double, _ digits: Int = 1) -> String {
      String(format: "%.\(digits)f", value)
    }
    for kind in ["", "-concurrent"] {
      let inFlight = kind.isEmpty ? "" : " in_flight=\(options.concurrency)"
      print("raw\(kind) us_per_request=\(format(median(samples["raw\(kind)"] ?? [0])))\(inFlight)")
      print(
        "raw-handler\(kind) us_per_request=\(format(median(samples["raw-handler\(kind)"] ?? [0])))"
          + inFlight)
      for path in ["requester", "requester-unbounded"] {
        let name = "\(path)\(kind)"
        print(
          "\(name) us_per_request=\(format(median(samples[name] ?? [0])))\(inFlight)"
            + " ratio_to_raw=\(format(median(samples["\(name)/raw"] ?? [0]), 3))"
            + " ratio_to_raw_handler=\(format(median(samples["\(name)/raw-handler"] ?? [0]), 3))")
      }
    }

    // The chain alone: the same requester setup on a transport that answers immediately.
    let immediate = HTTPRequester<BenchmarkAPI>(
      baseURL: BenchmarkAPI.server, transport: ImmediateTransport(),
      plugins: [AuthPlugin(source: source), LoggingPlugin(logger: quietLogger)])
    let chainCount = options.requests * 10
    var chainSamples: [Double] = []
    for _ in 0..<options.runs {
      let elapsed = try await clock.measure {
        try await runSequentially(chainCount) { id in _ = try await immediate.request(.item(id)) }
      }
      chainSamples.append(microseconds(elapsed, per: chainCount))
    }
    print("chain us_per_request=\(format(median(chainSamples), 2))")

    // Single-flight refresh: every request starts on an expired token at once.
    let expiredSource = BenchmarkTokenSource(expired: true)
    let refreshing = HTTPRequester<BenchmarkAPI>(
      baseURL: server.baseURL, transport: URLSessionTransport(),
      plugins: [AuthPlugin(source: expiredSource)])
    try await withThrowingTaskGroup(of: Void.self) { group in
      for id in 0..<options.refreshRequests {
        group.addTask {
          _ = try await BenchmarkAPI.$server.withValue(server.baseURL) {
            try await refreshing.request(.item(id))
          }
        }
      }
      try await group.waitForAll()
    }
    print("refresh requests=\(options.refreshRequests) refresh_calls=\(expiredSource.refreshCount)")
  }
}
