import Foundation
import Testing
import TrellisCoreTesting
import TrellisDemoBackend
import TrellisFront
import TrellisLoopbackServer
import TrellisNetwork

@testable import Trellis

/// Nothing done offline is lost: the app's real stack over real HTTP, through a proxy that
/// cuts the network. A task marked done, one renamed, one deleted and one created while the
/// server cannot be reached are shown at once, marked as not sent; they survive a quit and a
/// launch still offline; when the network returns they reach the server, each once, and the
/// marks go.
@MainActor
@Suite("Outbox end to end: changes made offline reach the server once", .timeLimit(.minutes(2)))
struct OutboxEndToEndTests {
  @Test func fourChangesMadeOfflineSurviveARelaunchAndReachTheServerOnce() async throws {
    let backend = DemoBackend(configuration: .instant)
    backend.createTaskElsewhere(projectID: 1, title: "Old idea")
    let server = try LoopbackServer(router: backend.router)
    defer { server.stop() }
    let proxy = try CuttableProxy(targetPort: server.port)
    defer { proxy.stop() }
    let app = try AppHarness(backend: backend, serverURL: proxy.baseURL)
    defer { app.cleanUp() }
    #expect(
      await app.run(
        EndToEndTests.signIn + """

          expect ● Live
          menu Tasks
          wait Old idea
          select tasks Crash when rotating the compose screen
          wait Mark done
          back
          select tasks Offline mode for the task list
          wait Mark done
          back
          select tasks Old idea
          wait Mark done
          back
          """) == .completed(commands: 17), "\(app.transcript.joined(separator: "\n"))")

    proxy.cut()
    #expect(
      await app.run(
        """
        wait ○ Offline
        select tasks Crash when rotating the compose screen
        tap Mark done
        expect Status: Done
        expect Not sent yet
        back
        select tasks Offline mode for the task list
        tap Rename
        type title Offline mode, renamed offline
        tap Save title
        expect Not sent yet
        back
        select tasks Old idea
        tap Delete
        tap Delete task
        wait 3 changes not sent yet
        menu New task
        select project Mobile App
        type title Made in the tunnel
        tap Save
        wait Task created: Made in the tunnel
        menu Tasks
        wait 4 changes not sent yet
        expect Made in the tunnel
        """) == .completed(commands: 24), "\(app.transcript.joined(separator: "\n"))")
    #expect(
      backend.taskTitles(projectID: 1).map(\.title) == [
        "Old idea", "Offline mode for the task list", "Crash when rotating the compose screen",
      ])
    #expect(app.quit())

    // Launched again, still offline: everything is as the user left it, still marked.
    let relaunched = try AppHarness(
      backend: backend, serverURL: proxy.baseURL, dataDirectory: app.dataDirectory)
    #expect(
      await relaunched.run(
        """
        expect Welcome, Alice Kim
        menu Tasks
        wait 4 changes not sent yet
        expect Made in the tunnel
        expect Offline mode, renamed offline
        expect done · not sent yet
        expect-not Old idea
        """) == .completed(commands: 7), "\(relaunched.transcript.joined(separator: "\n"))")

    // The network is back: all four reach the server, once each, and the marks go.
    proxy.restore()
    #expect(
      await relaunched.run(
        """
        wait ● Live
        wait-gone not sent yet
        expect Made in the tunnel
        expect Offline mode, renamed offline
        expect-not Old idea
        """) == .completed(commands: 5), "\(relaunched.transcript.joined(separator: "\n"))")
    let tasks = backend.taskTitles(projectID: 1)
    #expect(tasks.filter { $0.title == "Made in the tunnel" }.count == 1)
    #expect(tasks.contains { $0.title == "Offline mode, renamed offline" })
    #expect(tasks.contains { $0.title == "Crash when rotating the compose screen" && $0.isDone })
    #expect(!tasks.contains { $0.title == "Old idea" })
    #expect(tasks.count == 3)
  }
}
