import TrellisNetwork

/// Projects and what belongs to each: milestones, tags, members, the signed-in user's
/// permissions, and tasks.
public enum ProjectDataAPI: HTTPEndpoint {
  /// `GET /projects`: the projects the user is a member of.
  case projects
  /// `GET /projects/:id/milestones`.
  case milestones(projectID: Int)
  /// `GET /projects/:id/tags`.
  case tags(projectID: Int)
  /// `GET /projects/:id/members`.
  case members(projectID: Int)
  /// `GET /projects/:id/permissions`.
  case permissions(projectID: Int)

  /// The endpoint's path.
  public var path: String {
    switch self {
    case .projects: "/projects"
    case .milestones(let id): "/projects/\(id)/milestones"
    case .tags(let id): "/projects/\(id)/tags"
    case .members(let id): "/projects/\(id)/members"
    case .permissions(let id): "/projects/\(id)/permissions"
    }
  }

  /// Always `GET`.
  public var method: HTTPMethod { .get }
}
