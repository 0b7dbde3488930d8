/// Replaces the values of sensitive keys (headers, form fields, JSON fields) before logging.
///
/// Keys match case-insensitively. The Network layer's logging plugin uses one for headers and
/// body fields; ``LogPrivacy/secret`` covers single interpolated values.
public struct SecretRedactor: Sendable {
  /// The lowercase names whose values are never logged.
  public private(set) var sensitiveKeys: Set<String>

  /// Keys that carry credentials in most HTTP APIs.
  public static let defaultSensitiveKeys: Set<String> = [
    "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
    "password", "access_token", "refresh_token", "accesstoken", "refreshtoken", "token",
    "client_secret",
  ]

  /// Creates a redactor for the default keys plus `additionalKeys`.
  public init(additionalKeys: Set<String> = []) {
    sensitiveKeys = Self.defaultSensitiveKeys.union(additionalKeys.map { $0.lowercased() })
  }

  /// Whether values under `key` are redacted.
  public func isSensitive(_ key: String) -> Bool {
    sensitiveKeys.contains(key.lowercased())
  }

  /// `dictionary` with the value of every sensitive key replaced by `<redacted>`.
  public func redacting(_ dictionary: [String: String]) -> [String: String] {
    var copy = dictionary
    for key in dictionary.keys where isSensitive(key) {
      copy[key] = LogMessage.redactedPlaceholder
    }
    return copy
  }

  /// A JSON-like value (as produced by `JSONSerialization`) with sensitive fields redacted at
  /// any depth.
  public func redacting(jsonObject: Any) -> Any {
    switch jsonObject {
    case let object as [String: Any]:
      var copy: [String: Any] = [:]
      for (key, value) in object {
        copy[key] = isSensitive(key) ? LogMessage.redactedPlaceholder : redacting(jsonObject: value)
      }
      return copy
    case let array as [Any]:
      return array.map { redacting(jsonObject: $0) }
    default:
      return jsonObject
    }
  }
}
