import TrellisRepository

/// Why a service call failed, with a sentence to show the user. Reactors map it to alerts;
/// they never see Repository or Network errors.
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Kinds a screen may treat differently.
  public enum Kind: Sendable, Equatable {
    /// The server cannot be reached.
    case offline
    /// There is no valid session: go to sign-in.
    case unauthorized
    /// Not allowed.
    case forbidden
    /// Does not exist.
    case notFound
    /// The input was refused: see `fields`.
    case validation
    /// The server failed.
    case server
    /// The server sent something unexpected.
    case invalidResponse
    /// The caller cancelled.
    case cancelled
    /// The input was refused before reaching the server (a file that cannot be read).
    case invalidInput
  }

  /// The kind.
  public var kind: Kind
  /// The sentence to show.
  public var message: String
  /// For validation errors, what is wrong with each field.
  public var fields: [String: String]

  /// Creates an error.
  public init(_ kind: Kind, _ message: String, fields: [String: String] = [:]) {
    self.kind = kind
    self.message = message
    self.fields = fields
  }

  /// Translates a repository error.
  public init(_ error: RepositoryError) {
    switch error {
    case .offline(let message): self.init(.offline, message)
    case .unauthorized(let message): self.init(.unauthorized, message)
    case .forbidden(let message): self.init(.forbidden, message)
    case .notFound(let message): self.init(.notFound, message)
    case .validation(let message, let fields): self.init(.validation, message, fields: fields)
    case .server(_, let message): self.init(.server, message)
    case .invalidResponse(let message): self.init(.invalidResponse, message)
    case .cancelled: self.init(.cancelled, "Cancelled.")
    }
  }

  /// The message.
  public var description: String { message }
}
