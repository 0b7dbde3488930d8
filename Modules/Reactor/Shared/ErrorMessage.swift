import Service

/// How a screen words an error for the user: a service's own message, or a generic sentence.
public enum ErrorMessage {
  /// The message to show for `error`.
  public static func text(for error: any Error) -> String {
    (error as? ServiceError)?.message ?? "Something went wrong: \(error)"
  }
}
