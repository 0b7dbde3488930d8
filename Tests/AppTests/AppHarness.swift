import Foundation
import Synchronization
import TrellisCore
import TrellisDemoBackend
import TrellisFront
import TrellisLoopbackServer
import TrellisNetwork

@testable import Trellis

/// A clock the test moves by hand, for the backend's token expiry.
final class ManualClock: Sendable {
  private let date = Mutex(Date())
  var now: Date { date.withLock { $0 } }
  func advance(by seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// The whole app, built by the real composition root, against the demo backend served in
/// process or over HTTP, driven by script lines.
@MainActor
final class AppHarness {
  enum Mode: String, CaseIterable, CustomStringConvertible {
    case embedded
    case loopback
    var description: String { rawValue }
  }

  let backend: DemoBackend
  let clock = ManualClock()
  let dependencies: AppDependencies
  let dataDirectory: URL
  private(set) var server: LoopbackServer?
  private(set) var transcript: [String] = []

  /// The app against `backend` at `serverURL` (a proxy in front of it, say), on the real
  /// clock, keeping its data in `dataDirectory` (a new folder by default).
  init(
    backend: DemoBackend, serverURL: URL, dataDirectory: URL? = nil,
    arguments extraArguments: [String] = [],
    eventStreamPolicy: EventStreamClient.ReconnectPolicy = EventStreamClient.ReconnectPolicy()
  ) throws {
    self.backend = backend
    self.dataDirectory =
      dataDirectory
      ?? FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-app-\(UUID().uuidString)", isDirectory: true)
    let configuration = try AppConfiguration(
      arguments: ["--data-dir", self.dataDirectory.path, "--server", serverURL.absoluteString]
        + extraArguments,
      environment: [:], standardInputIsTerminal: false)
    dependencies = CompositionRoot.resolve(configuration, eventStreamPolicy: eventStreamPolicy)
  }

  init(_ mode: Mode, arguments extraArguments: [String] = []) throws {
    let clock = clock
    backend = DemoBackend(configuration: .instant, now: { clock.now })
    dataDirectory = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-app-\(UUID().uuidString)", isDirectory: true)
    var arguments = ["--data-dir", dataDirectory.path, "--instant"] + extraArguments
    if mode == .loopback {
      let server = try LoopbackServer(router: backend.router)
      self.server = server
      arguments += ["--server", server.baseURL.absoluteString]
    }
    let configuration = try AppConfiguration(
      arguments: arguments, environment: [:], standardInputIsTerminal: false)
    dependencies = CompositionRoot.resolve(
      configuration, embeddedBackend: mode == .embedded ? backend : nil)
  }

  var window: Window { dependencies.window }

  /// Runs `script` (one command per line); returns the outcome and keeps the printed lines.
  ///
  /// - Parameter timeout: How long each `wait` or `expect` waits.
  func run(_ script: String, timeout: Duration = .seconds(30)) async -> ScriptSession.Outcome {
    var options = ScriptSession.Options()
    options.printsFrames = false
    options.timeout = timeout  // 30 s by default: generous, shared CI machines can be slow
    var printed: [String] = []
    let session = ScriptSession(window: window, options: options) { printed.append($0) }
    let lines = AsyncStream<String> { continuation in
      for line in script.split(separator: "\n") { continuation.yield(String(line)) }
      continuation.finish()
    }
    let outcome = await session.run(lines)
    transcript += printed
    return outcome
  }

  /// Ctrl-Q, as the interactive session handles it: whether the window let the app quit
  /// without asking (a screen holding input it does not keep as a draft asks first); if it
  /// did, the app ends as `Application` ends it.
  func quit() -> Bool {
    guard window.requestQuit() else { return false }
    dependencies.willTerminate()
    return true
  }

  func stopServer() {
    server?.stop()
  }

  func cleanUp() {
    server?.stop()
    try? FileManager.default.removeItem(at: dataDirectory)
  }
}
