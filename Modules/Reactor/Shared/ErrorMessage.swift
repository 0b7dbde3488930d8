import TrellisService

/// How a screen words an error for the user: a service's own message, or a generic sentence.
public enum ErrorMessage {
  /// The message to show for `error`. A refusal that names fields (a server's validation)
  /// says which and why, with each field as the user knows it: `labels` maps the server's
  /// field names to them (`"displayName": "Display name"`); a field not in it is named as the
  /// server names it.
  public static func text(for error: any Error, labels: [String: String] = [:]) -> String {
    guard let error = error as? ServiceError else { return "Something went wrong: \(error)" }
    let problems = fieldProblems(in: error, labels: labels)
    guard !problems.isEmpty else { return error.message }
    return error.message + " "
      + problems.map { "\($0.label): \($0.problem)." }
      .joined(separator: " ")
  }

  /// Each field a refusal names, as the user knows it (`labels`, else the server's name),
  /// with what is wrong with it, sorted by the server's field name.
  public static func fieldProblems(
    in error: any Error, labels: [String: String] = [:]
  ) -> [(field: String, label: String, problem: String)] {
    guard let error = error as? ServiceError else { return [] }
    return error.fields.sorted { $0.key < $1.key }.map { field, problem in
      (field, labels[field] ?? field, problem)
    }
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
