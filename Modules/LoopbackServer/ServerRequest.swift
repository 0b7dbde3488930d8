import Foundation
import TrellisNetwork

/// A request as the server received it (or as an in-process caller handed it over).
public struct ServerRequest: Sendable {
  /// The method.
  public var method: HTTPMethod
  /// The path as it was sent (percent-encoded), without the query: `/projects/2/milestones`,
  /// `/files/a%2Fb`. The router decodes each segment after splitting it at the slashes, and
  /// ``pathParameters`` holds decoded values.
  public var path: String
  /// The query items, in order.
  public var query: [URLQueryItem]
  /// The header fields.
  public var headers: HTTPHeaders
  /// The body bytes.
  public var body: Data
  /// The values of the route's `:name` segments.
  public var pathParameters: [String: String] = [:]

  /// Creates a request.
  public init(
    method: HTTPMethod, path: String, query: [URLQueryItem] = [], headers: HTTPHeaders = [:],
    body: Data = Data()
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
  }

  /// The first query value named `name`.
  public func queryValue(_ name: String) -> String? {
    query.first { $0.name == name }?.value
  }

  /// The bearer token of the `Authorization` header, if any.
  public var bearerToken: String? {
    guard let authorization = headers["Authorization"], authorization.hasPrefix("Bearer ") else {
      return nil
    }
    return String(authorization.dropFirst("Bearer ".count))
  }

  /// Decodes the body as JSON.
  public func decodeBody<Value: Decodable>(_ type: Value.Type) throws -> Value {
    try JSONDecoder().decode(type, from: body)
  }

  /// The fields of an `application/x-www-form-urlencoded` body.
  public var formFields: [URLQueryItem] {
    var components = URLComponents()
    components.percentEncodedQuery = String(decoding: body, as: UTF8.self)
      .replacingOccurrences(of: "+", with: "%20")
    return components.queryItems ?? []
  }

  /// The parts of a `multipart/form-data` body, or `nil` if it is not one or is malformed.
  public var multipartParts: [MultipartPart]? {
    MultipartParser.parts(of: body, contentType: headers["Content-Type"])
  }
}

/// Reads `multipart/form-data` bodies (RFC 7578).
enum MultipartParser {
  static func parts(of body: Data, contentType: String?) -> [MultipartPart]? {
    guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data"),
      let boundaryRange = contentType.range(of: "boundary=")
    else { return nil }
    var boundary = String(contentType[boundaryRange.upperBound...])
    if let end = boundary.firstIndex(of: ";") { boundary = String(boundary[..<end]) }
    boundary = boundary.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
    let delimiter = Data("--\(boundary)".utf8)
    var parts: [MultipartPart] = []
    var searchStart = body.startIndex
    guard var current = body.range(of: delimiter, in: searchStart..<body.endIndex) else {
      return nil
    }
    while true {
      searchStart = current.upperBound
      if body[searchStart...].starts(with: Data("--".utf8)) { return parts }
      guard let next = body.range(of: delimiter, in: searchStart..<body.endIndex) else {
        return nil
      }
      var chunk = body[searchStart..<next.lowerBound]
      if chunk.starts(with: Data("\r\n".utf8)) { chunk = chunk.dropFirst(2) }
      if chunk.suffix(2) == Data("\r\n".utf8) { chunk = chunk.dropLast(2) }
      guard let headerEnd = chunk.range(of: Data("\r\n\r\n".utf8)) else { return nil }
      let headerText = String(
        decoding: chunk[chunk.startIndex..<headerEnd.lowerBound], as: UTF8.self)
      var name: String?
      var fileName: String?
      var partType: String?
      for line in headerText.components(separatedBy: "\r\n") {
        let lower = line.lowercased()
        if lower.hasPrefix("content-disposition:") {
          name = parameter("name", in: line)
          fileName = parameter("filename", in: line)
        } else if lower.hasPrefix("content-type:") {
          partType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
        }
      }
      guard let name else { return nil }
      parts.append(
        MultipartPart(
          name: name, fileName: fileName, contentType: partType,
          data: Data(chunk[headerEnd.upperBound...])))
      current = next
    }
  }

  /// The value of a quoted parameter such as `filename="a \"b\".png"`, unescaped.
  private static func parameter(_ name: String, in line: String) -> String? {
    guard let range = line.range(of: "; \(name)=\"") else { return nil }
    var value = ""
    var escaped = false
    for character in line[range.upperBound...] {
      if escaped {
        value.append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == "\"" {
        return value
      } else {
        value.append(character)
      }
    }
    return nil
  }
}
