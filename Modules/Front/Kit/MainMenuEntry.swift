/// One section of the signed-in area, reachable from the slide menu and the main screen.
@MainActor
public struct MainMenuEntry {
  /// The section's title.
  public var title: String
  /// Makes the section's screen (a fresh one each time).
  public var makeViewController: () -> ViewController

  /// Creates an entry.
  public init(title: String, makeViewController: @escaping () -> ViewController) {
    self.title = title
    self.makeViewController = makeViewController
  }
}
