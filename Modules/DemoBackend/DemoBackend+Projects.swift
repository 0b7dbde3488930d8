import Foundation
import TrellisLoopbackServer

extension DemoBackend {
  func registerUserRoutes() {
    router.get("/me") { [self] request in
      signedIn(request) { userID throws(DemoFailure) in
        guard let user = state.withLock({ $0.user(userID) }) else {
          throw .notFound("Your account no longer exists.")
        }
        return .json(user)
      }
    }

    router.patch("/me") { [self] request in
      signedIn(request) { userID throws(DemoFailure) in
        let change = try Self.decode(Wire.ProfileChange.self, from: request)
        var fields: [String: String] = [:]
        if let name = change.displayName {
          let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
          if trimmed.isEmpty { fields["displayName"] = "required" }
          if trimmed.count > 40 { fields["displayName"] = "at most 40 characters" }
        }
        if let title = change.title, title.count > 60 { fields["title"] = "at most 60 characters" }
        if let bio = change.bio, bio.count > 280 { fields["bio"] = "at most 280 characters" }
        guard fields.isEmpty else {
          let message =
            fields["displayName"] == "required"
            ? "Display name is required." : "Some fields are too long."
          throw .validation(message, fields: fields)
        }
        let updated = state.withLock { state -> Wire.User? in
          guard let index = state.accounts.firstIndex(where: { $0.user.id == userID }) else {
            return nil
          }
          if let name = change.displayName {
            state.accounts[index].user.displayName = name.trimmingCharacters(
              in: .whitespacesAndNewlines)
          }
          if let title = change.title { state.accounts[index].user.title = title }
          if let bio = change.bio { state.accounts[index].user.bio = bio }
          return state.accounts[index].user
        }
        guard let updated else { throw .notFound("Your account no longer exists.") }
        return .json(updated)
      }
    }
  }

  func registerProjectRoutes() {
    router.get("/projects") { [self] request in
      signedIn(request) { userID throws(DemoFailure) in
        .json(
          state.withLock { state in
            state.projects.filter { state.role(of: userID, in: $0.id) != nil }
          })
      }
    }

    projectRoute("milestones") { state, projectID, _ in .json(state.milestones[projectID] ?? []) }
    projectRoute("tags") { state, projectID, _ in .json(state.tags[projectID] ?? []) }
    projectRoute("members") { state, projectID, _ in
      let members = (state.roles[projectID] ?? [:]).sorted { $0.key < $1.key }.compactMap {
        userID, role in
        state.user(userID).map {
          Wire.Member(userID: userID, displayName: $0.displayName, role: role)
        }
      }
      return .json(members)
    }
    projectRoute("permissions") { state, projectID, userID in
      .json(state.permissions(of: userID, in: projectID))
    }
    // A page of the project's tasks, newest first: `?limit=` (1 to 100, default 20),
    // `?after=` (the previous page's `nextCursor`) and `?query=` (words its title contains,
    // ignoring case and accents; at most 100 characters).
    router.get("/projects/:id/tasks") { [self] request in
      let projectID = Int(request.pathParameters["id"] ?? "") ?? -1
      return signedIn(request, latency: latency(forProject: projectID)) {
        userID throws(DemoFailure) in
        let query = try Self.taskQuery(request)
        let page = try state.withLock { state throws(DemoFailure) in
          _ = try state.project(projectID, visibleTo: userID)
          let matching = state.tasks.filter {
            $0.projectID == projectID && $0.id < query.after && query.matches($0.title)
          }
          let page = Array(matching.sorted { $0.id > $1.id }.prefix(query.limit))
          return Wire.TaskPage(
            tasks: page,
            nextCursor: matching.count > page.count ? page.last.map { String($0.id) } : nil)
        }
        return .json(page)
      }
    }
  }

  /// What `GET /projects/:id/tasks` asks for.
  struct TaskQuery {
    /// The most tasks a page has.
    var limit = 20
    /// Only tasks with ids below this one (the cursor is the last id of the previous page).
    var after = Int.max
    /// The words a title must contain, folded for comparison; empty for every task.
    var words: [String] = []

    func matches(_ title: String) -> Bool {
      let folded = Self.fold(title)
      return words.allSatisfy { folded.contains($0) }
    }

    static func fold(_ text: String) -> String {
      text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
  }

  /// The page asked for, checked: a limit out of range, a cursor that is not a positive task id
  /// (what this server sends), or a query over 100 characters is a `422` naming the parameter.
  static func taskQuery(_ request: ServerRequest) throws(DemoFailure) -> TaskQuery {
    var query = TaskQuery()
    if let text = request.queryValue("limit") {
      guard let limit = Int(text), (1...100).contains(limit) else {
        throw .validation("limit is a number from 1 to 100.", fields: ["limit": "1 to 100"])
      }
      query.limit = limit
    }
    if let text = request.queryValue("after") {
      guard let after = Int(text), after > 0 else {
        throw .validation(
          "after is the nextCursor of a page this server sent.", fields: ["after": "invalid"])
      }
      query.after = after
    }
    if let text = request.queryValue("query") {
      guard text.count <= 100 else {
        throw .validation(
          "A search is at most 100 characters.", fields: ["query": "at most 100 characters"])
      }
      query.words = TaskQuery.fold(text).split(whereSeparator: \.isWhitespace).map(String.init)
    }
    return query
  }

  /// `GET /projects/:id/<resource>` for members of the project, with the project's latency.
  private func projectRoute(
    _ resource: String,
    _ answer: @escaping @Sendable (DemoState, Int, Int) -> ServerResponse
  ) {
    router.get("/projects/:id/\(resource)") { [self] request in
      let projectID = Int(request.pathParameters["id"] ?? "") ?? -1
      return signedIn(request, latency: latency(forProject: projectID)) {
        userID throws(DemoFailure) in
        try state.withLock { state throws(DemoFailure) in
          _ = try state.project(projectID, visibleTo: userID)
          return answer(state, projectID, userID)
        }
      }
    }
  }
}
