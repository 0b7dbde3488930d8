import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The terminal's mode as found at start-up, restored on every way out, and the raw mode the
/// app runs in, re-entered after a suspend.
///
/// `nonisolated(unsafe)` because signal handlers read them, and a signal handler can use no
/// lock or actor. The invariant that makes it safe: all three are written once, on the main
/// thread, in `TerminalDevice.enterRawMode()`, before any handler that reads them is
/// installed, and never written again; afterwards they are only read.
nonisolated(unsafe) private var originalTerminalMode = termios()
nonisolated(unsafe) private var rawTerminalMode = termios()
nonisolated(unsafe) private var hasOriginalTerminalMode = false

/// Puts the terminal back: cooked mode, main screen, visible cursor, no bracketed paste. Uses only
/// async-signal-safe calls (`tcsetattr`, `write`), so signal handlers may call it.
private func restoreTerminal() {
  guard hasOriginalTerminalMode else { return }
  var mode = originalTerminalMode
  _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &mode)
  // (Bracketed paste off, too: a shell must not get the markers around what is pasted.)
  let reset: StaticString = "\u{1B}[0m\u{1B}[?2004l\u{1B}[?25h\u{1B}[?1049l"
  _ = write(STDOUT_FILENO, reset.utf8Start, reset.utf8CodeUnitCount)
}

/// Raw mode on the alternate screen (with bracketed paste) again, after a resume.
/// Async-signal-safe.
private func reenterRawMode() {
  guard hasOriginalTerminalMode else { return }
  var mode = rawTerminalMode
  _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &mode)
  let enter: StaticString = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?2004h\u{1B}[2J"
  _ = write(STDOUT_FILENO, enter.utf8Start, enter.utf8CodeUnitCount)
}

/// Installs `handler` for `signalNumber`, run on the alternate signal stack (so it also runs
/// after a stack overflow).
private func install(_ signalNumber: Int32, _ handler: @convention(c) (Int32) -> Void) {
  var action = sigaction()
  action.__sigaction_handler.sa_handler = handler
  action.sa_flags = SA_ONSTACK
  sigemptyset(&action.sa_mask)
  _ = sigaction(signalNumber, &action, nil)
}

/// A fatal or terminating signal: restore the terminal, then let the signal do what it does by
/// default (end the process, with a core dump for a crash).
private func restoreAndReraise(_ signalNumber: Int32) {
  restoreTerminal()
  signal(signalNumber, SIG_DFL)
  raise(signalNumber)
}

/// A stop (Ctrl-Z, or `kill -TSTP`): restore the terminal, stop for real, and on `fg` take the
/// terminal back and ask for a redraw the way a resize does (SIGWINCH, which
/// ``TerminalDevice/onResize(_:)`` turns into a full redraw; the window may indeed have been
/// resized while the app was stopped).
private func suspendAndResume(_ signalNumber: Int32) {
  restoreTerminal()
  signal(SIGTSTP, SIG_DFL)
  // A handler runs with its own signal blocked: unblock it, or the stop would wait until
  // the handler returns (and then find this handler installed again).
  var stopSignal = sigset_t()
  sigemptyset(&stopSignal)
  sigaddset(&stopSignal, SIGTSTP)
  _ = pthread_sigmask(SIG_UNBLOCK, &stopSignal, nil)
  kill(getpid(), SIGTSTP)
  // Stopped here until SIGCONT.
  install(SIGTSTP, suspendAndResume)
  reenterRawMode()
  kill(getpid(), SIGWINCH)
}

/// Gives signal handlers a stack of their own: a handler for a crash caused by a stack
/// overflow cannot run on the exhausted stack. Allocated once and never freed (the kernel
/// keeps using it for the life of the process).
private func installAlternateSignalStack() {
  let size = max(Int(SIGSTKSZ), 64 * 1024)
  guard let memory = malloc(size) else { return }
  var stack = stack_t(ss_sp: memory, ss_flags: 0, ss_size: size)
  _ = sigaltstack(&stack, nil)
}

/// The real terminal: raw input, the alternate screen, its size, and restoring it whatever way
/// the app ends (quit, Ctrl-C, a termination signal, a crash signal, `exit`).
@MainActor
public final class TerminalDevice {
  /// Whether both standard input and standard output are terminals.
  public static var isInteractive: Bool {
    isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
  }

  /// Creates the device.
  public init() {}

  /// The terminal's size, or 80 by 24 when it cannot tell.
  public var size: TerminalSize {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else {
      return TerminalSize(columns: 80, rows: 24)
    }
    return TerminalSize(columns: Int(size.ws_col), rows: Int(size.ws_row))
  }

  /// Switches to raw input on the alternate screen with the cursor hidden, after arranging for
  /// the terminal to be restored on exit, on SIGINT/SIGTERM/SIGHUP/SIGQUIT, on crash signals
  /// (handled on an alternate stack, so a stack overflow is covered too), and while the app is
  /// suspended (SIGTSTP; raw mode comes back on resume).
  public func enterRawMode() {
    guard !hasOriginalTerminalMode, tcgetattr(STDIN_FILENO, &originalTerminalMode) == 0 else {
      return
    }
    var raw = originalTerminalMode
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
    raw.c_oflag &= ~tcflag_t(OPOST)
    raw.c_cflag |= tcflag_t(CS8)
    rawTerminalMode = raw
    hasOriginalTerminalMode = true
    atexit { restoreTerminal() }
    installAlternateSignalStack()
    for signalNumber in [
      SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP,
    ] {
      install(signalNumber, restoreAndReraise)
    }
    install(SIGTSTP, suspendAndResume)
    reenterRawMode()
  }

  /// Restores the terminal now (also done automatically on exit).
  public func restore() {
    restoreTerminal()
  }

  /// Suspends the app as Ctrl-Z does in a shell (raw mode turns Ctrl-Z into a key): the
  /// terminal is restored while stopped and taken back on `fg`.
  ///
  /// Sent to the process, not raised on this thread: on Linux the main actor may run on a
  /// dispatch worker thread, which blocks SIGTSTP.
  public func suspend() {
    kill(getpid(), SIGTSTP)
  }

  /// Writes `text` to standard output, unbuffered.
  public func write(_ text: String) {
    var remaining = Array(text.utf8)
    while !remaining.isEmpty {
      let written = remaining.withUnsafeBytes {
        Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count)
      }
      if written < 0 {
        if errno == EINTR { continue }
        return
      }
      remaining.removeFirst(written)
    }
  }

  /// The keys typed, read on a thread of their own. A lone Escape is reported when no more
  /// bytes follow within 30 ms (so arrow keys, which start with Escape, are not split).
  public func keys() -> AsyncStream<Key> {
    let (stream, continuation) = AsyncStream<Key>.makeStream()
    let reader = Thread {
      var decoder = KeyDecoder()
      var buffer = [UInt8](repeating: 0, count: 64)
      while true {
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        if count < 0, errno == EINTR { continue }
        guard count > 0 else {
          continuation.finish()
          return
        }
        var keys = decoder.decode(Array(buffer[0..<count]))
        var waiting = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        if poll(&waiting, 1, 30) == 0 { keys += decoder.decode([], flush: true) }
        for key in keys { continuation.yield(key) }
      }
    }
    reader.name = "TerminalDevice.keys"
    reader.start()
    return stream
  }

  /// Calls `handler` on the main actor each time the terminal is resized or the app resumes
  /// after a suspend, for as long as the returned source is kept.
  public func onResize(_ handler: @escaping @MainActor () -> Void) -> any DispatchSourceSignal {
    signal(SIGWINCH, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
    source.setEventHandler { MainActor.assumeIsolated { handler() } }
    source.resume()
    return source
  }
}
