import Observation

/// The terminal's size in columns and rows.
public struct TerminalSize: Sendable, Equatable {
  /// Columns.
  public var columns: Int
  /// Rows.
  public var rows: Int

  /// Creates a size (negative counts are taken as zero). The window draws at exactly this
  /// size, whatever it is: a frame wider than the terminal would wrap and scroll it.
  public init(columns: Int, rows: Int) {
    self.columns = max(0, columns)
    self.rows = max(0, rows)
  }
}

/// Owns the screen: the root view controller, screens presented over it, the slide menu, alerts
/// and toasts. It draws them into a ``FrameBuffer`` and routes keys and script commands to the
/// screen on top.
///
/// ```
/// Trellis · Tasks                                  ● Live     <- title bar, status
/// ────────────────────────────────────────────────────────────
/// (the top screen's elements)
///
/// ✓ Task created                                                <- toast
/// Tab next · Enter choose · Esc back · Ctrl-O menu · Ctrl-Q quit
/// ```
@MainActor
public final class Window {
  /// The size frames are drawn at.
  public var size: TerminalSize {
    didSet { if size != oldValue { setNeedsDisplay() } }
  }
  /// The bottom screen (Splash, Login, or the signed-in area's navigation stack).
  public private(set) var rootViewController: ViewController?
  /// Screens presented over the root, last on top.
  public private(set) var presentedViewControllers: [ViewController] = []
  /// A screen whose ``ViewController/statusText`` shows in the title bar (the connection
  /// banner).
  public var statusViewController: ViewController? {
    didSet {
      oldValue?.leaveRecursively()
      statusViewController?.attach(to: self)
      setNeedsDisplay()
    }
  }
  /// The slide menu of the current root, if it has one.
  public var slideMenu: SlideMenuNavigator?
  /// Opens links (`open` in scripts, `--open` at launch), if the app has any.
  public var deepLinks: DeepLinkRouter?
  /// Called when something changed and the frame should be drawn again.
  public var onNeedsDisplay: (() -> Void)?
  /// How long a toast stays.
  public var toastDuration: Duration = .seconds(2)
  /// The title bar's name.
  public var appName: String

  private var alerts: [(title: String, message: String)] = []
  /// The question shown before unsaved input is thrown away, and what discarding does.
  private var confirmation: Confirmation?
  /// The question before unsaved input is discarded: its text, the focused button, the
  /// screens it is about (held weakly) and what discarding does.
  private struct Confirmation {
    var message: String
    var isDiscardFocused = false
    var screens: [WeakScreen]
    var discard: () -> Void
    /// Whether it asks before quitting (its button says "Quit").
    var isQuit = false
  }

  private struct WeakScreen {
    weak var screen: ViewController?
  }

  /// The buttons of the confirmation, in order.
  static let keepEditingTitle = "Keep editing"
  static let discardTitle = "Discard"
  /// The button that quits in the question before quitting.
  static let quitTitle = "Quit"
  /// The toast, its number, and the screen it was first drawn over (it goes when another
  /// screen is on top: it belongs to where it was shown).
  private var toast: (message: String, serial: Int, screen: ObjectIdentifier?)?
  private var toastSerial = 0
  private var spinnerFrame = 0

  /// Creates an empty window.
  public init(size: TerminalSize = TerminalSize(columns: 80, rows: 24), appName: String = "Trellis")
  {
    self.size = size
    self.appName = appName
  }

  // MARK: Screens

  /// The screen that gets input: the last presented one, else the root.
  public var topViewController: ViewController? {
    presentedViewControllers.last ?? rootViewController
  }

  /// Replaces the root; everything shown before leaves for good (Splash to Login to Main).
  public func setRoot(_ viewController: ViewController) {
    for presented in presentedViewControllers.reversed() { presented.leaveRecursively() }
    presentedViewControllers.removeAll()
    rootViewController?.leaveRecursively()
    slideMenu = nil
    // A question about screens that are gone is gone with them.
    confirmation = nil
    // A toast belongs to the screens it was raised on (no "Saved" over the login screen).
    toast = nil
    rootViewController = viewController
    viewController.attach(to: self)
    setNeedsDisplay()
  }

  /// Shows `viewController` over everything.
  public func present(_ viewController: ViewController) {
    presentedViewControllers.append(viewController)
    viewController.attach(to: self)
    setNeedsDisplay()
  }

  /// Removes the top presented screen; it leaves for good.
  @discardableResult
  public func dismiss() -> Bool {
    guard let dismissed = presentedViewControllers.popLast() else { return false }
    dismissed.leaveRecursively()
    setNeedsDisplay()
    return true
  }

  /// Goes back one step: closes the menu, or dismisses, or pops the root's stack. A screen
  /// with unsaved input (``ViewController/unsavedChangesWarning``) is left only once the user
  /// chooses "Discard"; until then it stays, and this returns `true` (the key was used).
  @discardableResult
  public func back() -> Bool {
    if let menu = slideMenu, menu.isOpen {
      menu.close()
      setNeedsDisplay()
      return true
    }
    let stack = rootViewController as? NavigationController
    guard !presentedViewControllers.isEmpty || (stack?.viewControllers.count ?? 0) > 1 else {
      return false
    }
    let leaving = presentedViewControllers.last ?? stack?.topViewController
    leaveAfterAsking(leaving.map { [$0] } ?? []) { [weak self, weak leaving] in
      // Only the screen asked about, and only while it is still the one on top.
      guard let self, let leaving,
        leaving === (self.presentedViewControllers.last ?? stack?.topViewController)
      else { return }
      if !self.dismiss() { stack?.pop() }
    }
    return true
  }

  /// Runs `leave` (which removes `screens` from the window) now, or, when one of them or a
  /// screen inside it holds unsaved input, once the user has chosen "Discard" in the question
  /// this shows; "Keep editing" (Esc) leaves everything as it is. Navigation that replaces
  /// screens (a menu section, a link, signing out) goes through it.
  public func leaveAfterAsking(_ screens: [ViewController], then leave: @escaping () -> Void) {
    let warnings = screens.flatMap { Self.unsavedChangesWarnings(in: $0) }
    guard !warnings.isEmpty else {
      leave()
      return
    }
    confirmation = Confirmation(
      message: warnings.joined(separator: " "), screens: screens.map(WeakScreen.init),
      discard: leave)
    setNeedsDisplay()
  }

  /// Whether the app may quit now (Ctrl-Q, Ctrl-C): `true` when no screen holds unsaved input,
  /// or when the question this asked before is still showing (a second Ctrl-C quits at once).
  /// Otherwise it asks, as going back does, and the app quits once the user chooses "Quit"
  /// (``isQuitConfirmed``).
  public func requestQuit() -> Bool {
    defer { setNeedsDisplay() }
    dropStaleConfirmation()
    if confirmation?.isQuit == true { return true }
    let screens = [rootViewController].compactMap { $0 } + presentedViewControllers
    // (A screen that keeps its input as a draft loses nothing by a quit.)
    let warnings = screens.flatMap { Self.unsavedChangesWarnings(in: $0, quitting: true) }
    guard !warnings.isEmpty else { return true }
    alerts.removeAll()
    slideMenu?.close()
    confirmation = Confirmation(
      message: warnings.joined(separator: " ") + " Quit anyway?",
      screens: screens.map(WeakScreen.init),
      discard: { [weak self] in self?.isQuitConfirmed = true },
      isQuit: true)
    return false
  }

  /// Whether the user chose "Quit" in the question ``requestQuit()`` asked.
  public private(set) var isQuitConfirmed = false

  /// The question on screen before unsaved input is discarded, if any.
  public var currentConfirmation: String? {
    dropStaleConfirmation()
    return confirmation?.message
  }

  /// Drops a question about a screen that has left the window (a save closed the form).
  private func dropStaleConfirmation() {
    if let current = confirmation, !current.screens.allSatisfy({ $0.screen?.window === self }) {
      confirmation = nil
    }
  }

  private static func unsavedChangesWarnings(
    in screen: ViewController, quitting: Bool = false
  ) -> [String] {
    let own = quitting && screen.keepsInputOnQuit ? nil : screen.unsavedChangesWarning
    return [own].compactMap { $0 }
      + screen.children.flatMap { unsavedChangesWarnings(in: $0, quitting: quitting) }
  }

  /// Answers the confirmation: runs its discard action, or just closes it. If a screen it was
  /// about has left the window meanwhile (a save closed the form), nothing is discarded.
  private func answerConfirmation(discard: Bool) {
    guard let current = confirmation else { return }
    confirmation = nil
    let isCurrent = current.screens.allSatisfy { $0.screen?.window === self }
    if discard, isCurrent { current.discard() }
    setNeedsDisplay()
  }

  // MARK: One-shot messages

  /// The alert on screen, if any: its title and message.
  public var currentAlert: (title: String, message: String)? { alerts.first }

  /// Shows an alert; it stays until dismissed (Enter, Esc or `tap OK`). Alerts queue.
  public func showAlert(title: String, message: String) {
    alerts.append((title, message))
    setNeedsDisplay()
  }

  /// Shows a toast at the bottom for ``toastDuration``.
  public func showToast(_ message: String) {
    toastSerial += 1
    let serial = toastSerial
    toast = (message, serial, nil)
    setNeedsDisplay()
    let duration = toastDuration
    Task { [weak self] in
      try? await Task.sleep(for: duration)
      guard let self, self.toast?.serial == serial else { return }
      self.toast = nil
      self.setNeedsDisplay()
    }
  }

  // MARK: Drawing

  /// Asks for a redraw.
  public func setNeedsDisplay() {
    onNeedsDisplay?()
  }

  /// Advances spinners by one frame.
  public func tick() {
    spinnerFrame += 1
  }

  /// Draws the window as it is now, and asks to be drawn again when anything the drawing read
  /// from a reactor's observed state changes (`ReactorViewController.state`).
  public func render() -> FrameBuffer {
    withObservationTracking {
      draw()
    } onChange: { [weak self] in
      // A reactor's state changes on the main actor, where the change is reported.
      MainActor.assumeIsolated { self?.setNeedsDisplay() }
    }
  }

  /// The smallest window a frame is drawn in; below it the window says it is too small.
  public static let minimumSize = TerminalSize(columns: 20, rows: 6)

  private func draw() -> FrameBuffer {
    var frame = FrameBuffer(width: max(0, size.columns), height: max(0, size.rows))
    // Every write below is clipped to the frame, so no row is longer than the terminal (a
    // longer one would wrap and scroll it); below the minimum there is no room for a screen.
    guard size.columns >= Self.minimumSize.columns, size.rows >= Self.minimumSize.rows else {
      frame.write(" Too small", x: 0, y: 0, style: .bold)
      frame.write(
        " Need \(Self.minimumSize.columns)×\(Self.minimumSize.rows)", x: 0, y: 1, style: .dim)
      return frame
    }
    let top = topViewController
    let title = top.map { "\(appName) · \($0.title)" } ?? appName
    frame.write(" " + title, x: 0, y: 0, style: .bold)
    if let status = statusViewController?.statusText {
      // At the right end; over the title's end when the window is narrow.
      frame.write(
        status.text, x: max(0, size.columns - status.text.displayWidth - 1), y: 0,
        style: status.style)
    }
    frame.write(String(repeating: "─", count: size.columns), x: 0, y: 1, style: .dim)
    let contentTop = 2
    let contentHeight = size.rows - 4
    if let content = top?.contentViewController {
      var state = content.formState
      let form = Form(elements: content.body())
      state.normalizeFocus(
        form.focusIDs, controls: form.controlIDs, preferred: form.defaultFocusID)
      state.followRows(form.rowKeys)
      content.formState = state
      form.draw(
        into: &frame, top: contentTop, height: contentHeight, state: state,
        spinnerFrame: spinnerFrame)
    }
    // A toast is drawn over the screen on top when it is first drawn (a form that saves and
    // closes shows its "Task created" on the list it returns to), and only over that one.
    let screen = (top?.contentViewController).map(ObjectIdentifier.init)
    if var shown = toast {
      if shown.screen == nil {
        shown.screen = screen
        toast = shown
      }
      if shown.screen == screen {
        frame.write(" ✓ " + shown.message, x: 0, y: size.rows - 2, style: .success)
      } else {
        toast = nil
      }
    }
    frame.write(help(width: size.columns), x: 0, y: size.rows - 1, style: .dim)
    if let menu = slideMenu, menu.isOpen {
      menu.draw(into: &frame, top: contentTop, height: contentHeight)
    }
    // A question about a screen that has left (a save closed the form) goes with it.
    dropStaleConfirmation()
    if let confirmation {
      drawDialog(
        title: confirmation.isQuit ? "Quit with unsaved changes?" : "Discard changes?",
        message: confirmation.message,
        buttons: [
          (Self.keepEditingTitle, !confirmation.isDiscardFocused),
          (confirmation.isQuit ? Self.quitTitle : Self.discardTitle, confirmation.isDiscardFocused),
        ], into: &frame)
    }
    if let alert = alerts.first {
      drawDialog(title: alert.title, message: alert.message, buttons: [("OK", true)], into: &frame)
    }
    return frame
  }

  /// The key hints that fit in `width` columns: the least useful go first ("Enter choose",
  /// then "Tab next", "Ctrl-O menu", "Esc back"); "Ctrl-Q quit" stays.
  private func help(width: Int) -> String {
    var hints: [(text: String, keep: Int)] = [
      ("Tab next", 2), ("Enter choose", 1), ("Esc back", 4), ("Ctrl-O menu", 3),
      ("Ctrl-Q quit", Int.max),
    ]
    if slideMenu == nil { hints.remove(at: 3) }
    func line() -> String { " " + hints.map(\.text).joined(separator: " · ") }
    while line().displayWidth > width - 1, hints.count > 1,
      let least = hints.indices.min(by: { hints[$0].keep < hints[$1].keep })
    {
      hints.remove(at: least)
    }
    return line()
  }

  /// The window drawn as plain text.
  public var text: String { render().text }

  /// A box in the middle of the window: the title, the message wrapped, and the buttons at the
  /// bottom right (the focused one stands out).
  private func drawDialog(
    title: String, message: String, buttons: [(title: String, isFocused: Bool)],
    into frame: inout FrameBuffer
  ) {
    let width = min(56, size.columns - 4)
    let lines = Form.wrap(message, width: width - 4)
    let height = lines.count + 6
    let x = (size.columns - width) / 2
    let y = max(2, (size.rows - height) / 2)
    for row in y..<(y + height) {
      frame.write(String(repeating: " ", count: width), x: x, y: row, style: .inverse)
    }
    frame.write("┌" + String(repeating: "─", count: width - 2) + "┐", x: x, y: y, style: .inverse)
    frame.write(
      "└" + String(repeating: "─", count: width - 2) + "┘", x: x, y: y + height - 1, style: .inverse
    )
    frame.write(
      title, x: x + 2, y: y + 1, style: TextStyle(isBold: true, isInverse: true),
      maxWidth: width - 4)
    for (index, line) in lines.enumerated() {
      frame.write(line, x: x + 2, y: y + 3 + index, style: .inverse, maxWidth: width - 4)
    }
    let labels = buttons.map { "[ \($0.title) ]" }
    var buttonX = max(
      x + 2, x + width - 3 - labels.map(\.displayWidth).reduce(0, +) - labels.count + 1)
    for (label, button) in zip(labels, buttons) {
      buttonX +=
        frame.write(
          label, x: buttonX, y: y + height - 2, style: button.isFocused ? .bold : .inverse,
          maxWidth: x + width - 2 - buttonX) + 1
    }
  }

  // MARK: Input

  /// Routes a key: to the alert, the menu, or the top screen. Returns whether it was used.
  @discardableResult
  public func handle(_ key: Key) -> Bool {
    defer { setNeedsDisplay() }
    if !alerts.isEmpty {
      if key == .enter || key == .escape { alerts.removeFirst() }
      return true
    }
    dropStaleConfirmation()
    if let current = confirmation {
      switch key {
      case .escape, .character("n"), .character("N"): answerConfirmation(discard: false)
      case .character("d"), .character("D"), .character("y"), .character("Y"):
        answerConfirmation(discard: true)
      case .enter: answerConfirmation(discard: current.isDiscardFocused)
      case .tab, .backTab, .left, .right: confirmation?.isDiscardFocused.toggle()
      default: break
      }
      return true
    }
    if let menu = slideMenu, menu.isOpen {
      menu.handle(key)
      return true
    }
    switch key {
    case .menu:
      slideMenu?.open()
      return slideMenu != nil
    case .escape:
      return back()
    default:
      return topViewController?.contentViewController.handle(key) ?? false
    }
  }

  /// Carries out a script command that acts on the screen (`tap`, `type`, `select`, `toggle`,
  /// `back`, `menu`).
  ///
  /// - Throws: ``ScriptError`` naming what is missing, disabled, or in the way.
  public func perform(_ command: ScriptCommand) throws(ScriptError) {
    defer { setNeedsDisplay() }
    if let alert = alerts.first {
      switch command {
      case .tap(let title) where title.lowercased() == "ok":
        alerts.removeFirst()
        return
      case .back:
        alerts.removeFirst()
        return
      default:
        throw .alertShowing("\(alert.title): \(alert.message)")
      }
    }
    dropStaleConfirmation()
    if let current = confirmation {
      switch command {
      case .tap(let title)
      where title.lowercased()
        == (current.isQuit ? Self.quitTitle : Self.discardTitle).lowercased():
        answerConfirmation(discard: true)
      case .tap(let title) where title.lowercased() == Self.keepEditingTitle.lowercased():
        answerConfirmation(discard: false)
      case .back:
        answerConfirmation(discard: false)
      default:
        throw .alertShowing(
          "Discard changes? \(current.message) (tap \"\(Self.discardTitle)\" or "
            + "\"\(Self.keepEditingTitle)\")")
      }
      return
    }
    if case .open(let link) = command {
      guard let deepLinks else { throw .notFound("this app opens no links") }
      openLink(link, with: deepLinks)
      return
    }
    if case .menu(let item) = command {
      guard let menu = slideMenu else { throw .notFound("this screen has no menu") }
      if let item {
        try menu.choose(item)
      } else {
        menu.open()
      }
      return
    }
    slideMenu?.close()
    guard let top = topViewController?.contentViewController else {
      throw .notFound("no screen is showing")
    }
    let form = Form(elements: top.body())
    let control: (id: String, row: Int?)
    switch command {
    case .tap(let title): control = try form.tap(title)
    case .type(let field, let text): control = try form.type(field, text: text)
    case .select(let list, let item): control = try form.select(list, item: item)
    case .toggle(let list, let item): control = try form.toggle(list, item: item)
    case .back:
      guard back() else { throw .notFound("there is nothing to go back to") }
      return
    default:
      return
    }
    // The focus goes to the control, as a user's would (the screen scrolls to show it).
    top.formState.focusedID = control.id
    top.formState.isFocusAutomatic = false
    if let row = control.row { top.formState.cursors[control.id] = row }
  }

  /// Opens `link`; a link that cannot be opened shows an alert saying why (never a crash).
  public func openLink(_ link: String, with router: DeepLinkRouter) {
    do {
      try router.open(link)
    } catch {
      showAlert(title: "Cannot open the link", message: error.message)
    }
  }

  // MARK: Waiting

  /// Every screen in the window.
  private var allViewControllers: [ViewController] {
    var result: [ViewController] = []
    func collect(_ viewController: ViewController) {
      result.append(viewController)
      viewController.children.forEach(collect)
    }
    rootViewController.map(collect)
    presentedViewControllers.forEach(collect)
    statusViewController.map(collect)
    return result
  }

  /// Whether any screen has work in flight.
  public var isBusy: Bool { allViewControllers.contains { $0.isBusy } }

  /// The titles of the screens with work in flight, for messages.
  public var busyScreens: [String] { allViewControllers.filter(\.isBusy).map(\.title) }

  /// Returns when no screen has work in flight (checked again after each wait, since finished
  /// work may start more, or navigate to a new screen that starts its own).
  public func waitUntilIdle() async {
    for _ in 0..<1000 {
      // Let tasks already scheduled on the main actor run first (navigation, state updates).
      for _ in 0..<8 { await Task.yield() }
      let busy = allViewControllers.filter(\.isBusy)
      if busy.isEmpty { return }
      for viewController in busy { await viewController.waitUntilIdle() }
    }
  }
}
