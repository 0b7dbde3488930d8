/// Whether an interpolated value may appear in a log line.
public enum LogPrivacy: Sendable {
  /// The value is written as is (the default).
  case `public`
  /// The value is replaced by `<redacted>`: tokens, passwords, personal data.
  case secret
  /// Only the name of the value's enum case is written, never its payload: `setPassword`
  /// for `.setPassword("hunter2")`. For actions, mutations and events, whose payloads may be
  /// anything the user typed. A value that is not an enum is written as its type's name.
  case caseName
}

/// A log message built by string interpolation, where each value can be marked secret.
///
/// ```swift
/// logger.info("Signed in as \(user.name) with token \(token, privacy: .secret)")
/// // Signed in as alice with token <redacted>
/// ```
///
/// Redaction happens when the message is built, so a secret never reaches a sink.
public struct LogMessage: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
  /// The text to write, secrets already redacted.
  public let description: String

  /// Creates a message from a literal without interpolations.
  public init(stringLiteral value: String) {
    description = value
  }

  /// Creates a message from an interpolation.
  public init(stringInterpolation: StringInterpolation) {
    description = stringInterpolation.output
  }

  /// The placeholder written in place of a secret value.
  public static let redactedPlaceholder = "<redacted>"

  /// The name of `value`'s enum case without its payload, or its type's name when it is not
  /// an enum.
  public static func caseName(of value: Any) -> String {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .enum else { return "\(type(of: value))" }
    if let label = mirror.children.first?.label { return label }
    // A case without a payload: its description is its name, unless the type prints itself.
    return value is any CustomStringConvertible || value is any CustomDebugStringConvertible
      ? "\(type(of: value))" : String(describing: value)
  }

  /// Builds a `LogMessage`, honouring `privacy:` on each interpolated value.
  public struct StringInterpolation: StringInterpolationProtocol {
    var output = ""

    /// Reserves room for the literal parts.
    public init(literalCapacity: Int, interpolationCount: Int) {
      output.reserveCapacity(literalCapacity + interpolationCount * 8)
    }

    /// Appends a literal segment.
    public mutating func appendLiteral(_ literal: String) {
      output += literal
    }

    /// Appends a value, or `<redacted>` when `privacy` is `.secret`.
    public mutating func appendInterpolation<Value>(_ value: Value, privacy: LogPrivacy = .public) {
      switch privacy {
      case .public: output += String(describing: value)
      case .secret: output += LogMessage.redactedPlaceholder
      case .caseName: output += LogMessage.caseName(of: value)
      }
    }
  }
}
