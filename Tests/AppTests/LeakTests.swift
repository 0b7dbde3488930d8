import Foundation
import ProfileFeatureFront
import ShellFeatureFront
import TasksFeatureFront
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisFront
import TrellisReactor

@testable import Trellis

@MainActor
@Suite("Leaving a screen releases it", .capturesLogs, .timeLimit(.minutes(2)))
struct LeakTests {
  /// The top screen of the signed-in area's stack.
  private func top(_ app: AppHarness) -> ViewController? {
    (app.window.rootViewController as? NavigationController)?.topViewController
  }

  /// When the app goes, its services go with it, signed in or not: nothing its links' routes
  /// or its screens' factories hold keeps them (the connection service ends its event stream
  /// only when it is released).
  @Test func theServicesAreReleasedWithTheApp() async throws {
    weak var auth: AnyObject?
    do {
      let app = try AppHarness(.embedded)
      defer { app.cleanUp() }
      auth = app.dependencies.authService as AnyObject
      #expect(await app.run(EndToEndTests.signIn) == .completed(commands: 5))
    }
    #expect(await eventually(timeout: .seconds(5)) { auth == nil })
  }

  @Test func everyScreenAndItsReactorAreReleasedWhenLeft() async throws {
    let app = try AppHarness(.embedded)
    defer { app.cleanUp() }

    weak let splash: AnyObject? = (app.window.rootViewController as? SplashViewController)?.reactor
    #expect(await app.run("expect Sign in to Trellis") == .completed(commands: 1))
    weak let login: AnyObject? = (app.window.rootViewController as? LoginViewController)?.reactor
    #expect(splash == nil)  // replaced by Login
    #expect(login != nil)
    #expect(await app.run(EndToEndTests.signIn) == .completed(commands: 5))
    #expect(login == nil)  // replaced by Main

    for (section, type) in [
      ("Tasks", "TaskList"), ("New task", "TaskCompose"), ("Profile", "Profile"),
    ] {
      #expect(await app.run("menu \(section)") == .completed(commands: 1))
      weak let screen = top(app)
      weak let reactor: AnyObject? =
        switch screen {
        case let list as TaskListViewController: list.reactor
        case let compose as TaskComposeViewController: compose.reactor
        case let profile as ProfileViewController: profile.reactor
        default: nil
        }
      #expect(reactor != nil, "\(type) has no reactor")
      #expect(await app.run("back") == .completed(commands: 1))
      #expect(screen == nil, "\(type)ViewController was not released")
      #expect(reactor == nil, "\(type)ViewReactor was not released")
    }

    weak let main = top(app)
    #expect(await app.run("menu Sign out\nexpect Sign in to Trellis") == .completed(commands: 2))
    #expect(main == nil)
  }

  @Test func visitingScreensManyTimesLeavesNothingBehind() async throws {
    let app = try AppHarness(.embedded)
    defer { app.cleanUp() }
    #expect(await app.run(EndToEndTests.signIn) == .completed(commands: 5))
    var screens: [() -> AnyObject?] = []
    for _ in 0..<20 {
      for section in ["Tasks", "New task", "Profile"] {
        #expect(await app.run("menu \(section)\nback") == .completed(commands: 2))
      }
      weak let last = top(app)
      screens.append { last }
    }
    #expect((app.window.rootViewController as? NavigationController)?.viewControllers.count == 1)
    #expect(screens.allSatisfy { $0() is MainViewController })  // only the home screen remains
  }
}
