import Foundation
import TrellisNetwork

/// What can go wrong in a repository, in terms the layers above can act on. Every case
/// carries a sentence a person can read (the server's own message when it sent one).
///
/// | Case | When |
/// |---|---|
/// | `offline` | the server could not be reached, timed out, or the connection dropped |
/// | `unauthorized` | no session, the session ended, or the server refused the credentials (401) |
/// | `forbidden` | the user may not do this (403) |
/// | `notFound` | the thing does not exist (404) |
/// | `validation` | the input was refused (400, 409, 413, 422), with a message per field |
/// | `server` | the server failed (5xx, 429, others) |
/// | `invalidResponse` | the response did not decode |
/// | `cancelled` | the caller cancelled |
public enum RepositoryError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The server could not be reached.
  case offline(String)
  /// There is no valid session.
  case unauthorized(String)
  /// The user may not do this.
  case forbidden(String)
  /// The thing does not exist.
  case notFound(String)
  /// The input was refused; `fields` maps field names to what is wrong with them.
  case validation(String, fields: [String: String])
  /// The server failed with `status`.
  case server(status: Int, String)
  /// The response did not have the expected shape.
  case invalidResponse(String)
  /// The caller cancelled.
  case cancelled

  /// The readable message.
  public var message: String {
    switch self {
    case .offline(let message), .unauthorized(let message), .forbidden(let message),
      .notFound(let message), .validation(let message, _), .server(_, let message),
      .invalidResponse(let message):
      message
    case .cancelled: "Cancelled."
    }
  }

  /// The readable message.
  public var description: String { message }

  /// Translates a Network error, reading the server's JSON error body when there is one.
  public init(_ error: HTTPError) {
    switch error {
    case .transport(let failure):
      switch failure.kind {
      case .cancelled: self = .cancelled
      case .timedOut: self = .offline("The server took too long to answer.")
      case .cannotConnect: self = .offline("The server cannot be reached. Check the connection.")
      case .connectionLost: self = .offline("The connection to the server was lost.")
      case .responseTooLarge:
        self = .invalidResponse("The server sent more data than the app accepts.")
      case .other: self = .offline("The request failed: \(failure.detail)")
      }
    case .unacceptableStatus(let response):
      self = Self(status: response.status, body: try? response.decode(APIErrorModel.self))
    case .decoding(let failure):
      self = .invalidResponse("The server sent something unexpected (\(failure)).")
    case .authentication(let failure):
      switch failure {
      case .notSignedIn, .sessionChanged:
        self = .unauthorized("You are signed out. Sign in to continue.")
      case .untrustedOrigin, .missingCredential:
        self = .validation("The request could not be made: \(failure)", fields: [:])
      case .refreshUnavailable:
        self = .offline(
          "The server cannot be reached to renew your session. You are still signed in; "
            + "try again when the connection is back.")
      case .refreshRejected, .rejected, .refreshLoop:
        self = .unauthorized("Your session has ended. Sign in again.")
      }
    case .invalidRequest(let reason):
      self = .validation("The request could not be made: \(reason)", fields: [:])
    case .redirectRefused(let refusal):
      self = .invalidResponse("The server sent the app elsewhere (\(refusal)).")
    }
  }

  private init(status: Int, body: APIErrorModel?) {
    let message = body?.message ?? "The server answered with status \(status)."
    switch status {
    case 401: self = .unauthorized(message)
    case 403: self = .forbidden(message)
    case 404: self = .notFound(message)
    case 400, 409, 413, 422: self = .validation(message, fields: body?.fields ?? [:])
    default: self = .server(status: status, message)
    }
  }
}
