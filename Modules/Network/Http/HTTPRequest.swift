import Foundation
import TrellisCore

/// A request on its way to the transport: what plugins prepare and transports send.
///
/// Its `description` never shows a secret: sensitive header values, every query value and the
/// body are left out.
public struct HTTPRequest: Sendable, Equatable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The method.
  public var method: HTTPMethod
  /// The full URL, query included.
  public var url: URL
  /// The header fields.
  public var headers: HTTPHeaders
  /// The body bytes, if any.
  public var body: Data?
  /// The deadline of the whole exchange, from sending to the last byte of the body: the
  /// transport cancels the request and fails with `.timedOut` when it passes.
  public var timeout: Duration
  /// How long the connection may stay silent (no bytes either way) before the request fails
  /// with `.timedOut`; `nil` means the same as ``timeout``. For a stream, which has no
  /// deadline once open, this is what ends a dead connection.
  public var idleTimeout: Duration?
  /// The names of header fields and query items whose values are secret besides those the
  /// redactors know, compared without case: a plugin that attaches a credential under a name of
  /// the API's own (an API key named `appid`) names it here, and every description, log line
  /// and cURL line leaves its value out, and a redirect to another origin drops it.
  public var secretFields: Set<String> = []

  /// Creates a request.
  public init(
    method: HTTPMethod, url: URL, headers: HTTPHeaders = [:], body: Data? = nil,
    timeout: Duration = .seconds(30), idleTimeout: Duration? = nil
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.timeout = timeout
    self.idleTimeout = idleTimeout
  }

  /// The path and the query's names, such as `/projects?page=…&query=…`, for messages: no
  /// query value is shown, sensitive or not. Error descriptions show it, and they can reach any
  /// log or alert, where a value (a token, or what the user searched for) must not; a log that
  /// knows which values are safe to show uses ``target(redactedBy:)``.
  public var target: String { Self.eliding(target(redactedBy: .standard), queryOf: url) }

  /// `redactor`, also finding ``secretFields`` sensitive.
  private func including(_ redactor: SecretRedactor) -> SecretRedactor {
    guard !secretFields.isEmpty else { return redactor }
    return SecretRedactor(additionalKeys: Set(redactor.sensitiveKeys).union(secretFields))
  }

  /// The path and query for logs, with the query items `redactor` finds sensitive redacted.
  public func target(redactedBy redactor: SecretRedactor) -> String {
    let redactor = including(redactor)
    var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    components?.scheme = nil
    components?.host = nil
    components?.port = nil
    components?.user = nil
    components?.password = nil
    return redactor.redacting(url: components?.string ?? url.absoluteString)
  }

  /// The full URL for messages, with any password redacted and, as in ``target``, the query's
  /// names without their values.
  public var redactedURL: String { Self.eliding(redactedURL(by: .standard), queryOf: url) }

  /// `text` (a redacted form of `url`) up to its query or fragment, then the names of `url`'s
  /// query items, each with `…` for its value.
  private static func eliding(_ text: String, queryOf url: URL) -> String {
    let base = text.prefix { $0 != "?" && $0 != "#" }
    // An item without a value (`?abc123`) may itself be one: it shows as `…` too.
    let names =
      URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQueryItems?
      .filter { !$0.name.isEmpty }.map { $0.value == nil ? "…" : "\($0.name)=…" } ?? []
    return names.isEmpty ? String(base) : base + "?" + names.joined(separator: "&")
  }

  /// The full URL for logs, with the query items `redactor` finds sensitive and any password
  /// redacted.
  public func redactedURL(by redactor: SecretRedactor) -> String {
    including(redactor).redacting(url: url.absoluteString)
  }

  /// The request as a `curl` command line, for debugging logs. Sensitive header values and
  /// query items are always redacted.
  ///
  /// - Parameter redactor: Decides which header values and query items are secret.
  /// - Parameter body: How the body is printed (a redacting renderer); by default only its
  ///   size, since a body may carry a password.
  public func curlCommand(
    redactor: SecretRedactor = .standard, body describeBody: (@Sendable (Data) -> String)? = nil
  ) -> String {
    let redactor = including(redactor)
    var parts = ["curl", "-X", method.rawValue]
    for field in headers {
      let value =
        redactor.isSensitive(field.name)
        ? LogMessage.redactedPlaceholder : field.value
      parts += ["-H", Self.quoted("\(field.name): \(value)")]
    }
    if let body, !body.isEmpty {
      parts += ["--data-binary", Self.quoted(describeBody?(body) ?? "<\(body.count) bytes>")]
    }
    parts.append(Self.quoted(redactedURL(by: redactor)))
    return parts.joined(separator: " ")
  }

  /// `GET /path?query`, the header names with secret values redacted, and the body's size.
  public var description: String {
    var text = "\(method) \(redactedURL)"
    if !headers.isEmpty { text += " [\(headers.redactedSummary(by: including(.standard)))]" }
    if let body, !body.isEmpty { text += " (\(body.count)-byte body)" }
    return text
  }

  /// The same as ``description``: nothing secret either.
  public var debugDescription: String { description }

  private static func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}

extension HTTPRequest {
  /// Builds the request `endpoint` describes: URL with query, headers, and the encoded body.
  ///
  /// - Parameter baseURL: The server, used when the endpoint has no ``HTTPEndpoint/baseURL``
  ///   of its own.
  /// - Throws: ``HTTPError/invalidRequest(_:)`` when there is no base URL, the URL cannot be
  ///   formed or the body cannot be encoded.
  public init(
    endpoint: some HTTPEndpoint, baseURL: URL?, encoder: JSONEncoder, defaultTimeout: Duration
  ) throws(HTTPError) {
    guard var url = endpoint.baseURL ?? baseURL else {
      throw .invalidRequest("\(endpoint.summary): no base URL (set one on the requester)")
    }
    if !endpoint.path.isEmpty, !endpoint.isPathPercentEncoded {
      let path = endpoint.path.hasPrefix("/") ? String(endpoint.path.dropFirst()) : endpoint.path
      url = url.appendingPathComponent(path, isDirectory: false)
    }
    if (!endpoint.path.isEmpty && endpoint.isPathPercentEncoded) || !endpoint.query.isEmpty {
      guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
        throw .invalidRequest(
          "\(endpoint.summary): cannot build a URL from "
            + SecretRedactor.standard.redacting(url: url.absoluteString))
      }
      if !endpoint.path.isEmpty, endpoint.isPathPercentEncoded {
        guard PercentEncoding.isWellFormedPath(endpoint.path) else {
          throw .invalidRequest(
            "\(endpoint.summary): the path is said to be percent-encoded but is not")
        }
        let base = components.percentEncodedPath
        let joint = base.hasSuffix("/") || endpoint.path.hasPrefix("/") ? "" : "/"
        let path =
          base.hasSuffix("/") && endpoint.path.hasPrefix("/")
          ? String(endpoint.path.dropFirst()) : endpoint.path
        components.percentEncodedPath = base + joint + path
      }
      if !endpoint.query.isEmpty {
        let items: [URLQueryItem]
        if endpoint.isQueryPercentEncoded {
          guard
            endpoint.query.allSatisfy({
              PercentEncoding.isWellFormedQueryPart($0.name)
                && PercentEncoding.isWellFormedQueryPart($0.value ?? "")
            })
          else {
            let names = endpoint.query.map(\.name).joined(separator: ", ")
            throw .invalidRequest(
              "\(endpoint.summary): the query is said to be percent-encoded but is not (items "
                + "\(names))")
          }
          items = endpoint.query
        } else {
          // Every character but the unreserved ones encoded: a `+` or a `&` in a value is the
          // value's, never a space or the next item.
          items = endpoint.query.map {
            URLQueryItem(
              name: PercentEncoding.encode($0.name), value: $0.value.map(PercentEncoding.encode))
          }
        }
        components.percentEncodedQueryItems = (components.percentEncodedQueryItems ?? []) + items
      }
      guard let built = components.url else {
        let names = endpoint.query.map(\.name).joined(separator: ", ")
        throw .invalidRequest("\(endpoint.summary): invalid path or query (items \(names))")
      }
      url = built
    }
    var headers: HTTPHeaders = ["Accept": "application/json"]
    var body: Data?
    switch endpoint.body {
    case .none:
      break
    case .json(let value):
      do {
        body = try encoder.encode(value)
      } catch {
        throw .invalidRequest("\(endpoint.summary): the JSON body cannot be encoded: \(error)")
      }
      headers["Content-Type"] = "application/json"
    case .form(let fields):
      body = Data(FormEncoding.encode(fields).utf8)
      headers["Content-Type"] = "application/x-www-form-urlencoded"
    case .data(let data, let contentType):
      body = data
      headers["Content-Type"] = contentType
    case .multipart(let parts):
      let multipart = MultipartEncoding(parts: parts)
      body = multipart.body
      headers["Content-Type"] = multipart.contentType
    }
    headers.merge(endpoint.headers)
    self.init(
      method: endpoint.method, url: url, headers: headers, body: body,
      timeout: endpoint.timeout ?? defaultTimeout, idleTimeout: endpoint.idleTimeout)
  }
}

/// `application/x-www-form-urlencoded` encoding (WHATWG URL standard).
enum FormEncoding {
  private static let unreserved = CharacterSet(
    charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._*")

  static func encode(_ fields: [URLQueryItem]) -> String {
    fields.map { escape($0.name) + "=" + escape($0.value ?? "") }.joined(separator: "&")
  }

  static func escape(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: unreserved.union(.init(charactersIn: " ")))?
      .replacingOccurrences(of: " ", with: "+") ?? text
  }
}

/// `multipart/form-data` encoding (RFC 7578) with a random boundary.
struct MultipartEncoding {
  let boundary: String
  let body: Data

  var contentType: String { "multipart/form-data; boundary=\(boundary)" }

  init(parts: [MultipartPart], boundary: String = "trellis-\(UUID().uuidString)") {
    self.boundary = boundary
    var body = Data()
    for part in parts {
      var disposition = "form-data; name=\"\(Self.quote(part.name))\""
      if let fileName = part.fileName { disposition += "; filename=\"\(Self.quote(fileName))\"" }
      body.append(Data("--\(boundary)\r\nContent-Disposition: \(disposition)\r\n".utf8))
      if let contentType = part.contentType {
        body.append(Data("Content-Type: \(contentType)\r\n".utf8))
      }
      body.append(Data("\r\n".utf8))
      body.append(part.data)
      body.append(Data("\r\n".utf8))
    }
    body.append(Data("--\(boundary)--\r\n".utf8))
    self.body = body
  }

  private static func quote(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "")
  }
}
