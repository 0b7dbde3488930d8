/// Replaces the values of sensitive names (headers, form fields, JSON fields, query items,
/// and the properties and cases a reactor trace describes) before they are logged or described.
///
/// One rule decides, everywhere: a name is sensitive when, lowercased and without `-` and
/// `_`, it *contains* one of ``sensitiveKeys``. So `X-API-Key`, `x_api_key` and `xApiKey` are
/// one name, and `userPassword`, `passwordConfirmation` and `setPassword` all contain
/// `password`. A substring rule redacts a few harmless names too (`tokenCount`, `footprint`
/// contains `otp`); that is the accepted price, listed in the tests: a redacted value costs a
/// little readability, a leaked one costs an account.
///
/// The Network layer's logging plugin, the `description` of requests and headers, and
/// `ReactorTrace` use the ``standard`` redactor; ``LogPrivacy/secret`` covers single
/// interpolated values.
public struct SecretRedactor: Sendable {
  /// The normalized stems (lowercase, without `-` and `_`); a name containing one is
  /// sensitive.
  public private(set) var sensitiveKeys: [String]

  /// The stems of the names that carry credentials in most HTTP APIs and apps: `password`
  /// covers `newPassword` and `passwordConfirmation`, `token` covers `access_token`,
  /// `X-CSRF-Token` and `refreshToken`, and so on.
  public static let defaultSensitiveKeys: Set<String> = [
    "authorization", "cookie", "password", "passwd", "passphrase", "token", "secret", "apikey",
    "privatekey", "otp", "sessionid", "credential", "csrf", "xsrf", "signature",
  ]

  /// The redactor for ``defaultSensitiveKeys``, shared.
  public static let standard = SecretRedactor()

  /// Creates a redactor for the default stems plus `additionalKeys` (matched the same way).
  public init(additionalKeys: Set<String> = []) {
    sensitiveKeys = Set(Self.defaultSensitiveKeys.union(additionalKeys).map(Self.normalized))
      .sorted()
  }

  /// Whether values under `key` are redacted: its normalized form contains a sensitive stem.
  public func isSensitive(_ key: some StringProtocol) -> Bool {
    let normalized = Self.normalized(key)
    return sensitiveKeys.contains { normalized.contains($0) }
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

  /// `name=value&...` pairs (a URL query or a form body) with the value of every sensitive
  /// name replaced by `<redacted>`; names are compared percent-decoded, the rest is kept as
  /// written.
  public func redacting(formEncoded text: some StringProtocol) -> String {
    text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
      guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
      let name = pair[..<equals]
      let decoded = PercentDecoding.decode(name.replacingOccurrences(of: "+", with: " "))
      return isSensitive(decoded) ? "\(name)=\(LogMessage.redactedPlaceholder)" : String(pair)
    }.joined(separator: "&")
  }

  /// A URL (or a path with a query) as text, with the values of sensitive query items and any
  /// password in its user information replaced by `<redacted>`.
  ///
  /// `https://api.example.com/me?access_token=abc&page=2` becomes
  /// `https://api.example.com/me?access_token=<redacted>&page=2`.
  public func redacting(url text: String) -> String {
    var text = Substring(text)
    var fragment: Substring = ""
    if let hash = text.firstIndex(of: "#") {
      fragment = text[hash...]
      text = text[..<hash]
    }
    var head = text
    var query: Substring?
    if let question = text.firstIndex(of: "?") {
      head = text[..<question]
      query = text[text.index(after: question)...]
    }
    var result = Self.redactingUserInfo(head)
    if let query { result += "?" + redacting(formEncoded: query) }
    // OAuth's implicit flow puts tokens in the fragment, in the same form as a query.
    if !fragment.isEmpty { result += "#" + redacting(formEncoded: fragment.dropFirst()) }
    return result
  }

  /// `scheme://user:password@host...` with the password redacted.
  private static func redactingUserInfo(_ text: Substring) -> String {
    guard let schemeEnd = text.range(of: "://") else { return String(text) }
    let authorityStart = schemeEnd.upperBound
    let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
    let authority = text[authorityStart..<authorityEnd]
    guard let at = authority.lastIndex(of: "@"),
      let colon = authority[..<at].firstIndex(of: ":")
    else { return String(text) }
    return String(text[..<authority.index(after: colon)]) + LogMessage.redactedPlaceholder
      + String(text[at...])
  }

  /// The form keys are compared in: lowercase, without `-` and `_`.
  static func normalized(_ key: some StringProtocol) -> String {
    var result = ""
    result.reserveCapacity(key.utf8.count)
    for character in key.lowercased() where character != "-" && character != "_" {
      result.append(character)
    }
    return result
  }
}

/// Percent-decoding without Foundation, for names in queries and form bodies.
enum PercentDecoding {
  static func decode(_ text: some StringProtocol) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = Array(text.utf8)[...]
    while let byte = iterator.popFirst() {
      if byte == UInt8(ascii: "%"), iterator.count >= 2,
        let high = hexValue(iterator[iterator.startIndex]),
        let low = hexValue(iterator[iterator.startIndex + 1])
      {
        bytes.append(high << 4 | low)
        iterator = iterator.dropFirst(2)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
