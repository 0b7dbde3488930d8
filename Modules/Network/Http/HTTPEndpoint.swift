import Foundation

/// Describes one HTTP API call, Moya's `TargetType`: where it goes, how it is encoded, what
/// counts as success, and a stub answer for offline and demo mode.
///
/// Conform an enum with one case per endpoint (FLo's `XxxDataAPI`):
///
/// ```swift
/// enum UserDataAPI: HTTPEndpoint {
///   case me
///   case updateProfile(ProfileUpdate)
///
///   var path: String {
///     switch self {
///     case .me, .updateProfile: "/me"
///     }
///   }
///   var method: HTTPMethod { self == .me ? .get : .patch }
///   var body: HTTPRequestBody {
///     switch self {
///     case .me: .none
///     case .updateProfile(let update): .json(update)
///     }
///   }
/// }
/// ```
///
/// Only `path` and `method` are required; everything else has a default. The server's address
/// usually comes from the ``HTTPRequester`` (it differs per environment); an endpoint served
/// elsewhere (a CDN) sets its own ``baseURL``.
public protocol HTTPEndpoint: Sendable {
  /// This endpoint's own server, such as `https://cdn.example.com`; `nil` (the default) uses
  /// the requester's base URL.
  var baseURL: URL? { get }
  /// The path appended to `baseURL`, such as `/projects/42/milestones`.
  var path: String { get }
  /// The request method.
  var method: HTTPMethod { get }
  /// Extra header fields. Default: none.
  var headers: HTTPHeaders { get }
  /// Query items appended to the URL, in order. Default: none.
  var query: [URLQueryItem] { get }
  /// The request body and how it is encoded. Default: no body.
  var body: HTTPRequestBody { get }
  /// Whether the auth plugin attaches a token (and refreshes it). Default: `true`.
  var requiresAuthentication: Bool { get }
  /// The deadline of the whole request, from sending to the last byte of the response; `nil`
  /// uses the requester's default. For a stream it bounds the wait for the response's head.
  /// Default: `nil`.
  var timeout: Duration? { get }
  /// How long the connection may stay silent before the request fails; `nil` means the same as
  /// the deadline. Default: `nil`.
  var idleTimeout: Duration? { get }
  /// The status codes that count as success; others fail with
  /// ``HTTPError/unacceptableStatus(_:)``. Default: `200..<300`.
  var acceptableStatusCodes: Set<Int> { get }
  /// The answer ``StubTransport`` gives in offline and demo mode; `nil` means none.
  /// Default: `nil`.
  var stub: HTTPStub? { get }
  /// Whether ``path`` is already percent-encoded (its values put in with
  /// ``PercentEncoding/pathSegment(_:)``, as generated code does): it is then sent as it is,
  /// a `%` never encoded again. Default: `false` (the characters a path cannot hold are
  /// encoded, and a `/` separates segments).
  var isPathPercentEncoded: Bool { get }
  /// The credentials this request needs besides the session's token, by the name the API's
  /// description gives their security scheme (`api_key`, `basic`): the ``APIKeyPlugin`` or
  /// ``BasicAuthPlugin`` of a scheme attaches its credential to these requests, and to no
  /// other. Default: none.
  var credentialSchemes: Set<String> { get }
  /// Whether the names and values of ``query`` are already percent-encoded (with
  /// ``PercentEncoding/encode(_:)``; the separators of a list, such as `a,b`, left as they
  /// are): they are then sent as they are. Default: `false` (every character but the
  /// unreserved ones is encoded, `+` and `&` included).
  var isQueryPercentEncoded: Bool { get }
}

extension HTTPEndpoint {
  /// The requester's base URL.
  public var baseURL: URL? { nil }
  /// No extra header fields.
  public var headers: HTTPHeaders { [:] }
  /// No query items.
  public var query: [URLQueryItem] { [] }
  /// No body.
  public var body: HTTPRequestBody { .none }
  /// Authenticated.
  public var requiresAuthentication: Bool { true }
  /// The requester's default timeout.
  public var timeout: Duration? { nil }
  /// The same as the deadline.
  public var idleTimeout: Duration? { nil }
  /// Any 2xx status.
  public var acceptableStatusCodes: Set<Int> { successStatusCodes }
  /// No stub.
  public var stub: HTTPStub? { nil }
  /// A plain path.
  public var isPathPercentEncoded: Bool { false }
  /// A plain query.
  public var isQueryPercentEncoded: Bool { false }
  /// None.
  public var credentialSchemes: Set<String> { [] }

  /// `METHOD /path`, for logs and error messages.
  public var summary: String { "\(method) \(path)" }
}

/// The 2xx statuses, built once: the default ``HTTPEndpoint/acceptableStatusCodes`` is read on
/// every response.
private let successStatusCodes = Set(200..<300)

/// A request body and its encoding.
public enum HTTPRequestBody: Sendable {
  /// No body.
  case none
  /// A value encoded as JSON (`Content-Type: application/json`), with the requester's
  /// encoder.
  case json(any Encodable & Sendable)
  /// Fields encoded as `application/x-www-form-urlencoded`, in order.
  case form([URLQueryItem])
  /// Raw bytes with their content type.
  case data(Data, contentType: String)
  /// A `multipart/form-data` body: fields and files (a file upload).
  case multipart([MultipartPart])
}

/// One part of a `multipart/form-data` body.
public struct MultipartPart: Sendable, Equatable {
  /// The form field name.
  public var name: String
  /// The file name, for a file part.
  public var fileName: String?
  /// The part's content type, such as `image/png`; `nil` for plain text fields.
  public var contentType: String?
  /// The part's bytes.
  public var data: Data

  /// A plain text field.
  public static func field(_ name: String, _ value: String) -> MultipartPart {
    MultipartPart(name: name, fileName: nil, contentType: nil, data: Data(value.utf8))
  }

  /// A file.
  public static func file(
    _ name: String, fileName: String, contentType: String, data: Data
  ) -> MultipartPart {
    MultipartPart(name: name, fileName: fileName, contentType: contentType, data: data)
  }

  /// Creates a part.
  public init(name: String, fileName: String?, contentType: String?, data: Data) {
    self.name = name
    self.fileName = fileName
    self.contentType = contentType
    self.data = data
  }
}

/// The answer a ``StubTransport`` gives for an endpoint: Moya's sample response, with an
/// optional delay to make loading states visible.
public struct HTTPStub: Sendable {
  /// What the stub answers.
  public enum Outcome: Sendable {
    /// A response with this status, headers and body.
    case response(status: Int, headers: HTTPHeaders, body: Data)
    /// A transport failure, such as the network being unreachable.
    case failure(TransportFailure)
  }

  /// What the stub answers.
  public var outcome: Outcome
  /// How long the stub waits before answering (cancellable).
  public var delay: Duration

  /// Creates a stub.
  public init(_ outcome: Outcome, delay: Duration = .zero) {
    self.outcome = outcome
    self.delay = delay
  }

  /// A response with a raw body.
  public static func status(
    _ status: Int, headers: HTTPHeaders = [:], body: Data = Data(), delay: Duration = .zero
  ) -> HTTPStub {
    HTTPStub(.response(status: status, headers: headers, body: body), delay: delay)
  }

  /// A JSON response encoding `value`.
  public static func json(
    _ value: some Encodable, status: Int = 200, delay: Duration = .zero
  ) -> HTTPStub {
    let body = (try? JSONEncoder().encode(value)) ?? Data()
    return .status(
      status, headers: ["Content-Type": "application/json"], body: body, delay: delay)
  }

  /// A transport failure.
  public static func failure(_ failure: TransportFailure, delay: Duration = .zero) -> HTTPStub {
    HTTPStub(.failure(failure), delay: delay)
  }
}
