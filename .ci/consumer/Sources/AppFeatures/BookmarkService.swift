import Foundation
import TrellisService

/// The app's own service: bookmarks, with a blank one refused before any request.
public nonisolated protocol BookmarkService: Sendable {
  /// Every bookmark's title.
  func bookmarks() async throws(ServiceError) -> [String]
  /// Adds a bookmark; a blank one is refused.
  func add(_ text: String) async throws(ServiceError) -> String
}

/// The ``BookmarkService`` over a ``BookmarkRepo``.
public nonisolated final class BookmarkServiceImpl: BookmarkService {
  private let repo: any BookmarkRepo

  /// The service over `repo`.
  public init(repo: any BookmarkRepo) {
    self.repo = repo
  }

  /// See ``BookmarkService/bookmarks()``.
  public func bookmarks() async throws(ServiceError) -> [String] {
    do {
      return try await repo.bookmarks().map(\.text)
    } catch {
      throw ServiceError(error)
    }
  }

  /// See ``BookmarkService/add(_:)``.
  public func add(_ text: String) async throws(ServiceError) -> String {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else {
      throw ServiceError(.validation, "Write something first.", fields: ["text": "required"])
    }
    do {
      return try await repo.create(text: trimmed).text
    } catch {
      throw ServiceError(error)
    }
  }
}
