import Foundation
import Synchronization
import TrellisCore
import TrellisLoopbackServer
import TrellisNetwork

/// The demo collaboration backend: auth, the signed-in user, projects with their milestones,
/// tags, members and permissions, tasks, file uploads, and a server-sent event stream.
///
/// Its routes and in-memory data are written once, as a ``Router``, and served two ways:
/// in process (`StubTransport(responder: backend.router)`, the app's embedded default) and over
/// real HTTP (`LoopbackServer(router: backend.router)`, the `DemoServer` executable).
///
/// It is demo infrastructure: the app's layers never import it; only the App's composition
/// and the demo server do.
public final class DemoBackend: Sendable {
  /// The routes; serve them in process or over HTTP.
  public let router = Router()
  let state: Mutex<DemoState>
  let configuration: Mutex<DemoConfiguration>
  let events = Broadcast<DemoEvent>()
  let eventLog = Mutex(DemoEventLog())
  let now: @Sendable () -> Date
  let tokenObservers = Mutex<[@Sendable (String) -> Void]>([])
  /// Where the sessions are kept between launches, if anywhere.
  let sessionsFile: URL?
  /// Serialises writes of ``sessionsFile``.
  let persistenceLock = Mutex(())
  /// The version of ``sessionsFile`` this backend last read or wrote.
  let sessionsFileStamp = Mutex<DemoSessionFileStamp?>(nil)
  /// Held across a reload of ``sessionsFile``, and across a change of the sessions with its
  /// write: one at a time in this process.
  let sessionsUpdate = Mutex(())

  /// Creates a backend with the seed data.
  ///
  /// - Parameters:
  ///   - now: The clock tokens expire by; replaceable in tests.
  ///   - sessionsFile: Where to keep the sessions (their refresh tokens) between launches, so
  ///     that an app embedding the backend stays signed in when relaunched; `nil` keeps them in
  ///     memory only. Created readable by the user alone.
  public init(
    configuration: DemoConfiguration = .instant,
    now: @escaping @Sendable () -> Date = { Date() },
    sessionsFile: URL? = nil
  ) {
    self.configuration = Mutex(configuration)
    self.now = now
    self.sessionsFile = sessionsFile
    state = Mutex(DemoState(now: now()))
    if let sessionsFile {
      removeLeftoverSessionFiles(of: sessionsFile)
      restoreSessions(from: sessionsFile)
    }
    registerAuthRoutes()
    registerUserRoutes()
    registerProjectRoutes()
    registerTaskRoutes()
    registerFileRoutes()
    registerEventRoutes()
    registerControlRoutes()
  }

  /// The current configuration.
  public var currentConfiguration: DemoConfiguration {
    configuration.withLock { $0 }
  }

  /// Changes the configuration (latency, token lifetime, failure switches) at run time.
  public func configure(_ change: (inout DemoConfiguration) -> Void) {
    configuration.withLock { change(&$0) }
  }

  // MARK: Demo controls

  /// Creates a task as another user ("created elsewhere") and sends `task.created` to the
  /// project's members. Returns the task's id, or `nil` if the project does not exist or the
  /// demo holds as many tasks as it keeps.
  @discardableResult
  public func createTaskElsewhere(projectID: Int, title: String, by userID: Int = 3) -> Int? {
    try? createTask(elsewhereIn: projectID, title: title, by: userID).get()
  }

  /// The titles of the tasks of `projectID` as the server has them, with whether each is done,
  /// newest first (for tests that check what reached the server, and how many times).
  public func taskTitles(projectID: Int) -> [(title: String, isDone: Bool)] {
    state.withLock { state in
      state.tasks.filter { $0.projectID == projectID }.sorted { $0.id > $1.id }
        .map { ($0.title, $0.isDone) }
    }
  }

  /// Creates a task as another user, or says why not.
  func createTask(elsewhereIn projectID: Int, title: String, by userID: Int) -> Result<
    Int, DemoFailure
  > {
    let created = state.withLock { state -> Result<Wire.Task, DemoFailure> in
      guard state.projects.contains(where: { $0.id == projectID }) else {
        return .failure(.notFound("There is no project \(projectID)."))
      }
      do throws(DemoFailure) {
        return .success(
          try state.addTask(
            Wire.NewTask(title: title), projectID: projectID, userID: userID, at: now()))
      } catch {
        return .failure(error)
      }
    }
    if case .success(let task) = created { publish(taskCreated: task) }
    return created.map { $0.id }
  }

  /// How many access and refresh tokens the backend holds (bounded: expired ones are swept).
  public var tokenCount: Int { state.withLock { $0.tokenCount } }

  /// How many tasks the backend holds.
  public var taskCount: Int { state.withLock { $0.tasks.count } }

  /// Ends every session of `username` and sends them `session.revoked`. Returns whether the
  /// user exists.
  @discardableResult
  public func revokeSessions(of username: String) -> Bool {
    let userID = updateSessions { state -> Int? in
      guard let account = state.accounts.first(where: { $0.user.username == username }) else {
        return nil
      }
      state.revokeTokens(of: account.user.id)
      return account.user.id
    }
    guard let userID else { return false }
    publish(name: "session.revoked", json: ["reason": "revoked"], to: [userID])
    return true
  }

  /// Calls `observer` with every access and refresh token the backend issues from now on:
  /// for tests that check no secret reaches a log.
  public func observeIssuedTokens(_ observer: @escaping @Sendable (String) -> Void) {
    tokenObservers.withLock { $0.append(observer) }
  }

  /// Tells the token observers about `tokens`.
  func announce(_ tokens: Wire.Tokens) {
    let observers = tokenObservers.withLock { $0 }
    for observer in observers {
      observer(tokens.accessToken)
      observer(tokens.refreshToken)
    }
  }

  // MARK: Shared helpers

  /// The user a request is signed in as, or the `401` to answer.
  func authenticate(_ request: ServerRequest) -> Result<Int, DemoFailure> {
    guard let token = request.bearerToken else {
      return .failure(.unauthorized("Sign in first: this route needs a bearer token."))
    }
    let date = now()
    // Another copy of the app sharing the sessions file may have issued it (its write changed
    // the file's stamp).
    reloadSessionsIfChanged()
    return state.withLock { state in
      guard let access = state.accessTokens[token] else {
        return .failure(.unauthorized("The access token is not valid."))
      }
      guard access.expiresAt > date else {
        return .failure(.unauthorized("The access token has expired."))
      }
      return .success(access.userID)
    }
  }

  /// Runs `body` for the signed-in user, answering `401` when there is none and `503` when
  /// the failure switch is on. Adds the configured latency.
  func signedIn(
    _ request: ServerRequest, latency extra: Duration = .zero,
    _ body: (Int) throws(DemoFailure) -> ServerResponse
  ) -> ServerResponse {
    let settings = configuration.withLock { $0 }
    let response: ServerResponse
    if settings.failsRequests {
      response = DemoFailure.unavailable("The demo server is set to fail requests.").response
    } else {
      switch authenticate(request) {
      case .failure(let failure): response = failure.response
      case .success(let userID):
        do {
          response = try body(userID)
        } catch {
          response = error.response
        }
      }
    }
    return response.delayed(by: settings.baseLatency + extra)
  }

  /// The response `body` builds, or the failure it throws as a response.
  static func answer(_ body: () throws(DemoFailure) -> ServerResponse) -> ServerResponse {
    do {
      return try body()
    } catch {
      return error.response
    }
  }

  func latency(forProject projectID: Int) -> Duration {
    configuration.withLock { $0.projectLatency[projectID] ?? .zero }
  }

  static func decode<Value: Decodable>(_ type: Value.Type, from request: ServerRequest)
    throws(DemoFailure) -> Value
  {
    do {
      return try JSONDecoder().decode(type, from: request.body)
    } catch {
      throw .badRequest("The body is not the expected JSON: \(error)")
    }
  }
}

/// An error answer: status, code and a message a person can read.
struct DemoFailure: Error {
  var status: Int
  var body: Wire.Failure

  var response: ServerResponse { .json(body, status: status) }

  static func unauthorized(_ message: String) -> DemoFailure {
    DemoFailure(status: 401, body: Wire.Failure(code: "unauthorized", message: message))
  }
  static func forbidden(_ message: String) -> DemoFailure {
    DemoFailure(status: 403, body: Wire.Failure(code: "forbidden", message: message))
  }
  static func notFound(_ message: String) -> DemoFailure {
    DemoFailure(status: 404, body: Wire.Failure(code: "not_found", message: message))
  }
  static func badRequest(_ message: String) -> DemoFailure {
    DemoFailure(status: 400, body: Wire.Failure(code: "bad_request", message: message))
  }
  static func validation(_ message: String, fields: [String: String]) -> DemoFailure {
    DemoFailure(
      status: 422, body: Wire.Failure(code: "validation_failed", message: message, fields: fields))
  }
  static func unavailable(_ message: String, code: String = "unavailable") -> DemoFailure {
    DemoFailure(status: 503, body: Wire.Failure(code: code, message: message))
  }
}
