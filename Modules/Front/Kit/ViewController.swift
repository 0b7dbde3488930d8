import TrellisCore
import TrellisReactor

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

  /// What leaving the screen now would lose, if anything: going back (Esc, `back`) from a
  /// screen that returns a text here asks first, showing it ("The task you are writing will
  /// be lost."); `nil`, the default, goes back at once.
  open var unsavedChangesWarning: String? { nil }

  /// Whether what the screen holds survives the app quitting (it is kept as a draft, restored
  /// at the next launch): then quitting does not ask, though going back does. Default: `false`.
  open var keepsInputOnQuit: Bool { false }

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

/// A ``ViewController`` with a reactor, ReactorKit's `View` without the wiring: `body()` reads
/// ``state`` (`state.title`), and the window redraws when something it read changes (through
/// the `Observation` module, property by property); the reactor's events go to
/// ``handle(event:)``, which shows ``ScreenEvent``s by itself. The screen is busy while the
/// reactor runs effects, and stops the reactor when it leaves (so nothing it started outlives
/// it).
///
/// ```swift
/// public final class NotesViewController: ReactorViewController<NotesViewReactor> {
///   public override func body() -> [Element] {
///     [.text(state.note), .button(Button("Add") { [reactor] in reactor.send(.add) })]
///   }
/// }
/// ```
@MainActor
open class ReactorViewController<R: ReactorProtocol>: ViewController {
  /// The screen's reactor.
  public let reactor: R

  /// The reactor's state, tracked property by property: what `body()` reads from it decides
  /// when the screen is drawn again.
  public var state: ObservedState<R> { reactor.state }

  /// Creates the screen, routes the reactor's events to ``handle(event:)`` and calls
  /// ``bind(reactor:)``.
  ///
  /// - Parameter title: The title bar's text; by default the reactor type's name in words
  ///   (`UserSettingsViewReactor` is "User Settings"), so a subclass with nothing to add
  ///   needs no initializer of its own.
  public init(reactor: R, title: String? = nil) {
    self.reactor = reactor
    super.init(title: title ?? Self.defaultTitle(of: R.self))
    reactor.observeEvents(by: self) { view, event in view.handle(event: event) }
    bind(reactor: reactor)
  }

  /// `UserSettingsViewReactor` as a title: "User Settings" (the type's name without
  /// `ViewReactor` or `Reactor`, its words separated).
  static func defaultTitle(of type: Any.Type) -> String {
    var name = String(describing: type)
    for suffix in ["ViewReactor", "Reactor"] where name.hasSuffix(suffix) && name != suffix {
      name.removeLast(suffix.count)
      break
    }
    var title = ""
    for character in name {
      if character.isUppercase, let last = title.last, last.isLowercase || last.isNumber {
        title.append(" ")
      }
      title.append(character)
    }
    return title
  }

  /// The escape hatch: override to react to state changes beyond drawing (with
  /// `reactor.observe(\.value, by: self) { ... }`). Drawing needs nothing here.
  open func bind(reactor: R) {}

  /// Handles one event of the reactor. By default a ``ScreenEvent`` is shown (a toast, an
  /// alert); override for a screen's own events (navigation), calling `super` for the rest.
  open func handle(event: R.Event) {
    guard let event = event as? ScreenEvent else { return }
    switch event {
    case .toast(let message): presentToast(message)
    case .alert(let title, let message): presentAlert(title: title, message: message)
    }
  }

  /// Whether the reactor has effects in flight.
  open override var isBusy: Bool { reactor.runningEffectCount > 0 }

  /// Returns when the reactor has no effect in flight.
  open override func waitUntilIdle() async { await reactor.waitUntilIdle() }

  /// Stops the reactor: its effects are cancelled and it is released with the screen.
  open override func didLeave() { reactor.stop() }
}
