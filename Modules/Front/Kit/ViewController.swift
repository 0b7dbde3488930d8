import Core

/// A screen: a title and a body of elements, drawn into the window. Subclass it (or
/// ``ReactorViewController``) and override ``body()``.
///
/// View controllers form a tree under the ``Window``: a root, navigation stacks, presented
/// screens. When one leaves the tree for good (popped, dismissed, or its root replaced) it gets
/// ``didLeave()``, and is released with everything it owns.
@MainActor
open class ViewController {
  /// The title shown in the window's top bar.
  open var title: String
  /// The window the screen is in, while it is in one.
  public internal(set) weak var window: Window? {
    didSet { if window != nil { flushPendingAlerts() } }
  }
  /// The navigation stack the screen is in, if any.
  public internal(set) weak var navigationController: NavigationController?
  /// Observations that end with the screen (the DisposeBag).
  public let bag = ObservationBag()
  var formState = FormState()
  private var pendingAlerts: [(title: String, message: String)] = []
  private var hasAttached = false

  /// Creates a screen titled `title`.
  public init(title: String) {
    self.title = title
  }

  /// The screen's content, built from its current state.
  open func body() -> [Element] { [] }

  /// A short status for the window's top bar (the connection banner), if this screen shows one.
  open var statusText: (text: String, style: TextStyle)? { nil }

  /// Screens shown inside this one (a navigation stack's screens).
  open var children: [ViewController] { [] }

  /// The screen whose elements are drawn and get input: this one, or for a container the
  /// screen it shows.
  open var contentViewController: ViewController { self }

  /// Whether work the screen started is still running (a script waits for it to end).
  open var isBusy: Bool { false }

  /// Returns when the work the screen started has ended.
  open func waitUntilIdle() async {}

  /// Called once, when the screen is first shown in a window: the place to send the first
  /// action (`.load`).
  open func viewDidAttach() {}

  /// Called once, when the screen leaves the window's tree for good.
  open func didLeave() {}

  /// Handles a key the window did not use; returns whether it was used.
  open func handle(_ key: Key) -> Bool {
    Form(elements: body()).handle(key, state: &formState)
  }

  /// Asks the window to draw again (after a state change).
  public func setNeedsDisplay() {
    window?.setNeedsDisplay()
  }

  /// Shows an alert in the window; kept until the screen is in a window if it is not yet.
  public func presentAlert(title: String, message: String) {
    guard let window else {
      pendingAlerts.append((title, message))
      return
    }
    window.showAlert(title: title, message: message)
  }

  /// Shows a toast in the window.
  public func presentToast(_ message: String) {
    window?.showToast(message)
  }

  private func flushPendingAlerts() {
    let alerts = pendingAlerts
    pendingAlerts.removeAll()
    for alert in alerts { presentAlert(title: alert.title, message: alert.message) }
  }

  /// Sets the window on this screen and the screens inside it.
  func attach(to window: Window?) {
    self.window = window
    if window != nil, !hasAttached {
      hasAttached = true
      viewDidAttach()
    }
    for child in children { child.attach(to: window) }
  }

  /// Tells this screen and the screens inside it that they left for good.
  func leaveRecursively() {
    for child in children { child.leaveRecursively() }
    didLeave()
    window = nil
  }
}

/// A screen bound to a reactor, ReactorKit's `View`: `bind(reactor:)` sends the user's input to
/// the reactor as actions and renders the reactor's state.
@MainActor
public protocol ReactorView: AnyObject {
  /// The reactor's type.
  associatedtype ViewReactor: ReactorProtocol
  /// The screen's reactor.
  var reactor: ViewReactor { get }
  /// Connects the reactor's state and events to the screen.
  func bind(reactor: ViewReactor)
}

/// A ``ViewController`` with a reactor: it binds in `init`, is busy while the reactor runs
/// effects, and stops the reactor when it leaves (so nothing it started outlives it).
@MainActor
open class ReactorViewController<R: ReactorProtocol>: ViewController, ReactorView {
  /// The screen's reactor.
  public let reactor: R

  /// Creates the screen and binds `reactor` to it.
  public init(reactor: R, title: String) {
    self.reactor = reactor
    super.init(title: title)
    bind(reactor: reactor)
  }

  /// Override to observe state and events; call `setNeedsDisplay()` when the state changes.
  open func bind(reactor: R) {}

  /// Whether the reactor has effects in flight.
  open override var isBusy: Bool { reactor.runningEffectCount > 0 }

  /// Returns when the reactor has no effect in flight.
  open override func waitUntilIdle() async { await reactor.waitUntilIdle() }

  /// Stops the reactor: its effects are cancelled and it is released with the screen.
  open override func didLeave() { reactor.stop() }
}
