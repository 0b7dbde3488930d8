/// The one-shot outputs most screens need, presented by the Front without code of its own: a
/// reactor whose only events are these declares `public typealias Event = ScreenEvent`, and
/// `ReactorViewController` shows them. A screen with events of its own (navigation) declares
/// its own `Event` and handles it in `handle(event:)`.
public enum ScreenEvent: Sendable, Equatable {
  /// A short confirmation at the bottom of the window.
  case toast(String)
  /// An alert the user dismisses.
  case alert(title: String, message: String)
}
