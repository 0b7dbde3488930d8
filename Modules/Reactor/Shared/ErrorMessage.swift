import TrellisService

/// How a screen words an error for the user: a service's own message, or a generic sentence.
public enum ErrorMessage {
  /// The message to show for `error`. A refusal that names fields (a server's validation)
  /// says which and why, with each field as the user knows it: `labels` maps the server's
  /// field names to them (`"displayName": "Display name"`); a field not in it is named as the
  /// server names it.
  public static func text(for error: any Error, labels: [String: String] = [:]) -> String {
    guard let error = error as? ServiceError else { return "Something went wrong: \(error)" }
    // Each field by the server's name, sorted, as the user knows it.
    let problems = error.fields.sorted { $0.key < $1.key }.map { field, problem in
      "\(labels[field] ?? field): \(problem)."
    }
    return ([error.message] + problems).joined(separator: " ")
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
