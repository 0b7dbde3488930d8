import Foundation
import TrellisCore
import TrellisFront

/// The entry point: parse the options, set up logging, build the app, and run it in the
/// terminal or from a script.
@MainActor
enum Application {
  /// Runs the app and returns the process's exit status: 0, 1 when a script failed, 2 for
  /// bad options.
  static func run(arguments: [String], environment: [String: String]) async -> Int32 {
    StandardStream.ignoreBrokenPipes()
    let configuration: AppConfiguration
    do {
      configuration = try AppConfiguration(
        arguments: arguments, environment: environment,
        standardInputIsTerminal: TerminalDevice.isInteractive)
    } catch {
      switch error {
      case .helpRequested:
        StandardStream.output.write(AppConfiguration.usage + "\n")
        return 0
      case .invalid(let message):
        StandardStream.error.write("Trellis: \(message)\n\n\(AppConfiguration.usage)\n")
        return 2
      }
    }

    let scriptLines: AsyncStream<String>?
    if let path = configuration.scriptPath {
      guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        StandardStream.error.write("Trellis: cannot read the script \(path)\n")
        return 2
      }
      scriptLines = AsyncStream { continuation in
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
          continuation.yield(String(line))
        }
        continuation.finish()
      }
    } else if configuration.readsScriptFromStandardInput {
      scriptLines = standardInputLines()
    } else {
      scriptLines = nil
    }

    bootstrapLogging(configuration)
    ReactorTrace.enable(configuration.tracedReactors)
    let dependencies = CompositionRoot.resolve(configuration)
    if let link = configuration.linkToOpen, let router = dependencies.window.deepLinks {
      dependencies.window.openLink(link, with: router)
    }

    guard let scriptLines else {
      #if TRELLIS_TEST_HOOKS
        if let crash = environment["TRELLIS_TEST_CRASH"] { CrashTest.schedule(crash) }
      #endif
      // The screen is the terminal: say where the trace goes (seen again after quitting).
      if configuration.isTracing, let path = logPath(configuration) {
        StandardStream.error.write("Trellis: the trace is written to \(path)\n")
      }
      await InteractiveSession(window: dependencies.window).run()
      // What the user was typing, kept as a draft, is written now (not a moment later).
      dependencies.willTerminate()
      reportUnmatchedTraceNames()
      return 0
    }
    var options = ScriptSession.Options()
    options.printsFrames = !configuration.isQuiet
    // Each line is written at once: a tool reading the output (a CI log, a benchmark waiting for
    // a marker) sees it when it happens, not when a buffer fills.
    let session = ScriptSession(window: dependencies.window, options: options) { line in
      StandardStream.output.write(line + "\n")
    }
    let outcome = await session.run(scriptLines)
    dependencies.willTerminate()
    reportUnmatchedTraceNames()
    switch outcome {
    case .completed: return 0
    case .failed: return 1
    }
  }

  /// Says which `--trace` (or `TRELLIS_TRACE`) names matched no reactor that ran, and which
  /// reactors did: a misspelt name otherwise traces nothing in silence.
  static func reportUnmatchedTraceNames() {
    let (unmatched, started) = ReactorTrace.namesThatMatchedNothing()
    guard !unmatched.isEmpty else { return }
    StandardStream.error.write(
      "Trellis: --trace (or TRELLIS_TRACE) \(unmatched.joined(separator: ", ")) traced nothing: "
        + "no reactor of that "
        + "type ran (reactors that ran: "
        + (started.isEmpty ? "none" : started.joined(separator: ", ")) + ")\n")
  }

  /// Where the logs go: `--log-file`, else the data folder's `trellis.log` in interactive mode;
  /// `nil` for standard error (script mode).
  static func logPath(_ configuration: AppConfiguration) -> String? {
    configuration.logFile
      ?? (configuration.isScripted
        ? nil
        : CompositionRoot.dataDirectory(configuration).appendingPathComponent("trellis.log").path)
  }

  /// Logs go to a file in interactive mode (the terminal is the screen), to standard error in
  /// script mode, or to `--log-file`.
  static func bootstrapLogging(_ configuration: AppConfiguration) {
    guard let path = logPath(configuration) else {
      LogSystem.bootstrap(sink: StandardErrorLogSink(), minimumLevel: configuration.logLevel)
      return
    }
    do {
      let sink = try FileLogSink(url: URL(fileURLWithPath: path))
      LogSystem.bootstrap(sink: sink, minimumLevel: configuration.logLevel)
    } catch {
      StandardStream.error.write("Trellis: cannot write logs to \(path): \(error)\n")
      LogSystem.bootstrap(sink: StandardErrorLogSink(), minimumLevel: .error)
    }
  }

  /// Standard input's lines, read on a thread of their own until the end of input.
  static func standardInputLines() -> AsyncStream<String> {
    let (stream, continuation) = AsyncStream<String>.makeStream()
    let reader = Thread {
      while let line = readLine(strippingNewline: true) { continuation.yield(line) }
      continuation.finish()
    }
    reader.name = "Trellis.script"
    reader.start()
    return stream
  }
}
