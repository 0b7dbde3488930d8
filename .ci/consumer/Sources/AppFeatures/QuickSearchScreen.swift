import TrellisCore

/// SwiftUI's `Binding`, as far as a screen uses it: what `TextField(_:text:)` takes. (The app
/// imports SwiftUI instead; this package builds where SwiftUI does not exist.)
public struct Binding<Value> {
  /// Reads the value.
  public let get: () -> Value
  /// Writes the value.
  public let set: (Value) -> Void

  /// A binding from a getter and a setter.
  public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {
    self.get = get
    self.set = set
  }
}

/// What a SwiftUI search screen's `body` reads and writes of its reactor, written as the view
/// writes it: the state property by property (each read is tracked on its own), the field
/// bound through an action, and a button's action sent.
@MainActor
public struct QuickSearchScreen {
  /// The screen's reactor, made by the composition root.
  public let reactor: QuickSearchReactor

  /// The screen of `reactor`.
  public init(reactor: QuickSearchReactor) {
    self.reactor = reactor
  }

  /// The field's binding: `TextField("Search", text: field)`.
  public var field: Binding<String> {
    let query = reactor.binding(\.query, send: QuickSearchReactor.Action.type)
    return Binding(get: { query.value }, set: { query.value = $0 })
  }

  /// The rows: `ForEach(rows, id: \.self) { Text($0) }`.
  public var rows: [String] { reactor.state.results }

  /// The clear button: `Button("Clear") { clear() }`.
  public func clear() {
    reactor.send(.clear)
  }
}
