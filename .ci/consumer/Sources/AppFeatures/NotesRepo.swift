import TrellisNetwork
import TrellisRepository

/// The app's own repository.
public nonisolated protocol NotesRepo: Sendable {
  /// Every note.
  func notes() async throws(RepositoryError) -> [NoteModel]
  /// Creates a note.
  func create(text: String) async throws(RepositoryError) -> NoteModel
}

/// The ``NotesRepo`` over ``NotesDataAPI``.
public nonisolated final class NotesRepoImpl: NotesRepo {
  private let requester: HTTPRequester<NotesDataAPI>

  /// The repository over `requester`.
  public init(requester: HTTPRequester<NotesDataAPI>) {
    self.requester = requester
  }

  /// See ``NotesRepo/notes()``.
  public func notes() async throws(RepositoryError) -> [NoteModel] {
    do {
      return try await requester.request(.notes, as: [NoteModel].self)
    } catch {
      throw RepositoryError(error)
    }
  }

  /// See ``NotesRepo/create(text:)``.
  public func create(text: String) async throws(RepositoryError) -> NoteModel {
    do {
      return try await requester.request(.create(NewNoteModel(text: text)), as: NoteModel.self)
    } catch {
      throw RepositoryError(error)
    }
  }
}
