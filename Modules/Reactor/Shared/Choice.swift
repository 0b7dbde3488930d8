/// Something a screen lists or lets the user pick: a project, a milestone, a tag, a member, a
/// task, an attachment.
///
/// Reactor states hold choices rather than Service models, so the Front layer, which sees only
/// Reactor types, can render them: the reactor decides what a row says.
public struct Choice: Sendable, Equatable, Identifiable {
  /// The id of the thing chosen.
  public var id: Int
  /// What the row says.
  public var title: String
  /// Secondary text, shown dimmed.
  public var detail: String

  /// Creates a choice.
  public init(id: Int, title: String, detail: String = "") {
    self.id = id
    self.title = title
    self.detail = detail
  }
}
