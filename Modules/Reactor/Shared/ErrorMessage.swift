import TrellisService

/// How a screen words an error for the user: a service's own message, or a generic sentence.
public enum ErrorMessage {
  /// The message to show for `error`.
  public static func text(for error: any Error) -> String {
    (error as? ServiceError)?.message ?? "Something went wrong: \(error)"
  }

  /// Whether `error` says the server could not be reached: a state to show (the draft is
  /// kept, the list stays), not a failure to apologise for.
  public static func isOffline(_ error: any Error) -> Bool {
    (error as? ServiceError)?.kind == .offline
  }

  /// The alert for a change that could not be sent because the app is offline: `what` was
  /// not saved, and everything entered is kept for the next try.
  public static func offlineAlert(_ what: String, retry: String = "save again")
    -> (title: String, message: String)
  {
    (
      "You are offline",
      "\(what) Everything you entered is kept: \(retry) when the connection is back."
    )
  }
}
