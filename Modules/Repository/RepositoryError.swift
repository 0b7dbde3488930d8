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
  /// The statuses that ask for the same request later (a timeout, a conflicting request still
  /// in progress, too early, too many): a write answered with one is sent again, not given up.
  public static let tryAgainLaterStatuses: Set<Int> = [408, 409, 425, 429]

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
      case .connectionLost, .connectionReplaced:
        self = .offline("The connection to the server was lost.")
      case .responseTooLarge:
        self = .invalidResponse("The server sent more data than the app accepts.")
      case .other: self = .offline("The request failed: \(failure.detail)")
      }
    case .unacceptableStatus(let response):
      self = Self(status: response.status, body: ServerErrorBody(response.body))
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

  private init(status: Int, body: ServerErrorBody?) {
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

/// What a server's error answer says, read from the shapes APIs use: `message` (this starter's
/// `APIErrorModel`, and most APIs, whatever type their `code` has), `error` as text or as an
/// object with a `message` (Google's), `error_description` (OAuth), `detail` or `title`
/// (RFC 9457 problem details), `msg`, or the first of `errors`; and `fields`, a message per
/// field. A body over 64 KiB, or not a JSON object, says nothing; the message is one line of at
/// most 500 characters.
struct ServerErrorBody {
  var message: String?
  var fields: [String: String]?

  init?(_ data: Data) {
    guard !data.isEmpty, data.count <= 64 * 1024,
      let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    else { return nil }
    let nested = object["error"] as? [String: Any]
    let errors = object["errors"] as? [Any]
    let candidates: [Any?] = [
      object["message"], object["error_description"], object["detail"], object["title"],
      object["error"], nested?["message"], object["msg"],
      (errors?.first as? [String: Any])?["message"], errors?.first,
    ]
    message = candidates.lazy.compactMap { $0 as? String }.map(Self.oneLine)
      .first { !$0.isEmpty }
    fields = (object["fields"] as? [String: Any])?.compactMapValues { $0 as? String }
    if message == nil, fields == nil { return nil }
  }

  /// `text` on one line (line breaks and control characters are spaces), at most 500
  /// characters.
  private static func oneLine(_ text: String) -> String {
    let flat = String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : $0 }))
    let trimmed = flat.trimmingCharacters(in: .whitespaces)
    return trimmed.count > 500 ? String(trimmed.prefix(499)) + "…" : trimmed
  }
}
