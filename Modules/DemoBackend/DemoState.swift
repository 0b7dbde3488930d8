import Foundation
import TrellisCore

/// The backend's in-memory data, guarded by the backend's lock.
///
/// Everything a client can make it hold is bounded, so a long-running `DemoServer` keeps a
/// flat memory profile whatever clients do: expired tokens are swept whenever tokens are
/// issued, each user keeps at most ``maximumSessionsPerUser`` sessions (signing in again ends
/// the oldest), and tasks and files stop at ``maximumTasks`` and ``maximumFiles``.
struct DemoState {
  /// The most sessions one user keeps; a sign-in beyond ends the oldest.
  static let maximumSessionsPerUser = 16
  /// How long a refresh token lives.
  static let refreshTokenLifetime: TimeInterval = 7 * 24 * 3600
  /// The most tasks the demo holds.
  static let maximumTasks = 5000
  /// The most uploaded files the demo holds.
  static let maximumFiles = 2000

  struct AccessGrant {
    var userID: Int
    var sessionID: Int
    var expiresAt: Date
  }

  struct RefreshGrant {
    var userID: Int
    var sessionID: Int
    var expiresAt: Date
  }

  /// A refresh token that was exchanged (rotated), kept until its successor is first used.
  struct RetiredGrant {
    var userID: Int
    var sessionID: Int
    /// The refresh token the exchange issued in its place.
    var successor: String
  }

  var accounts = DemoSeed.accounts
  var projects = DemoSeed.projects
  var roles = DemoSeed.roles
  var milestones = DemoSeed.milestones
  var tags = DemoSeed.tags
  var tasks: [Wire.Task]
  var files: [Int: (info: Wire.FileInfo, ownerID: Int)] = [:]
  var accessTokens: [String: AccessGrant] = [:]
  var refreshTokens: [String: RefreshGrant] = [:]
  /// Refresh tokens exchanged whose successor has not been used yet: still accepted, for a
  /// client whose answer to the exchange was lost (it never saw the successor), however long
  /// it stayed offline since.
  var retiredRefreshTokens: [String: RetiredGrant] = [:]
  /// Above every seeded task's id, so a new task is the newest by id too.
  var nextTaskID = DemoSeed.firstTicketID + DemoSeed.ticketCount
  var nextFileID = 1
  var nextSessionID = 1
  /// The writes made with an `Idempotency-Key`, and their answers.
  var idempotency = IdempotencyRecords()

  init(now: Date) {
    tasks = DemoSeed.tasks(createdAt: now)
  }

  func user(_ id: Int) -> Wire.User? {
    accounts.first { $0.user.id == id }?.user
  }

  func role(of userID: Int, in projectID: Int) -> String? {
    roles[projectID]?[userID]
  }

  /// The task if `userID` may see it (a member of its project); `404` otherwise, so a task of
  /// another project does not even say it exists.
  func task(_ taskID: Int, visibleTo userID: Int) throws(DemoFailure) -> Wire.Task {
    guard let task = tasks.first(where: { $0.id == taskID }),
      role(of: userID, in: task.projectID) != nil
    else {
      throw .notFound("There is no task \(taskID) in your projects.")
    }
    return task
  }

  /// The project if `userID` may see it: `404` when it does not exist, `403` when the user is
  /// not a member.
  func project(_ projectID: Int, visibleTo userID: Int) throws(DemoFailure) -> Wire.Project {
    guard let project = projects.first(where: { $0.id == projectID }) else {
      throw .notFound("There is no project \(projectID).")
    }
    guard role(of: userID, in: projectID) != nil else {
      throw .forbidden("You are not a member of \(project.name).")
    }
    return project
  }

  func permissions(of userID: Int, in projectID: Int) -> Wire.Permissions {
    let role = role(of: userID, in: projectID) ?? "none"
    let canWrite = role == "admin" || role == "member"
    return Wire.Permissions(
      role: role, canCreateTasks: canWrite, canAssign: canWrite, canUpload: canWrite)
  }

  mutating func issueTokens(
    for userID: Int, sessionID: Int?, lifetime: Duration, now: Date
  ) -> (access: String, refresh: String, sessionID: Int) {
    sweepExpiredTokens(now: now)
    let session = sessionID ?? nextSessionID
    if sessionID == nil {
      nextSessionID += 1
      endOldestSessions(of: userID, keeping: Self.maximumSessionsPerUser - 1)
    }
    let access = Self.randomToken(prefix: "at")
    let refresh = Self.randomToken(prefix: "rt")
    let seconds = lifetime.inSeconds
    accessTokens[access] = AccessGrant(
      userID: userID, sessionID: session, expiresAt: now.addingTimeInterval(seconds))
    refreshTokens[refresh] = RefreshGrant(
      userID: userID, sessionID: session,
      expiresAt: now.addingTimeInterval(Self.refreshTokenLifetime))
    return (access, refresh, session)
  }

  /// Forgets every expired token, and retired refresh tokens whose successor is gone.
  mutating func sweepExpiredTokens(now: Date) {
    accessTokens = accessTokens.filter { $0.value.expiresAt > now }
    refreshTokens = refreshTokens.filter { $0.value.expiresAt > now }
    retiredRefreshTokens = retiredRefreshTokens.filter { refreshTokens[$0.value.successor] != nil }
  }

  /// Exchanges `refreshToken` for new tokens of the same session, rotating it: `nil` unless it
  /// is live, or it was replaced and (with `acceptingReplaced`) its successor has never been
  /// used, which means the client never saw the answer that carried the successor. Then the
  /// unused successor is dropped and a new one issued.
  ///
  /// Using a successor retires the token it replaced for good: presenting that one again is
  /// what a stolen copy would do, and is refused.
  mutating func exchange(
    _ refreshToken: String, lifetime: Duration, acceptingReplaced: Bool, now: Date
  ) -> (access: String, refresh: String, userID: Int)? {
    let session: (userID: Int, sessionID: Int)
    if let grant = refreshTokens.removeValue(forKey: refreshToken) {
      // Its successor was received: the token it replaced is no longer needed.
      retiredRefreshTokens = retiredRefreshTokens.filter { $0.value.successor != refreshToken }
      session = (grant.userID, grant.sessionID)
    } else if acceptingReplaced, let retired = retiredRefreshTokens[refreshToken],
      refreshTokens.removeValue(forKey: retired.successor) != nil
    {
      session = (retired.userID, retired.sessionID)
    } else {
      return nil
    }
    guard user(session.userID) != nil else { return nil }
    let issued = issueTokens(
      for: session.userID, sessionID: session.sessionID, lifetime: lifetime, now: now)
    if acceptingReplaced {
      retiredRefreshTokens[refreshToken] = RetiredGrant(
        userID: session.userID, sessionID: session.sessionID, successor: issued.refresh)
    } else {
      retiredRefreshTokens.removeValue(forKey: refreshToken)
    }
    return (issued.access, issued.refresh, session.userID)
  }

  /// Ends `userID`'s oldest sessions until at most `count` remain.
  private mutating func endOldestSessions(of userID: Int, keeping count: Int) {
    let sessions = Set(refreshTokens.values.filter { $0.userID == userID }.map(\.sessionID))
      .union(accessTokens.values.filter { $0.userID == userID }.map(\.sessionID))
    for session in sessions.sorted().dropLast(max(0, count)) { endSession(session) }
  }

  /// How many tokens are held, for tests of the bounds.
  var tokenCount: Int { accessTokens.count + refreshTokens.count + retiredRefreshTokens.count }

  mutating func endSession(_ sessionID: Int) {
    accessTokens = accessTokens.filter { $0.value.sessionID != sessionID }
    refreshTokens = refreshTokens.filter { $0.value.sessionID != sessionID }
    retiredRefreshTokens = retiredRefreshTokens.filter { $0.value.sessionID != sessionID }
  }

  mutating func revokeTokens(of userID: Int) {
    accessTokens = accessTokens.filter { $0.value.userID != userID }
    refreshTokens = refreshTokens.filter { $0.value.userID != userID }
    retiredRefreshTokens = retiredRefreshTokens.filter { $0.value.userID != userID }
  }

  /// Adds a task; fails with 507 once the demo holds ``maximumTasks``.
  mutating func addTask(_ draft: Wire.NewTask, projectID: Int, userID: Int, at date: Date)
    throws(DemoFailure) -> Wire.Task
  {
    guard tasks.count < Self.maximumTasks else {
      throw DemoFailure(
        status: 507,
        body: Wire.Failure(
          code: "storage_full", message: "The demo holds at most \(Self.maximumTasks) tasks."))
    }
    let attachments = (draft.attachmentIDs ?? []).compactMap { files[$0]?.info }
    let task = Wire.Task(
      id: nextTaskID, projectID: projectID,
      title: draft.title.trimmingCharacters(in: .whitespacesAndNewlines),
      body: draft.body ?? "", milestoneID: draft.milestoneID, tagIDs: draft.tagIDs ?? [],
      assigneeIDs: draft.assigneeIDs ?? [], attachments: attachments, createdBy: userID,
      createdAt: date)
    nextTaskID += 1
    tasks.append(task)
    return task
  }

  static func randomToken(prefix: String) -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return prefix + "_" + bytes.map { String(format: "%02x", $0) }.joined()
  }
}
