import TrellisFront

/// A screen standing in for the ones a provider makes.
@MainActor
final class PlaceholderViewController: ViewController {
  override func body() -> [Element] { [.text("Placeholder: \(title)")] }
}

/// A window of a fixed size showing `viewController`.
@MainActor
func windowShowing(_ viewController: ViewController) -> Window {
  let window = Window(size: TerminalSize(columns: 80, rows: 30))
  window.setRoot(viewController)
  return window
}
