import Foundation
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
}

/// Builds the app by hand (FLo 2.0's `CompositionRoot`, seed 004), top to bottom: the
/// transport, the auth service and its plugin, the requesters, the repositories, the services;
/// then the screens, each made on demand by a factory with a fresh reactor and a service
/// provider that exposes only what the screen needs. No container library: reading this file
/// shows every dependency of the app.
@MainActor
enum CompositionRoot {
  /// Builds the app for `configuration`. Tests may hand in the embedded backend (with their
  /// own clock).
  static func resolve(_ configuration: AppConfiguration, embeddedBackend: DemoBackend? = nil)
    -> AppDependencies
  {
    let window = Window(appName: "Trellis")

    // MARK: Transport: the embedded demo backend, or a real server
    let backend: DemoBackend?
    let transport: any HTTPTransport & StreamingHTTPTransport
    let baseURL: URL
    if let server = configuration.server {
      backend = nil
      transport = URLSessionTransport()
      baseURL = server
    } else {
      // The embedded backend keeps its sessions beside the app's, so a relaunch stays signed
      // in (the saved session names tokens this backend issued).
      let embedded =
        embeddedBackend
        ?? DemoBackend(
          configuration: configuration.isInstant ? .instant : .demo,
          sessionsFile: dataDirectory(configuration).appendingPathComponent("demo-sessions.json"))
      backend = embedded
      transport = StubTransport(responder: embedded.router)
      baseURL = URL(string: "http://embedded.trellis")!
    }
    // At debug level and below, requests are also logged as cURL lines with their JSON and
    // form bodies, secrets redacted.
    let verbose = configuration.logLevel <= .debug
    // What the user searches for (`?query=`) is theirs: redacted from the log like a secret.
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

    // MARK: Repositories
    let userRepo = UserRepoImpl(requester: userDataRequester)
    let projectRepo = ProjectRepoImpl(requester: projectDataRequester)
    let taskRepo = TaskRepoImpl(requester: taskDataRequester)
    let fileRepo = FileRepoImpl(requester: fileDataRequester)
    let eventRepo = EventRepoImpl(requester: eventDataRequester, transport: transport)
    // trellis:repositories (the generator adds repositories above this line)

    // MARK: Services
    let userService = UserServiceImpl(repo: userRepo, sessionState: authService.sessionState)
    let taskService = TaskServiceImpl(
      projectRepo: projectRepo, taskRepo: taskRepo, sessionState: authService.sessionState)
    let fileService = FileServiceImpl(repo: fileRepo)
    let connectionService = ConnectionServiceImpl(
      repo: eventRepo, authService: authService, reachability: reachabilityPlugin.isReachable)
    // trellis:services (the generator adds services above this line)
    let services = AppServices(
      authService: authService, userService: userService, taskService: taskService,
      fileService: fileService, connectionService: connectionService,
      // trellis:service-arguments (the generator adds services above this line)
    )

    // MARK: Screens of the signed-in area
    func makeTaskComposeViewController(
      projectID: Int? = nil, onSaved: @escaping @MainActor (Int) -> Void = { _ in }
    ) -> ViewController {
      TaskComposeViewController(
        reactor: TaskComposeViewReactor(serviceProvider: services, projectID: projectID),
        onSaved: onSaved)
    }

    func makeTaskListViewController() -> ViewController {
      TaskListViewController(
        reactor: TaskListViewReactor(serviceProvider: services),
        viewControllerProvider: TaskListViewControllerProviderImpl(
          compose: { makeTaskComposeViewController(projectID: $0, onSaved: $1) },
          detail: makeTaskDetailViewController))
    }

    func makeTaskDetailViewController(taskID: Int) -> ViewController {
      TaskDetailViewController(
        reactor: TaskDetailViewReactor(serviceProvider: services, taskID: taskID))
    }

    func makeProfileViewController() -> ViewController {
      ProfileViewController(reactor: ProfileViewReactor(serviceProvider: services))
    }

    func makeConnectionBannerViewController() -> ViewController {
      ConnectionBannerViewController(
        reactor: ConnectionBannerViewReactor(serviceProvider: services))
    }

    let mainMenu: [MainMenuEntry] = [
      MainMenuEntry(title: "Tasks", makeViewController: makeTaskListViewController),
      MainMenuEntry(title: "New task") { makeTaskComposeViewController() },
      MainMenuEntry(title: "Profile", makeViewController: makeProfileViewController),
      // trellis:menu-entries (the generator adds menu entries above this line)
    ]

    // MARK: Links: trellis://<route> opens these screens above home (after sign-in if needed)
    let links = DeepLinkRouter(scheme: linkScheme)
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
    window.deepLinks = links

    // MARK: Main, Login and Splash
    func makeMainViewController() -> ViewController {
      let viewControllerProvider = MainViewControllerProviderImpl(
        menuEntries: mainMenu, login: makeLoginViewController,
        banner: makeConnectionBannerViewController)
      let mainViewController = MainViewController(
        reactor: MainViewReactor(serviceProvider: services),
        viewControllerProvider: viewControllerProvider)
      let stack = NavigationController(root: mainViewController)
      links.attach { [weak stack] screens in
        guard let stack else { return }
        let replace = {
          stack.popToRoot()
          for screen in screens { stack.push(screen) }
        }
        // A link replaces the screens above home: one holding unsaved input asks first.
        guard let window = stack.window else { return replace() }
        window.leaveAfterAsking(Array(stack.viewControllers.dropFirst()), then: replace)
      }
      return stack
    }

    func makeLoginViewController(notice: String?) -> ViewController {
      links.detach()
      return LoginViewController(
        reactor: LoginViewReactor(serviceProvider: services, notice: notice),
        viewControllerProvider: LoginViewControllerProviderImpl(main: makeMainViewController))
    }

    let splashViewController = SplashViewController(
      reactor: SplashViewReactor(serviceProvider: services),
      viewControllerProvider: SplashViewControllerProviderImpl(
        main: makeMainViewController, login: { makeLoginViewController(notice: nil) }))
    window.setRoot(splashViewController)

    return AppDependencies(window: window, backend: backend, authService: authService)
  }

  /// The scheme of the app's links: `trellis://tasks/2`.
  static let linkScheme = "trellis"

  /// `--data-dir`, else the XDG data directory's `trellis` folder.
  static func dataDirectory(_ configuration: AppConfiguration) -> URL {
    if let directory = configuration.dataDirectory {
      return URL(fileURLWithPath: directory, isDirectory: true)
    }
    return FileSessionStore.dataDirectory(environment: ProcessInfo.processInfo.environment)
      .appendingPathComponent("trellis", isDirectory: true)
  }
}
