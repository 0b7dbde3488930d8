import Foundation
import TrellisService

/// The app's own service: notes, with a blank one refused before any request.
public nonisolated protocol NotesService: Sendable {
  /// Every note's text.
  func notes() async throws(ServiceError) -> [String]
  /// Adds a note; a blank one is refused.
  func add(_ text: String) async throws(ServiceError) -> String
}

/// The ``NotesService`` over a ``NotesRepo``.
public nonisolated final class NotesServiceImpl: NotesService {
  private let repo: any NotesRepo

  /// The service over `repo`.
  public init(repo: any NotesRepo) {
    self.repo = repo
  }

  /// See ``NotesService/notes()``.
  public func notes() async throws(ServiceError) -> [String] {
    do {
      return try await repo.notes().map(\.text)
    } catch {
      throw ServiceError(error)
    }
  }

  /// See ``NotesService/add(_:)``.
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
