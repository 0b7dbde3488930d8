import Foundation

/// The backend's in-memory data, guarded by the backend's lock.
struct DemoState {
  struct AccessGrant {
    var userID: Int
    var sessionID: Int
    var expiresAt: Date
  }

  struct RefreshGrant {
    var userID: Int
    var sessionID: Int
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
  var nextTaskID = 100
  var nextFileID = 1
  var nextSessionID = 1

  init(now: Date) {
    tasks = DemoSeed.tasks(createdAt: now)
  }

  func user(_ id: Int) -> Wire.User? {
    accounts.first { $0.user.id == id }?.user
  }

  func role(of userID: Int, in projectID: Int) -> String? {
    roles[projectID]?[userID]
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

  mutating func issueTokens(for userID: Int, sessionID: Int?, lifetime: Duration, now: Date)
    -> (access: String, refresh: String, sessionID: Int)
  {
    let session = sessionID ?? nextSessionID
    if sessionID == nil { nextSessionID += 1 }
    let access = Self.randomToken(prefix: "at")
    let refresh = Self.randomToken(prefix: "rt")
    let seconds = Double(lifetime.components.seconds)
    accessTokens[access] = AccessGrant(
      userID: userID, sessionID: session, expiresAt: now.addingTimeInterval(seconds))
    refreshTokens[refresh] = RefreshGrant(userID: userID, sessionID: session)
    return (access, refresh, session)
  }

  mutating func endSession(_ sessionID: Int) {
    accessTokens = accessTokens.filter { $0.value.sessionID != sessionID }
    refreshTokens = refreshTokens.filter { $0.value.sessionID != sessionID }
  }

  mutating func revokeTokens(of userID: Int) {
    accessTokens = accessTokens.filter { $0.value.userID != userID }
    refreshTokens = refreshTokens.filter { $0.value.userID != userID }
  }

  mutating func addTask(_ draft: Wire.NewTask, projectID: Int, userID: Int, at date: Date)
    -> Wire.Task
  {
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
