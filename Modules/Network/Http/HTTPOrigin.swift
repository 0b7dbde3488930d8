import Foundation

/// A URL's origin: scheme, host and port, as the WHATWG URL standard defines it. Two URLs
/// with the same origin belong to the same server; a credential for one is not sent to
/// another.
public struct HTTPOrigin: Sendable, Hashable, CustomStringConvertible {
  /// The scheme, lowercased: `http` or `https`.
  public var scheme: String
  /// The host, lowercased.
  public var host: String
  /// The port, the scheme's default when the URL names none.
  public var port: Int

  /// The origin of `url`; `nil` when it has no scheme or host.
  public init?(_ url: URL) {
    guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty
    else { return nil }
    self.scheme = scheme
    self.host = host
    port = url.port ?? Self.defaultPort(of: scheme)
  }

  /// `scheme://host:port`.
  public var description: String { "\(scheme)://\(host):\(port)" }

  /// Whether the host is this machine's loopback interface (`localhost`, `127.0.0.0/8`,
  /// `::1`), where plain `http` cannot be read by anyone else on the network.
  public var isLoopback: Bool {
    if host == "localhost" || host.hasSuffix(".localhost") { return true }
    if host == "::1" || host == "[::1]" { return true }
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
  }

  private static func defaultPort(of scheme: String) -> Int {
    switch scheme {
    case "https", "wss": 443
    case "http", "ws": 80
    default: -1
    }
  }
}
