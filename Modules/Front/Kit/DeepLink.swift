/// A link into the app, such as `trellis://tasks/2` or `trellis://compose?project=1`: a path
/// of segments and a query, parsed strictly (bounded length, plain characters only).
public struct DeepLink: Equatable, Sendable {
  /// The longest link accepted, in characters.
  public static let maximumLength = 512
  /// The most path segments and query items accepted.
  public static let maximumParts = 16

  /// The path's segments: `["tasks", "2"]`.
  public var path: [String]
  /// The query's items: `["project": "1"]`.
  public var query: [String: String]

  /// Parses `text`, which must use `scheme` (`trellis://...`).
  ///
  /// - Throws: ``DeepLinkError`` when the text is too long, has another scheme, or has a
  ///   character other than letters, digits, `-`, `_` and `.` in a segment, name or value.
  public init(parsing text: String, scheme: String) throws(DeepLinkError) {
    guard text.count <= Self.maximumLength else {
      throw DeepLinkError("the link is longer than \(Self.maximumLength) characters")
    }
    let prefix = scheme + "://"
    guard text.lowercased().hasPrefix(prefix.lowercased()) else {
      throw DeepLinkError("\"\(Self.shown(text))\" is not a link of this app (\(prefix)...)")
    }
    let rest = text.dropFirst(prefix.count)
    let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    path = parts[0].split(separator: "/").map(String.init)
    query = [:]
    let items = parts.count > 1 ? parts[1].split(separator: "&").map(String.init) : []
    guard path.count <= Self.maximumParts, items.count <= Self.maximumParts else {
      throw DeepLinkError("the link has too many parts")
    }
    for segment in path where !Self.isPlain(segment) {
      throw DeepLinkError("\"\(Self.shown(segment))\" is not a valid part of a link")
    }
    for item in items {
      let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = String(pair[0])
      let value = pair.count > 1 ? String(pair[1]) : ""
      guard Self.isPlain(name), value.isEmpty || Self.isPlain(value) else {
        throw DeepLinkError("\"\(Self.shown(item))\" is not a valid query item")
      }
      query[name] = value
    }
  }

  private static func isPlain(_ text: String) -> Bool {
    !text.isEmpty
      && text.allSatisfy {
        $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".")
      }
  }

  /// `text` as an error message quotes it: at most 60 characters, control characters
  /// replaced.
  static func shown(_ text: some StringProtocol) -> String {
    let clean = text.prefix(60).map {
      $0.isASCII && $0.asciiValue.map { $0 < 0x20 } == true ? "?" : $0
    }
    return String(clean) + (text.count > 60 ? "…" : "")
  }
}

/// Why a link cannot be opened; the message says it for people.
public struct DeepLinkError: Error, Equatable, CustomStringConvertible {
  /// The explanation.
  public var message: String

  /// Creates an error.
  public init(_ message: String) {
    self.message = message
  }

  /// The explanation.
  public var description: String { message }
}

/// Opens links: each registered pattern (`tasks/:id`) builds the screens to show above the
/// signed-in area's home, which the router is given while it shows (``attach(_:)``). A link
/// opened while signed out waits, and opens after sign-in.
///
/// ```swift
/// router.register("tasks/:id") { link in
///   [makeTaskListViewController(), makeTaskDetailViewController(taskID: try link.int("id"))]
/// }
/// try router.open("trellis://tasks/2")
/// ```
@MainActor
public final class DeepLinkRouter {
  /// A matched link: its path parameters and query.
  public struct Match: Sendable, Equatable {
    /// The link as given.
    public var link: String
    /// The values of the pattern's `:name` segments.
    public var parameters: [String: String]
    /// The query's items.
    public var query: [String: String]

    /// The parameter or query item `name` as a positive number.
    public func int(_ name: String) throws(DeepLinkError) -> Int {
      guard let text = parameters[name] ?? query[name] else {
        throw DeepLinkError("the link \(DeepLink.shown(link)) needs \(name)")
      }
      guard let value = Int(text), value > 0 else {
        throw DeepLinkError("\(name) must be a positive number, not \"\(DeepLink.shown(text))\"")
      }
      return value
    }

    /// The parameter or query item `name` as a positive number, if the link has it.
    public func optionalInt(_ name: String) throws(DeepLinkError) -> Int? {
      guard parameters[name] != nil || query[name] != nil else { return nil }
      return try int(name)
    }
  }

  /// Builds the screens a link shows, above the home screen.
  public typealias Destination = @MainActor (Match) throws(DeepLinkError) -> [ViewController]

  /// The links' scheme: `trellis` in `trellis://tasks/2`.
  public let scheme: String
  private var routes: [(pattern: [String], destination: Destination)] = []
  private var presenter: (@MainActor ([ViewController]) -> Void)?
  private var pending: (match: Match, destination: Destination)?

  /// Creates a router for links with `scheme`.
  public init(scheme: String) {
    self.scheme = scheme
  }

  /// The patterns registered, for messages: `tasks/:id`.
  public var patterns: [String] { routes.map { $0.pattern.joined(separator: "/") } }

  /// The link waiting for sign-in, if any.
  public var pendingLink: String? { pending?.match.link }

  /// Adds a route: `pattern`'s segments are literal or `:name` parameters; the first matching
  /// route wins.
  public func register(_ pattern: String, _ destination: @escaping Destination) {
    routes.append((pattern.split(separator: "/").map(String.init), destination))
  }

  /// Shows `link`'s screens now if the signed-in area is showing, else after sign-in.
  ///
  /// - Throws: ``DeepLinkError`` when the link is malformed or matches no route (the message
  ///   lists the routes), or its destination refuses it (a parameter that is not a number).
  public func open(_ link: String) throws(DeepLinkError) {
    let parsed = try DeepLink(parsing: link, scheme: scheme)
    guard let (match, destination) = match(parsed, link: link) else {
      let known = patterns.map { "\(scheme)://\($0)" }.joined(separator: ", ")
      throw DeepLinkError("no screen answers \(DeepLink.shown(link)) (links: \(known))")
    }
    guard let presenter else {
      // Checked now (a bad parameter is reported at once), shown after sign-in.
      _ = try destination(match)
      pending = (match, destination)
      return
    }
    presenter(try destination(match))
  }

  /// The signed-in area shows: links open through `presenter` (given the screens to show above
  /// home); a link that waited opens now.
  public func attach(_ presenter: @escaping @MainActor ([ViewController]) -> Void) {
    self.presenter = presenter
    guard let (match, destination) = pending else { return }
    pending = nil
    if let screens = try? destination(match) { presenter(screens) }
  }

  /// The signed-in area is gone (signed out): links wait again.
  public func detach() {
    presenter = nil
  }

  private func match(_ link: DeepLink, link text: String) -> (Match, Destination)? {
    for route in routes where route.pattern.count == link.path.count {
      var parameters: [String: String] = [:]
      var matches = true
      for (pattern, segment) in zip(route.pattern, link.path) {
        if pattern.hasPrefix(":") {
          parameters[String(pattern.dropFirst())] = segment
        } else if pattern.lowercased() != segment.lowercased() {
          matches = false
          break
        }
      }
      if matches {
        return (Match(link: text, parameters: parameters, query: link.query), route.destination)
      }
    }
    return nil
  }
}
