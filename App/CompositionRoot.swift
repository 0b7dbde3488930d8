import Foundation
import ProfileFeature
import ProfileFeatureFront
import ShellFeature
import ShellFeatureFront
import TasksFeature
import TasksFeatureFront
import TrellisCore
import TrellisDemoBackend
import TrellisFront
import TrellisNetwork
import TrellisReactor
import TrellisRepository
import TrellisService

/// What `CompositionRoot.resolve` builds: the window, and the long-lived objects tests and the
/// entry point need to reach.
@MainActor
struct AppDependencies {
  /// The window, showing the splash screen.
  let window: Window
  /// The embedded demo backend, when the app runs without `--server`.
  let backend: DemoBackend?
  /// The auth service.
  let authService: any AuthService
  /// The drafts being typed: written at once when the app quits.
  let draftService: any DraftService

  /// The app is about to end (the user quit, or the script ran out): what is still only in
  /// memory and must outlive the process (the drafts being typed) is written now.
  func willTerminate() {
    draftService.flush()
  }
}

/// Builds the app by hand (FLo 2.0's `CompositionRoot`, seed 004), in three parts that each read
/// top to bottom: where requests go (`makeServer`), the services (`makeServices`: the plugins,
/// the auth service, the requesters, the repositories, the services), and the screens
/// (``Screens``: a factory per screen, the main menu, and the links). No container library:
/// reading this file shows every dependency of the app.
@MainActor
enum CompositionRoot {
  /// Builds the app for `configuration`. Tests may hand in the embedded backend (with their
  /// own clock), and the event stream's timings (seconds where the app's are minutes).
  static func resolve(
    _ configuration: AppConfiguration, embeddedBackend: DemoBackend? = nil,
    eventStreamPolicy: EventStreamClient.ReconnectPolicy = EventStreamClient.ReconnectPolicy()
  ) -> AppDependencies {
    let server = makeServer(configuration, embeddedBackend: embeddedBackend)
    let services = makeServices(
      configuration, server: server, eventStreamPolicy: eventStreamPolicy)
    // The window owns the links; the screens' factories only reach them (see `Screens.links`).
    let links = DeepLinkRouter(scheme: linkScheme)
    let screens = Screens(services: services, links: links)
    screens.registerRoutes()
    let window = Window(appName: "Trellis")
    window.deepLinks = links
    window.setRoot(screens.makeSplashViewController())
    return AppDependencies(
      window: window, backend: server.embeddedBackend, authService: services.authService,
      draftService: services.draftService)
  }

  /// Where requests go: the embedded demo backend, or the server `--server` names.
  struct Server {
    /// The transport every requester sends through.
    let transport: any HTTPTransport & StreamingHTTPTransport
    /// The API's address.
    let baseURL: URL
    /// The embedded demo backend, when the app runs without `--server`.
    let embeddedBackend: DemoBackend?
  }

  /// The embedded demo backend, or a real server.
  static func makeServer(_ configuration: AppConfiguration, embeddedBackend: DemoBackend?)
    -> Server
  {
    if let server = configuration.server {
      return Server(transport: URLSessionTransport(), baseURL: server, embeddedBackend: nil)
    }
    // The embedded backend keeps its sessions beside the app's, so a relaunch stays signed in
    // (the saved session names tokens this backend issued).
    // Two copies of the app on one data folder share that file: their backends act as one.
    var demo: DemoConfiguration = configuration.isInstant ? .instant : .demo
    demo.accessTokenLifetime = configuration.demoTokenLifetime ?? demo.accessTokenLifetime
    let backend =
      embeddedBackend
      ?? DemoBackend(
        configuration: demo,
        sessionsFile: dataDirectory(configuration).appendingPathComponent("demo-sessions.json"))
    return Server(
      transport: StubTransport(responder: backend.router),
      baseURL: URL(string: "http://embedded.trellis")!, embeddedBackend: backend)
  }

  /// The plugins, the auth service, a requester and a repository per API, and the services the
  /// screens use.
  static func makeServices(
    _ configuration: AppConfiguration, server: Server,
    eventStreamPolicy: EventStreamClient.ReconnectPolicy
  ) -> AppServices {
    let (transport, baseURL) = (server.transport, server.baseURL)

    // MARK: Plugins
    // At debug level and below, requests are also logged as cURL lines with their JSON and
    // form bodies, secrets redacted.
    let verbose = configuration.logLevel <= .debug
    // What the user searches for (`?query=`) is theirs: redacted from the HTTP log like a
    // secret. (A reactor trace, `--trace TaskListViewReactor`, opted into for debugging, shows
    // the search's actions as typed.)
    let loggingPlugin = LoggingPlugin(
      logger: Logger(category: "HTTP"), redactor: SecretRedactor(additionalKeys: ["query"]),
      logsCurl: verbose, logsBodies: verbose)
    let retryPlugin = RetryPlugin()
    // Whether requests reach the server: when they do again after failures, the event stream
    // reconnects at once instead of waiting out its backoff.
    let reachabilityPlugin = ReachabilityPlugin()

    // MARK: Auth service and its plugin
    let sessionStore = FileSessionStore(
      fileURL: dataDirectory(configuration).appendingPathComponent("session.json"))
    let authRequester = HTTPRequester<AuthDataAPI>(
      baseURL: baseURL, transport: transport, plugins: [reachabilityPlugin, loggingPlugin])
    let authService = AuthServiceImpl(
      repo: AuthRepoImpl(requester: authRequester), store: sessionStore)
    let authPlugin = AuthPlugin(source: authService)
    let plugins: [any HTTPPlugin] = [authPlugin, retryPlugin, reachabilityPlugin, loggingPlugin]

    // MARK: Requesters
    let userDataRequester = HTTPRequester<UserDataAPI>(
      baseURL: baseURL, transport: transport, plugins: plugins)
    let projectDataRequester = HTTPRequester<ProjectDataAPI>(
      baseURL: baseURL, transport: transport, plugins: plugins)
    let taskDataRequester = HTTPRequester<TaskDataAPI>(
      baseURL: baseURL, transport: transport, plugins: plugins)
    let fileDataRequester = HTTPRequester<FileDataAPI>(
      baseURL: baseURL, transport: transport, plugins: plugins)
    let eventDataRequester = HTTPRequester<EventDataAPI>(
      baseURL: baseURL, transport: transport, plugins: [authPlugin, loggingPlugin])

    // MARK: What the device keeps for the signed-in user
    // The repositories' answers, kept between launches so a screen shows them at once (offline
    // too) while it asks the server; a folder per user, erased at sign-out and when the session
    // ends (`UserDataScope`, below). On an Apple platform this would be the Caches folder.
    let cache = makeCache(configuration)
    // What the user is typing, kept as it is typed so a quit or a crash loses nothing (on an
    // Apple platform: Application Support, which is backed up); erased at sign-out, kept for the
    // same user when the server ends the session.
    let drafts = UserLocalStore(
      root: dataDirectory(configuration).appendingPathComponent("drafts", isDirectory: true))
    // Both follow the session (made before the services, so a service that reads the store
    // when the session changes reads the new user's).
    // The app's log (`trellis.log`: what it did, request by request) goes with its user too.
    let userData = UserDataScope(
      caches: [cache].compactMap { $0 }, drafts: [drafts], sessionState: authService.sessionState,
      onUserLeft: { (LogSystem.sink as? FileLogSink)?.erase() })

    // MARK: Repositories
    let userRepo = UserRepoImpl(requester: userDataRequester, store: cache)
    let projectRepo = ProjectRepoImpl(requester: projectDataRequester, store: cache)
    let taskRepo = TaskRepoImpl(requester: taskDataRequester, store: cache)
    let fileRepo = FileRepoImpl(requester: fileDataRequester)
    let eventRepo = EventRepoImpl(
      requester: eventDataRequester, transport: transport, policy: eventStreamPolicy)
    // trellis:repositories (the generator adds repositories above this line)

    // MARK: Services
    let userService = UserServiceImpl(repo: userRepo, sessionState: authService.sessionState)
    let draftService = DraftServiceImpl(store: drafts)
    // What the user must be told wherever they are (the connection banner shows it).
    let noticeBoard = NoticeBoard(sessionState: authService.sessionState)
    // Changes to tasks go through an outbox in the user's drafts folder: one made offline (or
    // whose answer is lost) is shown at once, marked as not sent, kept across a quit, and sent
    // with the same idempotency key when the network returns; one the server refuses then is
    // told on the notice board (a new task's text kept as a draft for the task form).
    let taskService = TaskServiceImpl(
      projectRepo: projectRepo, taskRepo: taskRepo, sessionState: authService.sessionState,
      currentUser: userService.currentUser, outbox: Outbox(store: drafts, name: "tasks"),
      reachability: reachabilityPlugin.isReachable, notices: noticeBoard, drafts: draftService)
    let fileService = FileServiceImpl(repo: fileRepo)
    let connectionService = ConnectionServiceImpl(
      repo: eventRepo, authService: authService, reachability: reachabilityPlugin.isReachable)
    // trellis:services (the generator adds services above this line)
    return AppServices(
      authService: authService, userService: userService, taskService: taskService,
      fileService: fileService, connectionService: connectionService, userData: userData,
      draftService: draftService, noticeBoard: noticeBoard,
      // trellis:service-arguments (the generator adds services above this line)
    )
  }

  /// The scheme of the app's links: `trellis://tasks/2`.
  static let linkScheme = "trellis"

  /// The signed-in user's cached answers, in the data folder's `cache`; none with `--no-cache`
  /// (and what earlier launches kept there is erased).
  static func makeCache(_ configuration: AppConfiguration) -> UserLocalStore? {
    let root = dataDirectory(configuration).appendingPathComponent("cache", isDirectory: true)
    guard configuration.keepsAnswers else {
      try? FileManager.default.removeItem(at: root)
      return nil
    }
    // Not synced to the disk on each write: an answer a power cut loses is fetched again.
    return UserLocalStore(root: root, isDurable: false)
  }

  /// `--data-dir`, else the XDG data directory's `trellis` folder.
  static func dataDirectory(_ configuration: AppConfiguration) -> URL {
    if let directory = configuration.dataDirectory {
      return URL(fileURLWithPath: directory, isDirectory: true)
    }
    return FileSessionStore.dataDirectory(environment: ProcessInfo.processInfo.environment)
      .appendingPathComponent("trellis", isDirectory: true)
  }
}

/// The app's screens, each made when it opens by its factory here: a view controller, a fresh
/// reactor given the services (which it sees through its own `XxxViewServiceProvider`), and,
/// for a screen that opens others, a view controller provider whose closures are these
/// factories. The main menu and the links open screens through the same factories, so every
/// way to a screen builds it one way.
@MainActor
struct Screens {
  /// The services every reactor gets.
  let services: AppServices
  /// The app's links: `registerRoutes()` says which screens each opens. Held weakly: the
  /// window owns them, and their routes hold these factories (a strong reference back would
  /// keep the router, the screens' factories and every service alive for good).
  weak var links: DeepLinkRouter?

  // MARK: Shell: launch, sign-in, home

  /// The first screen: restores the saved session, then opens home or sign-in.
  func makeSplashViewController() -> ViewController {
    SplashViewController(
      reactor: SplashViewReactor(serviceProvider: services),
      viewControllerProvider: SplashViewControllerProviderImpl(
        main: makeMainViewController, login: { makeLoginViewController(notice: nil) }))
  }

  /// Sign-in, with `notice` (why the user was signed out) above the form.
  func makeLoginViewController(notice: String?) -> ViewController {
    holdLinksUntilSignIn()
    return LoginViewController(
      reactor: LoginViewReactor(serviceProvider: services, notice: notice),
      viewControllerProvider: LoginViewControllerProviderImpl(main: makeMainViewController))
  }

  /// Home: the main menu at the root of the signed-in area's navigation stack, the connection
  /// banner above it.
  func makeMainViewController() -> ViewController {
    let stack = NavigationController(
      root: MainViewController(
        reactor: MainViewReactor(serviceProvider: services),
        viewControllerProvider: MainViewControllerProviderImpl(
          menuEntries: mainMenu, login: makeLoginViewController,
          banner: makeConnectionBannerViewController)))
    openLinks(in: stack)
    return stack
  }

  /// The connection banner home shows above every screen.
  func makeConnectionBannerViewController() -> ViewController {
    ConnectionBannerViewController(
      reactor: ConnectionBannerViewReactor(serviceProvider: services))
  }

  /// The main menu's sections, in order (`trellis-gen screen` adds one per screen).
  var mainMenu: [MainMenuEntry] {
    [
      MainMenuEntry(title: "Tasks") { makeTaskListViewController() },
      MainMenuEntry(title: "New task") { makeTaskComposeViewController() },
      MainMenuEntry(title: "Profile") { makeProfileViewController() },
      // trellis:menu-entries (the generator adds menu entries above this line)
    ]
  }

  // MARK: Tasks

  /// The task list, which opens a task's detail and the compose screen.
  func makeTaskListViewController() -> ViewController {
    TaskListViewController(
      reactor: TaskListViewReactor(serviceProvider: services),
      viewControllerProvider: TaskListViewControllerProviderImpl(
        compose: makeTaskComposeViewController,
        detail: makeTaskDetailViewController))
  }

  /// A task's detail: done, rename, delete.
  func makeTaskDetailViewController(taskID: Int) -> ViewController {
    TaskDetailViewController(
      reactor: TaskDetailViewReactor(serviceProvider: services, taskID: taskID))
  }

  /// A new task, in `projectID` if given.
  func makeTaskComposeViewController(projectID: Int? = nil) -> ViewController {
    TaskComposeViewController(
      reactor: TaskComposeViewReactor(serviceProvider: services, projectID: projectID))
  }

  // MARK: Profile

  /// The signed-in user's profile.
  func makeProfileViewController() -> ViewController {
    ProfileViewController(reactor: ProfileViewReactor(serviceProvider: services))
  }

  // trellis:screens (the generator adds screens' factories above this line)

  // MARK: Links: trellis://<route> opens these screens above home (after sign-in if needed)

  /// The screens each link opens, above home.
  func registerRoutes() {
    guard let links else { return }
    links.register("home") { _ in [] }
    links.register("tasks") { _ in [makeTaskListViewController()] }
    links.register("tasks/:id") { link throws(DeepLinkError) in
      [makeTaskListViewController(), makeTaskDetailViewController(taskID: try link.int("id"))]
    }
    links.register("compose") { link throws(DeepLinkError) in
      [makeTaskComposeViewController(projectID: try link.optionalInt("project"))]
    }
    links.register("profile") { _ in [makeProfileViewController()] }
    // trellis:routes (the generator adds routes above this line)
  }

  /// Signed in (home made), links open in home's `stack`: their screens replace those above
  /// home, and one holding unsaved input asks first. A link that waited for sign-in opens now.
  func openLinks(in stack: NavigationController) {
    links?.attach { [weak stack] screens in
      guard let stack else { return }
      let replace = {
        stack.popToRoot()
        for screen in screens { stack.push(screen) }
      }
      guard let window = stack.window else { return replace() }
      window.leaveAfterAsking(Array(stack.viewControllers.dropFirst()), then: replace)
    }
  }

  /// Signed out (sign-in made), a link waits until the user signs in again.
  func holdLinksUntilSignIn() {
    links?.detach()
  }
}
