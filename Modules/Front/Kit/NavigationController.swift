import Foundation

/// A stack of screens: push to go deeper, pop (Esc, `back`) to return. The top screen is the one
/// shown and the one that gets input.
@MainActor
public final class NavigationController: ViewController {
  /// The screens, bottom first.
  public private(set) var viewControllers: [ViewController]

  /// Creates a stack with `root` at the bottom.
  public init(root: ViewController) {
    viewControllers = [root]
    super.init(title: root.title)
    root.navigationController = self
  }

  /// The screen on top.
  public var topViewController: ViewController { viewControllers[viewControllers.count - 1] }

  /// Shows `viewController` on top.
  public func push(_ viewController: ViewController) {
    viewController.navigationController = self
    viewControllers.append(viewController)
    viewController.attach(to: window)
    setNeedsDisplay()
  }

  /// Removes the top screen (never the root); it leaves for good and is released.
  @discardableResult
  public func pop() -> Bool {
    guard viewControllers.count > 1 else { return false }
    let removed = viewControllers.removeLast()
    removed.leaveRecursively()
    removed.navigationController = nil
    setNeedsDisplay()
    return true
  }

  /// Removes every screen above the root.
  public func popToRoot() {
    while pop() {}
  }

  /// The top screen's title.
  public override var title: String {
    get { topViewController.title }
    set { topViewController.title = newValue }
  }

  /// The top screen's content.
  public override func body() -> [Element] { topViewController.body() }

  /// The stack.
  public override var children: [ViewController] { viewControllers }

  /// The top screen's content.
  public override var contentViewController: ViewController {
    topViewController.contentViewController
  }

  /// Whether any screen in the stack is busy.
  public override var isBusy: Bool { viewControllers.contains { $0.isBusy } }

  /// Waits for every screen in the stack.
  public override func waitUntilIdle() async {
    for viewController in viewControllers { await viewController.waitUntilIdle() }
  }

  /// Sends keys to the top screen.
  public override func handle(_ key: Key) -> Bool { topViewController.handle(key) }
}

/// One entry of the slide menu.
@MainActor
public struct MenuItem {
  /// The entry's title, also its name in `menu <title>`.
  public var title: String
  /// What choosing it does.
  public var action: () -> Void

  /// Creates an entry.
  public init(_ title: String, action: @escaping () -> Void) {
    self.title = title
    self.action = action
  }
}

/// The side menu of the signed-in area (FLo's `SlideMenuNavigator`): opened with Ctrl-O or
/// `menu`, it lists the app's sections over the left of the screen.
@MainActor
public final class SlideMenuNavigator {
  /// The entries.
  public var items: [MenuItem]
  /// A line shown above the entries (the signed-in user).
  public var header: String
  /// Whether the menu is showing.
  public private(set) var isOpen = false
  private var cursor = 0

  /// Creates a closed menu.
  public init(header: String = "", items: [MenuItem]) {
    self.header = header
    self.items = items
  }

  /// Shows the menu.
  public func open() {
    isOpen = true
    cursor = 0
  }

  /// Hides the menu.
  public func close() {
    isOpen = false
  }

  /// Chooses the entry titled `title` (ignoring case): closes the menu, then runs its action.
  public func choose(_ title: String) throws(ScriptError) {
    guard let item = items.first(where: { $0.title.lowercased() == title.lowercased() }) else {
      throw .notFound(
        "the menu has no \"\(title)\" (entries: \(items.map { "\"\($0.title)\"" }.joined(separator: ", ")))"
      )
    }
    close()
    item.action()
  }

  func handle(_ key: Key) {
    switch key {
    // The cursor wraps: Up on the first entry goes to the last, Down on the last to the first.
    case .up where !items.isEmpty: cursor = (cursor - 1 + items.count) % items.count
    case .down where !items.isEmpty, .tab where !items.isEmpty:
      cursor = (cursor + 1) % items.count
    case .escape, .menu: close()
    case .enter:
      guard items.indices.contains(cursor) else { return }
      let item = items[cursor]
      close()
      item.action()
    default: break
    }
  }

  func draw(into frame: inout FrameBuffer, top: Int, height: Int) {
    let width = min(28, frame.width - 2)
    for row in top..<(top + height) {
      frame.write(String(repeating: " ", count: width), x: 0, y: row, style: .inverse)
      frame.write("│", x: width, y: row, style: .dim)
    }
    frame.write(
      " ≡ Menu", x: 0, y: top, style: TextStyle(isBold: true, isInverse: true), maxWidth: width)
    frame.write(" " + header, x: 0, y: top + 1, style: .inverse, maxWidth: width)
    for (index, item) in items.enumerated() where top + 3 + index < top + height {
      let style = index == cursor ? TextStyle.bold : TextStyle.inverse
      let text = (index == cursor ? " ▸ " : "   ") + item.title
      frame.write(
        text.padding(toLength: width, withPad: " ", startingAt: 0), x: 0, y: top + 3 + index,
        style: style, maxWidth: width)
    }
  }
}
