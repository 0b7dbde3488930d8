import ProfileFeature
import ShellFeature
import TasksFeature
import TrellisReactor
import TrellisService

/// Every long-lived service the app's screens use, built once by the composition root.
///
/// Each screen's reactor sees it only through its own narrow `XxxViewServiceProvider` protocol
/// (FLo's ServiceProvider): the conformances below are the whole wiring, and the compiler
/// checks that the services a screen asks for exist. `trellis-gen` adds a generated service's
/// property above the first marker and a generated screen's conformance above the second.
struct AppServices: Sendable {
  let authService: any AuthService
  let userService: any UserService
  let taskService: any TaskService
  let fileService: any FileService
  let connectionService: any ConnectionService
  /// Keeps what the device stores to the signed-in user (erased when the session ends).
  let userData: UserDataScope
  /// Drafts of what the user is typing, kept between launches.
  let draftService: any DraftService
  /// What the user must be told wherever they are, until a screen shows it.
  let noticeBoard: NoticeBoard
  // trellis:app-services (the generator adds services above this line)
}

extension AppServices: SplashViewServiceProvider {}
extension AppServices: LoginViewServiceProvider {}
extension AppServices: MainViewServiceProvider {}
extension AppServices: TaskListViewServiceProvider {}
extension AppServices: TaskComposeViewServiceProvider {}
extension AppServices: TaskDetailViewServiceProvider {}
extension AppServices: ProfileViewServiceProvider {}
extension AppServices: ConnectionBannerViewServiceProvider {}
// trellis:screen-services (the generator adds screens' conformances above this line)
