import Foundation
import Synchronization
import Testing
import TrellisCoreTesting
import TrellisLoopbackServer
import TrellisNetwork

@testable import TrellisDemoBackend

/// A clock the test moves by hand.
final class ManualClock: Sendable {
  private let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
  var now: Date { date.withLock { $0 } }
  func advance(by seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Calls the backend's router in process.
struct Client {
  let backend: DemoBackend

  func call(
    _ method: HTTPMethod, _ path: String, token: String? = nil, json: String? = nil,
    headers: HTTPHeaders = [:], body: Data? = nil
  ) async -> ServerResponse {
    var allHeaders = headers
    if let token { allHeaders["Authorization"] = "Bearer \(token)" }
    if json != nil { allHeaders["Content-Type"] = "application/json" }
    // `path?query`, as the server's request reader splits it.
    let parts = path.split(separator: "?", maxSplits: 1).map(String.init)
    let query = parts.count > 1 ? URLComponents(string: "?" + parts[1])?.queryItems ?? [] : []
    let request = ServerRequest(
      method: method, path: parts.first ?? path, query: query, headers: allHeaders,
      body: body ?? json.map { Data($0.utf8) } ?? Data())
    return await backend.router.handle(request)
  }

  func login(_ username: String = "alice", _ password: String? = nil) async throws -> Wire.Tokens {
    let response = await call(
      .post, "/auth/login",
      json: #"{"username":"\#(username)","password":"\#(password ?? username + "1234")"}"#)
    #expect(response.status == 200)
    return try decode(Wire.Tokens.self, response)
  }
}

func decode<Value: Decodable>(_ type: Value.Type, _ response: ServerResponse) throws -> Value {
  guard case .data(let data) = response.body else { throw CocoaError(.coderInvalidValue) }
  let decoder = JSONDecoder()
  decoder.dateDecodingStrategy = .iso8601
  return try decoder.decode(type, from: data)
}

func failure(_ response: ServerResponse) throws -> Wire.Failure {
  try decode(Wire.Failure.self, response)
}

@Suite("Demo backend: auth")
struct DemoAuthTests {
  @Test func signInReturnsTokensAndTheUser() async throws {
    let client = Client(backend: DemoBackend())
    let tokens = try await client.login()
    #expect(tokens.user.username == "alice")
    #expect(tokens.expiresIn == 300)
    #expect(tokens.accessToken.hasPrefix("at_"))
    let me = await client.call(.get, "/me", token: tokens.accessToken)
    #expect(try decode(Wire.User.self, me).displayName == "Alice Kim")
  }

  @Test func wrongCredentialsAre401WithAMessage() async throws {
    let client = Client(backend: DemoBackend())
    let response = await client.call(
      .post, "/auth/login", json: #"{"username":"alice","password":"nope"}"#)
    #expect(response.status == 401)
    #expect(
      try failure(response)
        == Wire.Failure(code: "invalid_credentials", message: "Wrong username or password."))
  }

  @Test func missingCredentialsAreAValidationError() async throws {
    let client = Client(backend: DemoBackend())
    let response = await client.call(.post, "/auth/login", json: #"{"username":""}"#)
    #expect(response.status == 422)
    #expect(try failure(response).fields == ["username": "required", "password": "required"])
    let garbage = await client.call(.post, "/auth/login", json: "not json")
    #expect(garbage.status == 400)
  }

  @Test func noTokenIs401AndAnExpiredTokenIs401() async throws {
    let clock = ManualClock()
    let client = Client(backend: DemoBackend(now: { clock.now }))
    #expect(await client.call(.get, "/me").status == 401)
    #expect(await client.call(.get, "/me", token: "at_forged").status == 401)
    let tokens = try await client.login()
    #expect(await client.call(.get, "/me", token: tokens.accessToken).status == 200)
    clock.advance(by: 301)
    let expired = await client.call(.get, "/me", token: tokens.accessToken)
    #expect(expired.status == 401)
    #expect(try failure(expired).message == "The access token has expired.")
  }

  @Test func refreshRotatesTheRefreshToken() async throws {
    let clock = ManualClock()
    let client = Client(backend: DemoBackend(now: { clock.now }))
    let tokens = try await client.login()
    let refreshed = await client.call(
      .post, "/auth/refresh", json: #"{"refreshToken":"\#(tokens.refreshToken)"}"#)
    let fresh = try decode(Wire.Tokens.self, refreshed)
    #expect(fresh.accessToken != tokens.accessToken)
    #expect(fresh.refreshToken != tokens.refreshToken)
    #expect(await client.call(.get, "/me", token: fresh.accessToken).status == 200)
    // Once its successor has been used, the replaced token is refused.
    _ = try decode(
      Wire.Tokens.self,
      await client.call(
        .post, "/auth/refresh", json: #"{"refreshToken":"\#(fresh.refreshToken)"}"#))
    let reused = await client.call(
      .post, "/auth/refresh", json: #"{"refreshToken":"\#(tokens.refreshToken)"}"#)
    #expect(reused.status == 401)
    #expect(try failure(reused).code == "invalid_refresh_token")
  }

  /// A refresh whose answer was lost (the connection dropped after the server rotated the
  /// token) is retried with the replaced token, however long the client stayed offline since:
  /// it continues the same session, and the successor it never saw is dropped. A signed-out
  /// session's replaced token does not work.
  @Test func aReplacedRefreshTokenWorksUntilItsSuccessorIsUsed() async throws {
    let clock = ManualClock()
    let client = Client(backend: DemoBackend(now: { clock.now }))
    let tokens = try await client.login()
    let body = #"{"refreshToken":"\#(tokens.refreshToken)"}"#
    let lost = try decode(Wire.Tokens.self, await client.call(.post, "/auth/refresh", json: body))
    clock.advance(by: 3600)  // an hour in a tunnel
    let retried = try decode(
      Wire.Tokens.self, await client.call(.post, "/auth/refresh", json: body))
    #expect(await client.call(.get, "/me", token: retried.accessToken).status == 200)
    #expect(
      await client.call(
        .post, "/auth/refresh", json: #"{"refreshToken":"\#(lost.refreshToken)"}"#
      ).status == 401)
    _ = await client.call(
      .post, "/auth/logout", json: #"{"refreshToken":"\#(retried.refreshToken)"}"#)
    #expect(await client.call(.post, "/auth/refresh", json: body).status == 401)
  }

  @Test func aStrictBackendRefusesAReplacedRefreshTokenAtOnce() async throws {
    var configuration = DemoConfiguration.instant
    configuration.acceptsReplacedRefreshTokens = false
    let client = Client(backend: DemoBackend(configuration: configuration))
    let tokens = try await client.login()
    let body = #"{"refreshToken":"\#(tokens.refreshToken)"}"#
    #expect(await client.call(.post, "/auth/refresh", json: body).status == 200)
    #expect(await client.call(.post, "/auth/refresh", json: body).status == 401)
  }

  @Test func logoutByRefreshTokenEndsTheSessionEvenAfterTheAccessTokenExpired() async throws {
    let clock = ManualClock()
    let client = Client(backend: DemoBackend(now: { clock.now }))
    let tokens = try await client.login()
    clock.advance(by: 301)  // the access token has expired; the refresh token has not
    let logout = await client.call(
      .post, "/auth/logout", json: #"{"refreshToken":"\#(tokens.refreshToken)"}"#)
    #expect(logout.status == 204)
    let refresh = await client.call(
      .post, "/auth/refresh", json: #"{"refreshToken":"\#(tokens.refreshToken)"}"#)
    #expect(refresh.status == 401)
  }

  @Test func logoutEndsTheSession() async throws {
    let client = Client(backend: DemoBackend())
    let tokens = try await client.login()
    #expect(await client.call(.post, "/auth/logout", token: tokens.accessToken).status == 204)
    #expect(await client.call(.get, "/me", token: tokens.accessToken).status == 401)
    let refresh = await client.call(
      .post, "/auth/refresh", json: #"{"refreshToken":"\#(tokens.refreshToken)"}"#)
    #expect(refresh.status == 401)
  }

  @Test func theTokenLifetimeIsConfigurable() async throws {
    let backend = DemoBackend(configuration: .demo)
    #expect(try await Client(backend: backend).login().expiresIn == 30)
  }
}

@Suite("Demo backend: user, projects and tasks")
struct DemoDataTests {
  @Test func theProfileCanBeChangedAndIsValidated() async throws {
    let client = Client(backend: DemoBackend())
    let token = try await client.login().accessToken
    let changed = await client.call(
      .patch, "/me", token: token, json: #"{"displayName":"Alice K.","bio":"Hello"}"#)
    #expect(try decode(Wire.User.self, changed).displayName == "Alice K.")
    let blank = await client.call(.patch, "/me", token: token, json: #"{"displayName":"  "}"#)
    #expect(blank.status == 422)
    #expect(
      try failure(blank)
        == Wire.Failure(
          code: "validation_failed", message: "Display name is required.",
          fields: ["displayName": "required"]))
  }

  @Test func projectsListOnlyTheUsersProjects() async throws {
    let client = Client(backend: DemoBackend())
    let token = try await client.login().accessToken
    let projects = try decode(
      [Wire.Project].self, await client.call(.get, "/projects", token: token))
    #expect(projects.map(\.id) == [1, 2, 3, 5])
  }

  @Test(arguments: ["milestones", "tags", "members", "permissions", "tasks"])
  func projectResourcesAreForMembersOnly(resource: String) async throws {
    let client = Client(backend: DemoBackend())
    let token = try await client.login().accessToken
    #expect(await client.call(.get, "/projects/1/\(resource)", token: token).status == 200)
    let forbidden = await client.call(.get, "/projects/4/\(resource)", token: token)
    #expect(forbidden.status == 403)
    #expect(try failure(forbidden).message == "You are not a member of Secret Lab.")
    #expect(await client.call(.get, "/projects/99/\(resource)", token: token).status == 404)
    #expect(await client.call(.get, "/projects/1/\(resource)").status == 401)
  }

  @Test func projectsDifferInMilestonesTagsMembersAndPermissions() async throws {
    let client = Client(backend: DemoBackend())
    let token = try await client.login().accessToken
    let one = try decode(
      [Wire.Milestone].self, await client.call(.get, "/projects/1/milestones", token: token))
    let two = try decode(
      [Wire.Milestone].self, await client.call(.get, "/projects/2/milestones", token: token))
    #expect(one.map(\.name) == ["v1.0 Beta", "v1.0 Launch"])
    #expect(two.map(\.name) == ["Q1 Hardening", "API v2"])
    let members = try decode(
      [Wire.Member].self, await client.call(.get, "/projects/1/members", token: token))
    #expect(members.map(\.displayName) == ["Alice Kim", "Bob Lee", "Carol Park"])
    let admin = try decode(
      Wire.Permissions.self, await client.call(.get, "/projects/1/permissions", token: token))
    let viewer = try decode(
      Wire.Permissions.self, await client.call(.get, "/projects/3/permissions", token: token))
    #expect(admin.canCreateTasks && admin.role == "admin")
    #expect(!viewer.canCreateTasks && viewer.role == "viewer")
  }

  @Test func creatingATaskValidatesAndLists() async throws {
    let client = Client(backend: DemoBackend())
    let token = try await client.login().accessToken
    let created = await client.call(
      .post, "/projects/1/tasks", token: token,
      json: #"{"title":"Ship it","milestoneID":11,"tagIDs":[102],"assigneeIDs":[2]}"#)
    #expect(created.status == 201)
    let task = try decode(Wire.Task.self, created)
    #expect(task.title == "Ship it" && task.createdBy == 1 && task.milestoneID == 11)
    let list = try decode(
      Wire.TaskPage.self, await client.call(.get, "/projects/1/tasks", token: token))
    #expect(list.tasks.first?.id == task.id && list.nextCursor == nil)

    let untitled = await client.call(
      .post, "/projects/1/tasks", token: token, json: #"{"title":" "}"#)
    #expect(untitled.status == 422)
    #expect(try failure(untitled).message == "Title is required.")
    let wrongRefs = await client.call(
      .post, "/projects/1/tasks", token: token,
      json: #"{"title":"x","milestoneID":21,"tagIDs":[201],"assigneeIDs":[99],"attachmentIDs":[5]}"#
    )
    #expect(wrongRefs.status == 422)
    #expect(
      try failure(wrongRefs).fields == [
        "milestoneID": "not a milestone of this project", "tagIDs": "not tags of this project",
        "assigneeIDs": "not members of this project", "attachmentIDs": "not files you uploaded",
      ])
    let asViewer = await client.call(
      .post, "/projects/3/tasks", token: token, json: #"{"title":"x"}"#)
    #expect(asViewer.status == 403)
    let otherUsersProject = await client.call(
      .post, "/projects/4/tasks", token: token, json: #"{"title":"x"}"#)
    #expect(otherUsersProject.status == 403)
  }

  /// One task by id, changed and deleted: validated like a new task's title, for members and
  /// admins only (a viewer is refused with the reason), and invisible outside one's projects.
  @Test func aTaskIsReadChangedAndDeletedByItsEditorsOnly() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    let token = try await client.login().accessToken
    let taskID = try #require(backend.createTaskElsewhere(projectID: 1, title: "Draft"))
    let read = try decode(Wire.Task.self, await client.call(.get, "/tasks/\(taskID)", token: token))
    #expect(read.title == "Draft")
    let renamed = await client.call(
      .patch, "/tasks/\(taskID)", token: token, json: #"{"title":"  Final  "}"#)
    #expect(try decode(Wire.Task.self, renamed).title == "Final")
    let done = await client.call(
      .patch, "/tasks/\(taskID)", token: token, json: #"{"isDone":true}"#)
    #expect(try decode(Wire.Task.self, done).isDone)
    #expect(try decode(Wire.Task.self, done).title == "Final")
    let blank = await client.call(.patch, "/tasks/\(taskID)", token: token, json: #"{"title":""}"#)
    #expect(blank.status == 422)
    #expect(try failure(blank).message == "Title is required.")
    let long = await client.call(
      .patch, "/tasks/\(taskID)", token: token,
      json: "{\"title\":\"\(String(repeating: "x", count: 121))\"}")
    #expect(long.status == 422)
    #expect(try failure(long).fields?["title"] == "at most 120 characters")

    // Task 4 is in Design System, where alice is a viewer; project 4's tasks are not hers.
    let viewer = await client.call(.patch, "/tasks/4", token: token, json: #"{"title":"x"}"#)
    #expect(viewer.status == 403)
    #expect(try failure(viewer).message == "Viewers cannot change tasks in Design System.")
    #expect(await client.call(.delete, "/tasks/4", token: token).status == 403)
    let undone = await client.call(.patch, "/tasks/4", token: token, json: #"{"isDone":true}"#)
    #expect(undone.status == 403)
    let elsewhere = try #require(backend.createTaskElsewhere(projectID: 4, title: "Not hers"))
    #expect(await client.call(.get, "/tasks/\(elsewhere)", token: token).status == 404)

    #expect(await client.call(.delete, "/tasks/\(taskID)", token: token).status == 204)
    let gone = await client.call(.get, "/tasks/\(taskID)", token: token)
    #expect(gone.status == 404)
    #expect(try failure(gone).message == "There is no task \(taskID) in your projects.")
  }

  /// The Support project's 250 tickets come in pages: each page continues where the previous
  /// one ended (none twice, none skipped), a search narrows every page, and a bad parameter
  /// is a 400-class refusal naming it.
  @Test func tasksComeInPagesAndASearchNarrowsThem() async throws {
    let client = Client(backend: DemoBackend())
    let token = try await client.login().accessToken
    var seen: [Int] = []
    var cursor: String?
    var pages = 0
    repeat {
      let path = "/projects/5/tasks?limit=60" + (cursor.map { "&after=\($0)" } ?? "")
      let page = try decode(Wire.TaskPage.self, await client.call(.get, path, token: token))
      #expect(page.tasks.count == 60 || page.nextCursor == nil)
      seen += page.tasks.map(\.id)
      cursor = page.nextCursor
      pages += 1
    } while cursor != nil && pages < 10
    #expect(pages == 5)
    #expect(seen == seen.sorted(by: >) && Set(seen).count == DemoSeed.ticketCount)
    let first = try decode(
      Wire.TaskPage.self, await client.call(.get, "/projects/5/tasks", token: token))
    #expect(first.tasks.count == 20)

    let search = try decode(
      Wire.TaskPage.self,
      await client.call(.get, "/projects/5/tasks?query=%20EXPORT%20&limit=20", token: token))
    #expect(search.tasks.count == 20 && search.tasks.allSatisfy { $0.title.hasPrefix("Export") })
    let rest = try decode(
      Wire.TaskPage.self,
      await client.call(
        .get, "/projects/5/tasks?query=export&after=\(search.nextCursor ?? "")", token: token))
    #expect(rest.tasks.count == 5 && rest.nextCursor == nil)
    let twoWords = try decode(
      Wire.TaskPage.self,
      await client.call(.get, "/projects/5/tasks?query=ipad%20sync", token: token))
    #expect(twoWords.tasks.map(\.title) == ["Sync crashes on iPad"])
    let none = try decode(
      Wire.TaskPage.self, await client.call(.get, "/projects/5/tasks?query=zebra", token: token))
    #expect(none.tasks.isEmpty && none.nextCursor == nil)

    for bad in ["limit=0", "limit=101", "limit=ten", "after=-3", "after=x"] {
      let refused = await client.call(.get, "/projects/5/tasks?\(bad)", token: token)
      #expect(refused.status == 422, "\(bad)")
      let name = String(bad.prefix { $0 != "=" })
      #expect(try failure(refused).fields?[name] != nil, "\(bad)")
    }
    let long = await client.call(
      .get, "/projects/5/tasks?query=\(String(repeating: "a", count: 101))", token: token)
    #expect(long.status == 422)
  }

  @Test func unknownRoutesAndMethods() async throws {
    let client = Client(backend: DemoBackend())
    #expect(await client.call(.get, "/nowhere").status == 404)
    #expect(await client.call(.delete, "/me").status == 405)
  }
}

@Suite("Demo backend: files, failures, latency and events", .timeLimit(.minutes(1)))
struct DemoBehaviourTests {
  private func multipart(_ name: String, _ bytes: Data) -> (HTTPHeaders, Data) {
    let boundary = "b0undary"
    var body = Data(
      "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\nContent-Type: image/png\r\n\r\n"
        .utf8)
    body.append(bytes)
    body.append(Data("\r\n--\(boundary)--\r\n".utf8))
    return (["Content-Type": "multipart/form-data; boundary=\(boundary)"], body)
  }

  @Test func uploadsAreStoredAndCanBeAttached() async throws {
    let client = Client(backend: DemoBackend())
    let token = try await client.login().accessToken
    let (headers, body) = multipart("shot.png", Data(repeating: 7, count: 1000))
    let uploaded = await client.call(.post, "/files", token: token, headers: headers, body: body)
    #expect(uploaded.status == 201)
    let file = try decode(Wire.FileInfo.self, uploaded)
    #expect(file.name == "shot.png" && file.size == 1000 && file.contentType == "image/png")
    let task = try decode(
      Wire.Task.self,
      await client.call(
        .post, "/projects/1/tasks", token: token,
        json: #"{"title":"With file","attachmentIDs":[\#(file.id)]}"#))
    #expect(task.attachments == [file])
    let empty = await client.call(.post, "/files", token: token, json: "{}")
    #expect(empty.status == 422)
  }

  @Test func theFailureSwitchesFailUploadsAndRequests() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    let token = try await client.login().accessToken
    backend.configure { $0.failsUploads = true }
    let (headers, body) = multipart("a.png", Data([1]))
    let upload = await client.call(.post, "/files", token: token, headers: headers, body: body)
    #expect(upload.status == 503)
    #expect(try failure(upload).code == "upload_failed")
    backend.configure { $0.failsRequests = true }
    #expect(await client.call(.get, "/me", token: token).status == 503)
    #expect(try await client.login().user.id == 1)  // signing in still works
  }

  @Test func latencyIsAddedPerProject() async throws {
    var configuration = DemoConfiguration.instant
    configuration.baseLatency = .milliseconds(5)
    configuration.projectLatency = [1: .seconds(2)]
    let client = Client(backend: DemoBackend(configuration: configuration))
    let token = try await client.login().accessToken
    #expect(await client.call(.get, "/projects/1/tags", token: token).delay == .milliseconds(2005))
    #expect(await client.call(.get, "/projects/2/tags", token: token).delay == .milliseconds(5))
  }

  @Test func eventsReachMembersAndReplayAfterTheLastEventID() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    let token = try await client.login().accessToken
    let responder: any HTTPResponder = backend.router
    let request = HTTPRequest(
      method: .get, url: URL(string: "http://demo/events")!,
      headers: ["Authorization": "Bearer \(token)"])
    let stream = try await responder.respondStreaming(to: request)
    #expect(stream.status == 200)
    var parser = ServerSentEventParser()
    var chunks = stream.body.makeAsyncIterator()
    try #require(await eventually { backend.events.subscriberCount > 0 })
    backend.createTaskElsewhere(projectID: 4, title: "Not for alice")  // alice is not a member
    backend.createTaskElsewhere(projectID: 1, title: "Made by Carol")
    var events: [ServerSentEvent] = []
    while events.isEmpty, let chunk = try await chunks.next() { events += try parser.feed(chunk) }
    #expect(events.map(\.event) == ["task.created"])
    #expect(events.first?.data.contains("Made by Carol") == true)

    // Reconnecting with Last-Event-ID 0 replays what alice may see, and only that.
    var replayRequest = request
    replayRequest.headers["Last-Event-ID"] = "0"
    let replay = try await responder.respondStreaming(to: replayRequest)
    var replayParser = ServerSentEventParser()
    var replayed: [ServerSentEvent] = []
    var replayChunks = replay.body.makeAsyncIterator()
    while replayed.isEmpty, let chunk = try await replayChunks.next() {
      replayed += try replayParser.feed(chunk)
    }
    #expect(replayed.map(\.id) == events.map(\.id))
  }

  /// An idle stream is not a silent one: a comment line at the configured interval proves the
  /// connection alive, and the default is no longer than the app's idle timeout counts on.
  @Test func anIdleStreamGetsAHeartbeatAtTheConfiguredInterval() async throws {
    #expect(DemoConfiguration.instant.eventHeartbeatInterval == .seconds(5))
    #expect(DemoConfiguration.demo.eventHeartbeatInterval == .seconds(5))
    var configuration = DemoConfiguration.instant
    configuration.eventHeartbeatInterval = .milliseconds(50)
    let backend = DemoBackend(configuration: configuration)
    let token = try await Client(backend: backend).login().accessToken
    let responder: any HTTPResponder = backend.router
    let stream = try await responder.respondStreaming(
      to: HTTPRequest(
        method: .get, url: URL(string: "http://demo/events")!,
        headers: ["Authorization": "Bearer \(token)"]))
    var received = ""
    var chunks = stream.body.makeAsyncIterator()
    while received.components(separatedBy: ":\n").count <= 3, let chunk = try await chunks.next() {
      received += String(decoding: chunk, as: UTF8.self)
    }
    #expect(received.components(separatedBy: "\n").allSatisfy { $0 == ":" || $0.isEmpty })
    // A heartbeat is not an event: a client's parser yields nothing for it.
    var parser = ServerSentEventParser()
    #expect(try parser.feed(Data(received.utf8)).isEmpty)
  }

  @Test func revokingASessionInvalidatesItsTokensAndAnnouncesIt() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    let tokens = try await client.login()
    let responder: any HTTPResponder = backend.router
    let stream = try await responder.respondStreaming(
      to: HTTPRequest(
        method: .get, url: URL(string: "http://demo/events")!,
        headers: ["Authorization": "Bearer \(tokens.accessToken)"]))
    try #require(await eventually { backend.events.subscriberCount > 0 })
    #expect(backend.revokeSessions(of: "alice"))
    var parser = ServerSentEventParser()
    var events: [ServerSentEvent] = []
    // The stream ends after the revocation.
    for try await chunk in stream.body { events += try parser.feed(chunk) }
    #expect(events.map(\.event) == ["session.revoked"])
    #expect(await client.call(.get, "/me", token: tokens.accessToken).status == 401)
    #expect(!backend.revokeSessions(of: "nobody"))

    // Signing in again starts a fresh stream: the old revocation is not replayed.
    let again = try await client.login()
    let fresh = try await responder.respondStreaming(
      to: HTTPRequest(
        method: .get, url: URL(string: "http://demo/events")!,
        headers: ["Authorization": "Bearer \(again.accessToken)"]))
    try #require(await eventually { backend.events.subscriberCount > 0 })
    backend.createTaskElsewhere(projectID: 1, title: "After sign-in")
    var freshParser = ServerSentEventParser()
    var freshEvents: [ServerSentEvent] = []
    var freshChunks = fresh.body.makeAsyncIterator()
    while freshEvents.isEmpty, let chunk = try await freshChunks.next() {
      freshEvents += try freshParser.feed(chunk)
    }
    #expect(freshEvents.map(\.event) == ["task.created"])
  }

  @Test func demoControlRoutes() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    let token = try await client.login().accessToken
    let created = await client.call(
      .post, "/demo/tasks", json: #"{"projectID":2,"title":"From outside"}"#)
    #expect(created.status == 201)
    let tasks = try decode(
      Wire.TaskPage.self, await client.call(.get, "/projects/2/tasks", token: token))
    #expect(tasks.tasks.first?.title == "From outside")
    let settings = await client.call(
      .post, "/demo/settings", json: #"{"failsUploads":true,"accessTokenSeconds":5}"#)
    #expect(settings.status == 200)
    #expect(backend.currentConfiguration.failsUploads)
    #expect(backend.currentConfiguration.accessTokenLifetime == .seconds(5))
    #expect(await client.call(.post, "/demo/revoke", json: #"{"username":"alice"}"#).status == 204)
    #expect(await client.call(.get, "/me", token: token).status == 401)
    #expect(await client.call(.post, "/demo/tasks", json: "nope").status == 400)
  }
}

@Suite("Demo backend: bounded state")
struct DemoBoundsTests {
  @Test func signingInAgainAndAgainKeepsABoundedNumberOfSessions() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    var first: Wire.Tokens?
    for _ in 0..<100 {
      let tokens = try await client.login()
      if first == nil { first = tokens }
    }
    // Two tokens per session, at most 16 sessions per user.
    #expect(backend.tokenCount <= 2 * DemoState.maximumSessionsPerUser)
    // The oldest session was ended to make room.
    let oldest = try #require(first)
    #expect(await client.call(.get, "/me", token: oldest.accessToken).status == 401)
  }

  @Test func expiredTokensAreForgotten() async throws {
    let clock = ManualClock()
    let backend = DemoBackend(now: { clock.now })
    let client = Client(backend: backend)
    _ = try await client.login("alice")
    _ = try await client.login("bob")
    #expect(backend.tokenCount == 4)
    clock.advance(by: 8 * 24 * 3600)  // past both tokens' lifetimes
    _ = try await client.login("carol")
    #expect(backend.tokenCount == 2)
  }

  @Test func tasksCreatedFromOutsideStopAtTheLimitWithAClearAnswer() async throws {
    let backend = DemoBackend()
    let client = Client(backend: backend)
    let before = backend.taskCount
    for index in before..<DemoState.maximumTasks {
      #expect(backend.createTaskElsewhere(projectID: 1, title: "t\(index)") != nil)
    }
    let refused = await client.call(
      .post, "/demo/tasks", json: #"{"projectID":1,"title":"one too many"}"#)
    #expect(refused.status == 507)
    #expect(try failure(refused).code == "storage_full")
    #expect(backend.taskCount == DemoState.maximumTasks)
    let blank = await client.call(.post, "/demo/tasks", json: #"{"projectID":1,"title":" "}"#)
    #expect(blank.status == 422)
  }
}
