import Foundation

/// What an operation answered, with the error answers its API document types: the success, or
/// an error status whose body reads as the document says it does (`404` with an `ErrorModel`,
/// say). An error answer the document does not type, a body that does not read as its type,
/// and every other failure (offline, signed out) are thrown as ``RepositoryError``, as the
/// operation's plain method throws them.
///
/// `trellis-gen api` writes, beside each operation whose document types an error body, a method
/// `<operation>Answer(...)` giving back this.
public enum APIAnswer<Success: Sendable, Failure: Sendable>: Sendable {
  /// The operation succeeded.
  case success(Success)
  /// The server answered `status` with the typed `body`; `error` is what the plain method
  /// throws for it (the server's message, for an alert).
  case failure(status: Int, body: Failure, error: RepositoryError)

  /// The success, or the failure's ``RepositoryError`` thrown: what the plain method gives.
  public func value() throws(RepositoryError) -> Success {
    switch self {
    case .success(let value): return value
    case .failure(_, _, let error): throw error
    }
  }
}

extension APIAnswer: Equatable where Success: Equatable, Failure: Equatable {}
