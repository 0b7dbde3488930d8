/// Percent-encoding as RFC 3986 defines it, for values that go into a URL's path or query.
///
/// Everything but the unreserved characters (`A-Z a-z 0-9 - . _ ~`) is encoded, as the UTF-8
/// bytes of the character: a value reaches the server as the text it was, whatever it holds
/// (`/`, `?`, `#`, `%`, `&`, `=`, `+`, spaces, any script). An endpoint that builds its path from
/// values with ``pathSegment(_:)`` says so with ``HTTPEndpoint/isPathPercentEncoded``, and one
/// that builds its query items with ``encode(_:)`` with ``HTTPEndpoint/isQueryPercentEncoded``:
/// the requester then sends them as they are, never encoding a `%` a second time.
public enum PercentEncoding {
  /// `text` with every character but the unreserved ones percent-encoded.
  public static func encode(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      if isUnreserved(byte) {
        result.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        result += "%" + hexDigit(byte >> 4) + hexDigit(byte & 0x0F)
      }
    }
    return result
  }

  /// `text` as one segment of a path: encoded (a `/` in it is `%2F`, so it stays one segment),
  /// and a segment of only dots (`.`, `..`) with its dots encoded too, so that nothing between
  /// the app and the server takes it for "this folder" or "the folder above".
  public static func pathSegment(_ text: String) -> String {
    let encoded = encode(text)
    guard !text.isEmpty, text.allSatisfy({ $0 == "." }) else { return encoded }
    return String(repeating: "%2E", count: text.count)
  }

  /// Whether `text` is a well-formed percent-encoded path: only the characters RFC 3986 allows
  /// in one (unreserved, sub-delimiters, `:`, `@`, `/`), and every `%` followed by two
  /// hexadecimal digits.
  public static func isWellFormedPath(_ text: String) -> Bool {
    isWellFormed(text) { byte in
      subDelimiters.contains(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
        || byte == UInt8(ascii: "/")
    }
  }

  /// Whether `text` is a well-formed percent-encoded name or value of a query item: as in a
  /// path, less what separates items or reads as a space (`&`, `=`, `+`), plus `?`.
  public static func isWellFormedQueryPart(_ text: String) -> Bool {
    isWellFormed(text) { byte in
      (subDelimiters.contains(byte) && !"&=+".utf8.contains(byte)) || byte == UInt8(ascii: ":")
        || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?")
    }
  }

  private static func isWellFormed(_ text: String, alsoAllows allows: (UInt8) -> Bool) -> Bool {
    let bytes = Array(text.utf8)
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "%") {
        guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2])
        else { return false }
        index += 3
        continue
      }
      guard isUnreserved(byte) || allows(byte) else { return false }
      index += 1
    }
    return true
  }

  /// `! $ & ' ( ) * + , ; =`.
  private static let subDelimiters: Set<UInt8> = Set("!$&'()*+,;=".utf8)

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "_"), UInt8(ascii: "~"):
      true
    default: false
    }
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "F"),
      UInt8(ascii: "a")...UInt8(ascii: "f"):
      true
    default: false
    }
  }

  private static func hexDigit(_ value: UInt8) -> String {
    String(UnicodeScalar(value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10))
  }
}
