import TrellisNetwork

/// The signed-in user's endpoints (FLo's `userDataAPI`).
public enum UserDataAPI: HTTPEndpoint {
  /// `GET /me`.
  case me
  /// `PATCH /me`.
  case updateProfile(ProfileChangeModel)

  /// `/me`.
  public var path: String { "/me" }

  /// `GET` to read, `PATCH` to change.
  public var method: HTTPMethod {
    switch self {
    case .me: .get
    case .updateProfile: .patch
    }
  }

  /// The change, as JSON.
  public var body: HTTPRequestBody {
    switch self {
    case .me: .none
    case .updateProfile(let change): .json(change)
    }
  }
}
