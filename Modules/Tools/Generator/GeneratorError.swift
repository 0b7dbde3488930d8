/// Why the generator refused or failed. The message says what to do.
public struct GeneratorError: Error, Equatable, CustomStringConvertible {
  /// The explanation.
  public var message: String

  /// Creates an error.
  public init(_ message: String) {
    self.message = message
  }

  /// The explanation.
  public var description: String { message }
}
