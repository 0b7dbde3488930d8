import Foundation
import TrellisLoopbackServer

/// Routes under `/demo/` drive the demo from outside the app (no auth: demo only):
///
/// - `POST /demo/tasks` `{"projectID": 1, "title": "..."}`: a task created elsewhere.
/// - `POST /demo/revoke` `{"username": "alice"}`: end alice's sessions.
/// - `GET /demo/settings`, `POST /demo/settings` `{"failsUploads": true, "failsRequests":
///   false, "accessTokenSeconds": 30}`: the failure switches and the token lifetime.
extension DemoBackend {
  struct ElsewhereTask: Codable {
    var projectID: Int
    var title: String
  }

  struct RevokeRequest: Codable {
    var username: String
  }

  struct Settings: Codable {
    var failsUploads: Bool?
    var failsRequests: Bool?
    var accessTokenSeconds: Int?
  }

  func registerControlRoutes() {
    router.post("/demo/tasks") { [self] request in
      guard let body = try? JSONDecoder().decode(ElsewhereTask.self, from: request.body) else {
        return DemoFailure.badRequest("Send {\"projectID\": 1, \"title\": \"...\"}.").response
      }
      let title = body.title.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !title.isEmpty, title.count <= 120 else {
        return DemoFailure.validation(
          "A title of 1 to 120 characters is required.", fields: ["title": "1 to 120 characters"]
        ).response
      }
      switch createTask(elsewhereIn: body.projectID, title: title, by: 3) {
      case .success(let id): return .json(["id": id], status: 201)
      case .failure(let failure): return failure.response
      }
    }

    router.post("/demo/revoke") { [self] request in
      guard let body = try? JSONDecoder().decode(RevokeRequest.self, from: request.body) else {
        return DemoFailure.badRequest("Send {\"username\": \"alice\"}.").response
      }
      return revokeSessions(of: body.username)
        ? .status(204) : DemoFailure.notFound("There is no user \(body.username).").response
    }

    router.get("/demo/settings") { [self] _ in .json(settings) }

    router.post("/demo/settings") { [self] request in
      guard let body = try? JSONDecoder().decode(Settings.self, from: request.body) else {
        return DemoFailure.badRequest("Send the settings to change as JSON.").response
      }
      configure { configuration in
        if let fails = body.failsUploads { configuration.failsUploads = fails }
        if let fails = body.failsRequests { configuration.failsRequests = fails }
        if let seconds = body.accessTokenSeconds, seconds > 0 {
          configuration.accessTokenLifetime = .seconds(seconds)
        }
      }
      return .json(settings)
    }
  }

  private var settings: Settings {
    let configuration = currentConfiguration
    return Settings(
      failsUploads: configuration.failsUploads, failsRequests: configuration.failsRequests,
      accessTokenSeconds: Int(configuration.accessTokenLifetime.components.seconds))
  }
}
