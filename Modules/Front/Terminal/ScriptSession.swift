import Foundation
import TrellisCore

/// Drives a window from a script, one command per line (`tap Sign in`, `type username alice`,
/// `select project 2`, `back`, `expect Task created`), for CI and demos.
///
/// Before each command it waits until the screens have no work in flight, so a script reads
/// like what a person does: tap, then look at the result. It stops at the first failing line
/// with its number and the reason.
@MainActor
public final class ScriptSession {
  /// What the session prints, and how long it waits.
  public struct Options: Sendable {
    /// Print the screen after each command that changed it.
    public var printsFrames = true
    /// How long `wait` and `expect` wait for their text.
    public var timeout: Duration = .seconds(10)

    /// The defaults.
    public init() {}
  }

  /// The outcome of a script.
  public enum Outcome: Sendable, Equatable {
    /// Every line ran (or `quit` was reached).
    case completed(commands: Int)
    /// A line failed.
    case failed(line: Int, command: String, reason: String)
  }

  private let window: Window
  private let options: Options
  private let output: (String) -> Void
  private var lastPrinted = ""
  private var changeWaiter: CheckedContinuation<Void, Never>?
  private var settleWaiter: CheckedContinuation<Void, Never>?

  /// Creates a session; `output` receives printed frames and messages.
  public init(window: Window, options: Options = Options(), output: @escaping (String) -> Void) {
    self.window = window
    self.options = options
    self.output = output
  }

  /// Runs the lines in order until they end, `quit`, or a failure.
  public func run<Lines: AsyncSequence>(_ lines: Lines) async -> Outcome
  where Lines.Element == String {
    window.onNeedsDisplay = { [weak self] in self?.wakeWaiter() }
    var number = 0
    var commands = 0
    do {
      for try await line in lines {
        number += 1
        let command: ScriptCommand?
        do {
          command = try ScriptCommand.parse(line)
        } catch {
          return fail(number, line, error.description)
        }
        guard let command else { continue }
        commands += 1
        if let busy = await settle() { return fail(number, line, busy) }
        if command == .quit { break }
        if let failure = await execute(command) {
          return fail(number, line, failure)
        }
        if let busy = await settle() { return fail(number, line, busy) }
        printFrameIfChanged(after: line)
      }
    } catch {
      return fail(number + 1, "", "cannot read the script: \(error)")
    }
    return .completed(commands: commands)
  }

  private func fail(_ line: Int, _ command: String, _ reason: String) -> Outcome {
    output("line \(line): \(command.trimmingCharacters(in: .whitespaces)): \(reason)")
    output(window.text)
    return .failed(line: line, command: command, reason: reason)
  }

  private func execute(_ command: ScriptCommand) async -> String? {
    switch command {
    case .wait(let text), .expect(let text):
      guard await waitForText(text) else {
        return "\"\(text)\" did not appear within \(options.timeout.readable)"
      }
    case .expectNot(let text):
      if window.text.contains(text) { return "\"\(text)\" is on the screen" }
    case .waitGone(let text):
      guard await waitForText(text, toBeGone: true) else {
        return "\"\(text)\" was still on the screen after \(options.timeout.readable)"
      }
    case .dump:
      output(window.text)
      lastPrinted = window.text
    case .print(let text):
      output(text)
    case .sleep(let seconds):
      // Parsing bounds `seconds` (0 to an hour), so the conversion cannot trap.
      try? await Task.sleep(for: .milliseconds(Int((seconds * 1000).rounded())))
    case .quit:
      break
    default:
      do {
        try window.perform(command)
      } catch {
        return error.description
      }
    }
    return nil
  }

  /// Waits until no screen has work in flight, up to the timeout; returns why it gave up, if it
  /// did (so a stuck effect fails the script with a reason instead of hanging it).
  private func settle() async -> String? {
    let deadline = ContinuousClock.now.advanced(by: options.timeout)
    let window = window
    while window.isBusy {
      guard ContinuousClock.now < deadline else {
        return "the app is still busy after \(options.timeout.readable) (screens: "
          + window.busyScreens.joined(separator: ", ") + ")"
      }
      // Whichever comes first: the screens go idle, or the deadline.
      let idle = Task { @MainActor [weak self] in
        await window.waitUntilIdle()
        guard !Task.isCancelled else { return }
        self?.wakeSettler()
      }
      let timer = Task { @MainActor [weak self] in
        try? await Task.sleep(until: deadline, clock: .continuous)
        guard !Task.isCancelled else { return }
        self?.wakeSettler()
      }
      await withCheckedContinuation { settleWaiter = $0 }
      idle.cancel()
      timer.cancel()
    }
    return nil
  }

  private func wakeSettler() {
    guard let waiter = settleWaiter else { return }
    settleWaiter = nil
    waiter.resume()
  }

  /// Waits until the screen shows `text` (or, `toBeGone`, no longer shows it), waking on
  /// every redraw, up to the timeout.
  private func waitForText(_ text: String, toBeGone: Bool = false) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: options.timeout)
    while window.text.contains(text) == toBeGone {
      guard ContinuousClock.now < deadline else { return false }
      let timer = Task { [weak self] in
        try? await Task.sleep(
          until: min(deadline, ContinuousClock.now.advanced(by: .milliseconds(200))),
          clock: .continuous)
        guard !Task.isCancelled else { return }
        self?.wakeWaiter()
      }
      await withCheckedContinuation { changeWaiter = $0 }
      timer.cancel()
    }
    return true
  }

  private func wakeWaiter() {
    guard let waiter = changeWaiter else { return }
    changeWaiter = nil
    waiter.resume()
  }

  private func printFrameIfChanged(after line: String) {
    guard options.printsFrames else { return }
    let frame = window.text
    guard frame != lastPrinted else { return }
    lastPrinted = frame
    output(
      "── after: \(line.trimmingCharacters(in: .whitespaces)) " + String(repeating: "─", count: 20))
    output(frame)
  }
}
