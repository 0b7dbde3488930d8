import Foundation

/// An opt-in trace of what a reactor does (the known design is TCA's `_printChanges`): each
/// action, each mutation, and what changed in the state, written to the reactor's `logger` at
/// `info` level:
///
/// ```
/// [info] [LoginViewReactor] action setUsername("alice")
/// [info] [LoginViewReactor] mutation setUsername("alice")
/// [info] [LoginViewReactor] state username: "" -> "alice"
/// [info] [LoginViewReactor] action setPassword(<redacted>)
/// [info] [LoginViewReactor] state password: <redacted> (changed)
/// ```
///
/// Enabled per reactor type, by name: `TRELLIS_TRACE=LoginViewReactor,TaskListViewReactor`
/// in the environment (`*` for all), or ``enable(_:)`` (the app's `--trace NAME`). Payloads
/// and properties whose names are secrets (``SecretRedactor``: `password`, `token`...) are
/// written `<redacted>`, at any depth. A reactor not traced pays nothing: tracing is installed
/// when the reactor starts, through the same hooks as `transform`, or not at all.
public enum ReactorTrace {
  /// The environment variable that lists the traced reactor types.
  public static let environmentVariable = "TRELLIS_TRACE"

  private static let names = Lock<Set<String>?>(nil)
  /// The reactor types that started while a trace was asked for (to report a name that
  /// matched none).
  private static let started = Lock<Set<String>>([])

  /// Traces the reactor types named in `names` (`"*"` traces every reactor), besides those
  /// the environment names. Reactors already started are not affected.
  public static func enable(_ names: some Sequence<String>) {
    let added = Set(names)
    self.names.withLock { current in
      current = (current ?? fromEnvironment()).union(added)
    }
  }

  /// Stops tracing the reactor types named in `names` (reactors already started keep their
  /// trace).
  public static func disable(_ names: some Sequence<String>) {
    let removed = Set(names)
    self.names.withLock { current in
      current = (current ?? fromEnvironment()).subtracting(removed)
    }
  }

  /// Whether reactors of type `type` are traced.
  public static func isEnabled(for type: Any.Type) -> Bool {
    let name = String(describing: type)
    let (isTraced, isAsked) = names.withLock { current in
      let enabled = current ?? fromEnvironment()
      current = enabled
      return (enabled.contains(name) || enabled.contains("*"), !enabled.isEmpty)
    }
    if isAsked { started.withLock { _ = $0.insert(name) } }
    return isTraced
  }

  /// The names asked to be traced that no reactor started so far was called (a misspelt
  /// `--trace Login`), and the reactor types that did start, sorted: for the app to report
  /// instead of tracing nothing in silence.
  public static func namesThatMatchedNothing() -> (unmatched: [String], started: [String]) {
    let asked = names.withLock { $0 ?? fromEnvironment() }
    let started = started.withLock { $0 }
    return (asked.subtracting(started).subtracting(["*"]).sorted(), started.sorted())
  }

  private static func fromEnvironment() -> Set<String> {
    let value = ProcessInfo.processInfo.environment[environmentVariable] ?? ""
    return Set(
      value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
        !$0.isEmpty
      })
  }

  // MARK: Describing values

  /// The most characters one value takes in a trace line.
  static let valueLimit = 120
  /// How deep nested values are described.
  static let depthLimit = 4
  /// How many elements of a collection are described.
  static let elementLimit = 8

  /// `value` as a trace shows it: enum cases with their payloads, structs with their
  /// properties, collections with their first elements; anything under a secret name (a
  /// property, a payload label, or an enum case such as `setPassword`) as `<redacted>`.
  public static func describe(_ value: Any, redactor: SecretRedactor = .standard) -> String {
    let text = describe(value, redactor: redactor, depth: 0)
    return text.count > valueLimit ? String(text.prefix(valueLimit - 1)) + "…" : text
  }

  private static func describe(_ value: Any, redactor: SecretRedactor, depth: Int) -> String {
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .enum:
      let name = LogMessage.caseName(of: value)
      guard let payload = mirror.children.first?.value else { return name }
      if redactor.isSensitive(name) { return "\(name)(\(LogMessage.redactedPlaceholder))" }
      guard depth < depthLimit else { return "\(name)(…)" }
      let inner = Mirror(reflecting: payload)
      if inner.displayStyle == .tuple {
        return "\(name)(\(fields(of: inner, redactor: redactor, depth: depth + 1)))"
      }
      return "\(name)(\(describe(payload, redactor: redactor, depth: depth + 1)))"
    case .optional:
      guard let wrapped = mirror.children.first?.value else { return "nil" }
      return describe(wrapped, redactor: redactor, depth: depth)
    case .collection, .set:
      guard depth < depthLimit else { return "[…]" }
      let elements = mirror.children.prefix(elementLimit).map {
        describe($0.value, redactor: redactor, depth: depth + 1)
      }
      let more = mirror.children.count > elementLimit ? ", … \(mirror.children.count) in all" : ""
      return "[\(elements.joined(separator: ", "))\(more)]"
    case .dictionary:
      return "[\(mirror.children.count) entries]"
    case .struct, .class, .tuple:
      // A type that prints itself chose what to show (and redacts its own secrets).
      if let printable = value as? any CustomStringConvertible, mirror.displayStyle != .tuple {
        return printable.description
      }
      guard depth < depthLimit else { return "\(type(of: value))(…)" }
      return "\(mirror.displayStyle == .tuple ? "" : "\(type(of: value))")("
        + fields(of: mirror, redactor: redactor, depth: depth + 1) + ")"
    default:
      if let text = value as? String { return "\"\(text)\"" }
      return String(describing: value)
    }
  }

  private static func fields(of mirror: Mirror, redactor: SecretRedactor, depth: Int) -> String {
    mirror.children.prefix(elementLimit).map { child in
      let value =
        child.label.map { redactor.isSensitive($0) } == true
        ? LogMessage.redactedPlaceholder : describe(child.value, redactor: redactor, depth: depth)
      guard let label = child.label, !label.hasPrefix(".") else { return value }
      return "\(label): \(value)"
    }.joined(separator: ", ")
  }

  /// The properties that differ between `old` and `new`, one `name: old -> new` each (a
  /// secret one as `name: <redacted> (changed)`); the whole value when it has no properties.
  public static func changes(
    from old: Any, to new: Any, redactor: SecretRedactor = .standard
  ) -> [String] {
    let before = Mirror(reflecting: old)
    let after = Mirror(reflecting: new)
    guard before.displayStyle == .struct || before.displayStyle == .class,
      before.children.count == after.children.count
    else {
      let (was, now) = (describe(old, redactor: redactor), describe(new, redactor: redactor))
      return was == now ? [] : ["\(was) -> \(now)"]
    }
    var lines: [String] = []
    for (was, now) in zip(before.children, after.children) {
      let label = was.label ?? "?"
      let (oldText, newText) = (
        describe(was.value, redactor: redactor), describe(now.value, redactor: redactor)
      )
      guard oldText != newText else { continue }
      lines.append(
        redactor.isSensitive(label)
          ? "\(label): \(LogMessage.redactedPlaceholder) (changed)"
          : "\(label): \(oldText) -> \(newText)")
    }
    return lines
  }
}

/// The trace of one reactor: installed by its runtime on start when its type is traced.
@MainActor
@usableFromInline
final class ReactorTracer<R: ReactorProtocol> {
  private let logger: Logger
  private var last: R.State

  init(logger: Logger, initialState: R.State) {
    self.logger = logger
    last = initialState
  }

  @usableFromInline
  func action(_ action: R.Action) {
    logger.info("action \(ReactorTrace.describe(action))")
  }

  @usableFromInline
  func mutation(_ mutation: R.Mutation) {
    logger.info("mutation \(ReactorTrace.describe(mutation))")
  }

  @usableFromInline
  func state(_ state: R.State) {
    let changes = ReactorTrace.changes(from: last, to: state)
    last = state
    guard !changes.isEmpty else { return }
    logger.info("state \(changes.joined(separator: "; "))")
  }
}
