import Foundation
import Testing
import TrellisDemoBackend
import TrellisNetwork
import TrellisRepository

@Suite("Repositories against the demo backend, in process and over HTTP")
struct RepositoryTests {
  @Test(arguments: BackendMode.allCases)
  func authRepoSignsInRefreshesAndSignsOut(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    let repo = AuthRepoImpl(requester: harness.requester())
    let tokens = try await repo.login(username: "alice", password: "alice1234")
    #expect(tokens.user.displayName == "Alice Kim")
    let refreshed = try await repo.refresh(refreshToken: tokens.refreshToken)
    #expect(refreshed.accessToken != tokens.accessToken)
    try await repo.logout(refreshToken: refreshed.refreshToken)
    await #expect(throws: RepositoryError.unauthorized("The session has ended. Sign in again.")) {
      try await repo.refresh(refreshToken: refreshed.refreshToken)
    }
  }

  @Test(arguments: BackendMode.allCases)
  func aServerErrorBodyBecomesAReadableMessage(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    let repo = AuthRepoImpl(requester: harness.requester())
    await #expect(throws: RepositoryError.unauthorized("Wrong username or password.")) {
      try await repo.login(username: "alice", password: "wrong")
    }
    await #expect(
      throws: RepositoryError.validation(
        "Enter a username and a password.",
        fields: ["username": "required", "password": "required"])
    ) {
      try await repo.login(username: "", password: "")
    }
  }

  @Test(arguments: BackendMode.allCases)
  func decodesUsersProjectsAndTasksWithDates(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    try await harness.signIn()
    let user = try await UserRepoImpl(requester: harness.requester()).currentUser(
      forceRefresh: false)
    #expect(user.username == "alice")
    let projects = ProjectRepoImpl(requester: harness.requester())
    #expect(
      try await projects.projects(forceRefresh: false).map(\.key) == ["MOB", "API", "DS", "SUP"])
    #expect(
      try await projects.permissions(projectID: 3, forceRefresh: false).canCreateTasks == false)
    let tasks = try await TaskRepoImpl(requester: harness.requester()).tasks(
      projectID: 1, forceRefresh: false)
    #expect(tasks.tasks.count == 2 && tasks.nextCursor == nil)
    #expect(tasks.tasks.allSatisfy { $0.createdAt.timeIntervalSince1970 > 1_000_000_000 })
  }

  /// The Support project's 250 tickets, a page at a time: each page continues the last, the
  /// first unsearched page alone is cached, and a search is sent as the server reads it.
  @Test(arguments: BackendMode.allCases)
  func pagesContinueAndSearchesAreNeverCached(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    try await harness.signIn()
    let tasks = TaskRepoImpl(requester: harness.requester(), pageSize: 100)
    var page = try await tasks.tasks(projectID: 5, forceRefresh: false)
    var ids = page.tasks.map(\.id)
    while let cursor = page.nextCursor, ids.count < 1000 {
      page = try await tasks.tasks(projectID: 5, after: cursor)
      ids += page.tasks.map(\.id)
    }
    #expect(ids.count == 250 && Set(ids).count == 250 && ids == ids.sorted(by: >))
    #expect(page.tasks.contains { $0.isDone } && page.tasks.contains { !$0.isDone })
    _ = try await tasks.tasks(projectID: 5, forceRefresh: false)  // cached: no request
    let search = try await tasks.tasks(projectID: 5, matching: "  crashes on ipad ")
    #expect(search.tasks.count == 10 && search.tasks.allSatisfy { $0.title.contains("iPad") })
    _ = try await tasks.tasks(projectID: 5, matching: "crashes on ipad")
    #expect(harness.requests.filter { $0 == "GET /projects/5/tasks" }.count == 5)
  }

  @Test(arguments: BackendMode.allCases)
  func forbiddenAndNotFoundCarryTheServersMessage(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    try await harness.signIn()
    let projects = ProjectRepoImpl(requester: harness.requester())
    await #expect(throws: RepositoryError.forbidden("You are not a member of Secret Lab.")) {
      try await projects.milestones(projectID: 4, forceRefresh: false)
    }
    await #expect(throws: RepositoryError.notFound("There is no project 99.")) {
      try await projects.tags(projectID: 99, forceRefresh: false)
    }
  }

  @Test(arguments: BackendMode.allCases)
  func aValidationErrorKeepsItsFields(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    try await harness.signIn()
    let tasks = TaskRepoImpl(requester: harness.requester())
    await #expect(
      throws: RepositoryError.validation("Title is required.", fields: ["title": "required"])
    ) {
      try await tasks.createTask(projectID: 1, NewTaskModel(title: ""))
    }
  }

  @Test(arguments: BackendMode.allCases)
  func cachedListsAreServedWithoutARequestUntilForced(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    try await harness.signIn()
    let projects = ProjectRepoImpl(requester: harness.requester())
    _ = try await projects.milestones(projectID: 1, forceRefresh: false)
    _ = try await projects.milestones(projectID: 1, forceRefresh: false)
    _ = try await projects.milestones(projectID: 2, forceRefresh: false)
    #expect(
      harness.requests.filter { $0.hasSuffix("/milestones") } == [
        "GET /projects/1/milestones", "GET /projects/2/milestones",
      ])
    _ = try await projects.milestones(projectID: 1, forceRefresh: true)
    #expect(harness.requests.filter { $0 == "GET /projects/1/milestones" }.count == 2)
  }

  @Test(arguments: BackendMode.allCases)
  func creatingATaskInvalidatesItsProjectsList(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    try await harness.signIn()
    let tasks = TaskRepoImpl(requester: harness.requester())
    let before = try await tasks.tasks(projectID: 1, forceRefresh: false)
    _ = try await tasks.tasks(projectID: 2, forceRefresh: false)
    let created = try await tasks.createTask(projectID: 1, NewTaskModel(title: "New one"))
    let after = try await tasks.tasks(projectID: 1, forceRefresh: false)
    #expect(after.tasks.count == before.tasks.count + 1)
    #expect(after.tasks.first == created)
    _ = try await tasks.tasks(projectID: 2, forceRefresh: false)  // untouched: still cached
    #expect(
      harness.requests.filter { $0.hasSuffix("/tasks") } == [
        "GET /projects/1/tasks", "GET /projects/2/tasks", "POST /projects/1/tasks",
        "GET /projects/1/tasks",
      ])
  }

  /// One task by id, changed and deleted through `/tasks/:id`; each change invalidates its
  /// project's cached list; a viewer's change is refused with the server's reason.
  @Test(arguments: BackendMode.allCases)
  func aTaskIsReadChangedAndDeletedByItsID(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    try await harness.signIn()
    let tasks = TaskRepoImpl(requester: harness.requester())
    let created = try await tasks.createTask(projectID: 1, NewTaskModel(title: "Draft"))
    #expect(try await tasks.task(id: created.id) == created)
    _ = try await tasks.tasks(projectID: 1, forceRefresh: false)
    let renamed = try await tasks.updateTask(id: created.id, TaskChangeModel(title: "Final"))
    #expect(renamed.title == "Final" && renamed.id == created.id)
    #expect(
      try await tasks.tasks(projectID: 1, forceRefresh: false).tasks.first?.title == "Final")
    let done = try await tasks.updateTask(id: created.id, TaskChangeModel(isDone: true))
    #expect(done.isDone && done.title == "Final")
    await #expect(
      throws: RepositoryError.forbidden("Viewers cannot change tasks in Design System.")
    ) {
      try await tasks.updateTask(id: 4, TaskChangeModel(title: "x"))
    }
    try await tasks.deleteTask(id: created.id, projectID: 1)
    // Deleting it again (a retried DELETE whose answer was lost) is no error: it is gone.
    try await tasks.deleteTask(id: created.id, projectID: 1)
    let left = try await tasks.tasks(projectID: 1, forceRefresh: false).tasks.map(\.id)
    #expect(!left.contains(created.id))
    await #expect(
      throws: RepositoryError.notFound("There is no task \(created.id) in your projects.")
    ) {
      try await tasks.task(id: created.id)
    }
    let task: String = "/tasks/\(created.id)"
    let expected: [String] = [
      "POST /projects/1/tasks", "GET " + task, "GET /projects/1/tasks", "PATCH " + task,
      "GET /projects/1/tasks", "PATCH " + task, "PATCH /tasks/4", "DELETE " + task,
      "DELETE " + task, "GET /projects/1/tasks", "GET " + task,
    ]
    #expect(harness.requests.filter { $0.contains("/tasks") } == expected)
  }

  @Test(arguments: BackendMode.allCases)
  func updatingTheProfileReplacesTheCachedUser(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    try await harness.signIn()
    let users = UserRepoImpl(requester: harness.requester())
    _ = try await users.currentUser(forceRefresh: false)
    let updated = try await users.updateProfile(ProfileChangeModel(displayName: "Alice K."))
    #expect(try await users.currentUser(forceRefresh: false) == updated)
    #expect(harness.requests.filter { $0.hasSuffix("/me") } == ["GET /me", "PATCH /me"])
    users.clear()
    _ = try await users.currentUser(forceRefresh: false)
    #expect(harness.requests.filter { $0 == "GET /me" }.count == 2)
  }

  @Test(arguments: BackendMode.allCases)
  func uploadsAFile(mode: BackendMode) async throws {
    let harness = try Harness(mode)
    try await harness.signIn()
    let file = try await FileRepoImpl(requester: harness.requester()).upload(
      fileName: "notes.txt", contentType: "text/plain", data: Data("hello".utf8), progress: nil)
    #expect(file.name == "notes.txt" && file.size == 5 && file.contentType == "text/plain")
    harness.backend.configure { $0.failsUploads = true }
    await #expect(
      throws: RepositoryError.server(status: 503, "The upload failed on the server. Try again.")
    ) {
      try await FileRepoImpl(requester: harness.requester()).upload(
        fileName: "b.txt", contentType: "text/plain", data: Data("x".utf8), progress: nil)
    }
  }

  @Test func anUnreachableServerIsOffline() async throws {
    let requester = HTTPRequester<UserDataAPI>(
      baseURL: URL(string: "http://127.0.0.1:9")!, transport: URLSessionTransport())
    await #expect(
      throws: RepositoryError.offline("The server cannot be reached. Check the connection.")
    ) {
      try await UserRepoImpl(requester: requester).currentUser(forceRefresh: false)
    }
  }

  @Test func aMalformedResponseIsAnInvalidResponse() async throws {
    struct Garbage: HTTPResponder {
      func respond(to request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        HTTPResponse(status: 200, body: Data(#"{"id":"one"}"#.utf8), request: request)
      }
    }
    let requester = HTTPRequester<UserDataAPI>(
      baseURL: URL(string: "http://demo.invalid")!, transport: StubTransport(responder: Garbage()))
    do {
      _ = try await UserRepoImpl(requester: requester).currentUser(forceRefresh: false)
      Issue.record("expected a failure")
    } catch {
      guard case .invalidResponse(let message) = error else {
        Issue.record("expected invalidResponse, got \(error)")
        return
      }
      #expect(message.contains("UserModel at 'id'"))
    }
  }
}
