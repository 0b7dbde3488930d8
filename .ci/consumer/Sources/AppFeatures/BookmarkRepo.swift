import TrellisNetwork
import TrellisRepository

/// The app's own repository.
public nonisolated protocol BookmarkRepo: Sendable {
  /// Every bookmark.
  func bookmarks() async throws(RepositoryError) -> [BookmarkModel]
  /// Creates a bookmark.
  func create(text: String) async throws(RepositoryError) -> BookmarkModel
}

/// The ``BookmarkRepo`` over ``BookmarkDataAPI``.
public nonisolated final class BookmarkRepoImpl: BookmarkRepo {
  private let requester: HTTPRequester<BookmarkDataAPI>

  /// The repository over `requester`.
  public init(requester: HTTPRequester<BookmarkDataAPI>) {
    self.requester = requester
  }

  /// See ``BookmarkRepo/bookmarks()``.
  public func bookmarks() async throws(RepositoryError) -> [BookmarkModel] {
    do {
      return try await requester.request(.bookmarks, as: [BookmarkModel].self)
    } catch {
      throw RepositoryError(error)
    }
  }

  /// See ``BookmarkRepo/create(text:)``.
  public func create(text: String) async throws(RepositoryError) -> BookmarkModel {
    do {
      return try await requester.request(
        .create(NewBookmarkModel(text: text)), as: BookmarkModel.self)
    } catch {
      throw RepositoryError(error)
    }
  }
}
