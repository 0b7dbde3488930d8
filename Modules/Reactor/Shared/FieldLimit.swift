/// How long a text field may be: one value that the reactor checks before it saves and the view
/// gives its field (which shows the count and stops typing there), so the two never disagree.
/// The demo server checks the same numbers on its side (`DemoBackend+Tasks.swift`,
/// `DemoBackend+Projects.swift`).
public struct FieldLimit: Sendable, Equatable {
  /// The field's name as the user sees it: "Title".
  public let name: String
  /// The most characters it takes.
  public let maximumLength: Int

  /// A limit of `maximumLength` characters on the field the user knows as `name`.
  public init(_ name: String, maximumLength: Int) {
    self.name = name
    self.maximumLength = maximumLength
  }

  /// What is wrong with `text`, if anything: "Title is 130 characters long; the most is 120."
  public func problem(with text: String) -> String? {
    guard text.count > maximumLength else { return nil }
    return "\(name) is \(text.count) characters long; the most is \(maximumLength)."
  }
}
