import Foundation

/// Runs a window in the real terminal until the user quits (Ctrl-C or Ctrl-Q; with unsaved input
/// the window asks first): raw keys in, ANSI frames out, redrawn on every change, on resize and
/// on resuming after Ctrl-Z, spinners animated while work runs. The terminal's bracketed paste
/// mode is on, so a paste arrives as text (``Key/paste(_:)``), not as keys.
@MainActor
public final class InteractiveSession {
  private let window: Window
  private let terminal = TerminalDevice()
  private var isDrawScheduled = false

  /// Creates a session for `window`.
  public init(window: Window) {
    self.window = window
  }

  /// Runs until the user quits; the terminal is restored before this returns.
  public func run() async {
    terminal.enterRawMode()
    defer { terminal.restore() }
    window.size = terminal.size
    window.onNeedsDisplay = { [weak self] in self?.scheduleDraw() }
    let resize = terminal.onResize { [weak self] in
      guard let self else { return }
      self.window.size = self.terminal.size
      self.terminal.write("\u{1B}[2J")
      self.draw()
    }
    defer { resize.cancel() }
    let animation = Task { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: .milliseconds(120))
        guard let self, self.window.isBusy else { continue }
        self.window.tick()
        self.draw()
      }
    }
    defer { animation.cancel() }
    draw()
    for await key in terminal.keys() {
      // With unsaved input the window asks first; a second Ctrl-C (or Ctrl-Q) quits at once.
      if key == .quit {
        if window.requestQuit() { break }
        continue
      }
      if key == .suspend {
        terminal.suspend()
        continue
      }
      window.handle(key)
      if window.isQuitConfirmed { break }
    }
  }

  private func scheduleDraw() {
    guard !isDrawScheduled else { return }
    isDrawScheduled = true
    Task { [weak self] in
      guard let self else { return }
      self.isDrawScheduled = false
      self.draw()
    }
  }

  private func draw() {
    terminal.write(window.render().ansi())
  }
}
