import ShellFeatureFront
import TasksFeatureFront
import TrellisFront
import TrellisReactor

/// The task form's stand-in: what the list opened it with.
@MainActor
final class ComposePlaceholder: ViewController {
  let projectID: Int?

  init(projectID: Int?) {
    self.projectID = projectID
    super.init(title: "Compose screen")
  }

  override func body() -> [Element] { [.text("Placeholder: \(title)")] }
}

/// Providers whose factories make placeholders.
@MainActor
struct FakeProviders: SplashViewControllerProvider, LoginViewControllerProvider,
  TaskListViewControllerProvider,
  MainViewControllerProvider
{
  var menuEntries: [MainMenuEntry] = [
    MainMenuEntry(title: "Tasks") { PlaceholderViewController(title: "Tasks screen") },
    MainMenuEntry(title: "Profile") { PlaceholderViewController(title: "Profile screen") },
  ]
  func makeMainViewController() -> ViewController {
    PlaceholderViewController(title: "Main screen")
  }
  func makeLoginViewController() -> ViewController {
    PlaceholderViewController(title: "Login screen")
  }
  func makeLoginViewController(notice: String?) -> ViewController {
    PlaceholderViewController(title: "Login screen: \(notice ?? "no notice")")
  }
  func makeTaskComposeViewController(projectID: Int?) -> ViewController {
    ComposePlaceholder(projectID: projectID)
  }
  func makeTaskDetailViewController(taskID: Int) -> ViewController {
    PlaceholderViewController(title: "Task \(taskID) screen")
  }
  func makeConnectionBannerViewController() -> ViewController {
    PlaceholderViewController(title: "Banner")
  }
}
