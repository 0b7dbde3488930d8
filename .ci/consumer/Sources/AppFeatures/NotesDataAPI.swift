import Foundation
import TrellisNetwork

/// The app's own endpoints (FLo's `XxxDataAPI`). `nonisolated`: a request is built and sent off
/// the main actor, and an Xcode 26 app target makes its types main-actor by default.
public nonisolated enum NotesDataAPI: HTTPEndpoint {
  /// `GET /notes`.
  case notes
  /// `POST /notes`.
  case create(NewNoteModel)

  /// `/notes`.
  public var path: String { "/notes" }

  /// `GET` or `POST`.
  public var method: HTTPMethod {
    switch self {
    case .notes: .get
    case .create: .post
    }
  }

  /// The new note, as JSON.
  public var body: HTTPRequestBody {
    switch self {
    case .notes: .none
    case .create(let note): .json(note)
    }
  }
}

/// A note as the server sends it.
public nonisolated struct NoteModel: Codable, Sendable, Equatable {
  /// The server's id.
  public var id: Int
  /// What it says.
  public var text: String
}

/// A note to create.
public nonisolated struct NewNoteModel: Codable, Sendable, Equatable {
  /// What it says.
  public var text: String
}
