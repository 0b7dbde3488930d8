import ProfileFeature
import ShellFeature
import TasksFeature
import TrellisReactor
import TrellisService

/// The app's services as tests give them to reactors: fakes by default, any of them replaced
/// by the one a test drives. It conforms to every screen's `XxxViewServiceProvider`, as the
/// app's `AppServices` does, so a reactor under test is made with
/// `XxxViewReactor(serviceProvider: TestServices(userService: users))`.
///
/// `trellis-gen` adds a generated service's property (its real implementation, which its own
/// tests cover) above the first marker, and a generated screen's conformance above the second.
public struct TestServices: Sendable {
  /// Sign-in, sign-out, the session.
  public var authService: any AuthService
  /// The signed-in user.
  public var userService: any UserService
  /// Projects and tasks.
  public var taskService: any TaskService
  /// Uploads.
  public var fileService: any FileService
  /// The live connection.
  public var connectionService: any ConnectionService
  /// Drafts.
  public var draftService: any DraftService
  /// The notices the user has not seen yet.
  public var noticeBoard: NoticeBoard
  // trellis:test-services (the generator adds services above this line)

  /// Fakes, except the services given.
  public init(
    authService: any AuthService = FakeAuthService(),
    userService: any UserService = FakeUserService(),
    taskService: any TaskService = FakeTaskService(),
    fileService: any FileService = FakeFileService(),
    connectionService: any ConnectionService = FakeConnectionService(),
    draftService: any DraftService = FakeDraftService(),
    noticeBoard: NoticeBoard = NoticeBoard()
  ) {
    self.authService = authService
    self.userService = userService
    self.taskService = taskService
    self.fileService = fileService
    self.connectionService = connectionService
    self.draftService = draftService
    self.noticeBoard = noticeBoard
  }
}

extension TestServices: SplashViewServiceProvider {}
extension TestServices: LoginViewServiceProvider {}
extension TestServices: MainViewServiceProvider {}
extension TestServices: TaskListViewServiceProvider {}
extension TestServices: TaskComposeViewServiceProvider {}
extension TestServices: TaskDetailViewServiceProvider {}
extension TestServices: ProfileViewServiceProvider {}
extension TestServices: ConnectionBannerViewServiceProvider {}
// trellis:test-screen-services (the generator adds screens' conformances above this line)
