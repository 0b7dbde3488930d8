import Foundation
import TrellisNetwork

/// The app's own endpoints (FLo's `XxxDataAPI`). `nonisolated`: a request is built and sent off
/// the main actor, and an Xcode 26 app target makes its types main-actor by default.
public nonisolated enum BookmarkDataAPI: HTTPEndpoint {
  /// `GET /bookmarks`.
  case bookmarks
  /// `POST /bookmarks`.
  case create(NewBookmarkModel)

  /// `/bookmarks`.
  public var path: String { "/bookmarks" }

  /// `GET` or `POST`.
  public var method: HTTPMethod {
    switch self {
    case .bookmarks: .get
    case .create: .post
    }
  }

  /// The new bookmark, as JSON.
  public var body: HTTPRequestBody {
    switch self {
    case .bookmarks: .none
    case .create(let bookmark): .json(bookmark)
    }
  }
}

/// A bookmark as the server sends it.
public nonisolated struct BookmarkModel: Codable, Sendable, Equatable {
  /// The server's id.
  public var id: Int
  /// What it says.
  public var text: String
}

/// A bookmark to create.
public nonisolated struct NewBookmarkModel: Codable, Sendable, Equatable {
  /// What it says.
  public var text: String
}
