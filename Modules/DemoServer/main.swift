// DemoServer: the demo backend over real HTTP on 127.0.0.1, for pointing the app at a server
// (`swift run Trellis --server http://127.0.0.1:8080`) or trying the API with curl.
//
//   swift run DemoServer [--port 8080] [--instant] [--token-lifetime SECONDS]
//                        [--heartbeat SECONDS] [--fail-uploads] [--fail-requests]
import Dispatch
import Foundation
import TrellisCore
import TrellisDemoBackend
import TrellisLoopbackServer

#if canImport(Glibc)
  import Glibc
#endif

let usage = """
  Usage: DemoServer [options]

  Serves the Trellis demo backend on http://127.0.0.1:PORT until interrupted (Ctrl-C).

  Options:
    --port N              Port to listen on (default 8080; 0 picks a free one).
    --instant             No artificial latency (default: the demo's latency, with a slow
                          project "Mobile App" and a fast one "Backend").
    --token-lifetime N    Access tokens expire after N seconds (default 30).
    --heartbeat N         Send a heartbeat (a comment line) on each open event stream
                          every N seconds, 1 to 5 (default 5: the app takes a stream
                          silent for 12 seconds for dead).
    --fail-uploads        Every upload fails with 503.
    --fail-requests       Every API request except sign-in fails with 503.
    -h, --help            Show this help.

  Accounts: alice / alice1234, bob / bob1234, carol / carol1234.
  Demo controls: POST /demo/tasks {"projectID":1,"title":"..."}, POST /demo/revoke
  {"username":"alice"}, GET|POST /demo/settings.
  """

/// Writes a line to standard output at once (`print` buffers when the output is a file or a
/// pipe, and this process usually ends by a signal).
func say(_ line: String) {
  StandardStream.output.write(line + "\n")
}

func fail(_ message: String) -> Never {
  StandardStream.error.write("DemoServer: \(message)\n\n\(usage)\n")
  exit(2)
}

StandardStream.ignoreBrokenPipes()
var port = 8080
var configuration = DemoConfiguration.demo
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
  switch argument {
  case "--port":
    guard let value = arguments.next(), let number = Int(value), (0...65535).contains(number) else {
      fail("--port needs a number from 0 to 65535")
    }
    port = number
  case "--instant":
    let (lifetime, heartbeat) = (
      configuration.accessTokenLifetime, configuration.eventHeartbeatInterval
    )
    configuration = .instant
    configuration.accessTokenLifetime = lifetime
    configuration.eventHeartbeatInterval = heartbeat
  case "--token-lifetime":
    guard let value = arguments.next(), let seconds = Int(value), seconds > 0 else {
      fail("--token-lifetime needs a number of seconds above 0")
    }
    configuration.accessTokenLifetime = .seconds(seconds)
  case "--heartbeat":
    guard let value = arguments.next(), let seconds = Int(value), (1...5).contains(seconds) else {
      fail("--heartbeat needs a number of seconds from 1 to 5")
    }
    configuration.eventHeartbeatInterval = .seconds(seconds)
  case "--fail-uploads": configuration.failsUploads = true
  case "--fail-requests": configuration.failsRequests = true
  case "-h", "--help":
    say(usage)
    exit(0)
  default: fail("unknown option \(argument)")
  }
}

let backend = DemoBackend(configuration: configuration)
let server: LoopbackServer
do {
  server = try LoopbackServer(router: backend.router, port: port)
} catch {
  fail("cannot listen on 127.0.0.1:\(port): \(error)")
}
say("Trellis demo backend on \(server.baseURL)")
say("Run the app against it: swift run Trellis --server \(server.baseURL)")
say("Accounts: alice / alice1234, bob / bob1234, carol / carol1234. Ctrl-C stops.")
say(
  "The demo data (projects, tasks, uploads, profile edits) lives in memory: it starts afresh "
    + "on each launch.")

signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let interrupts = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .main) }
for source in interrupts {
  source.setEventHandler {
    say("\nStopping.")
    server.stop()
    exit(0)
  }
  source.resume()
}
dispatchMain()
