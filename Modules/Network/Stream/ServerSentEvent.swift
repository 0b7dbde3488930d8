/// One event of a `text/event-stream` (server-sent events).
public struct ServerSentEvent: Sendable, Equatable {
  /// The event's `id`, or the last id seen on the stream; sent back as `Last-Event-ID` when
  /// reconnecting.
  public var id: String?
  /// The event type (`event:` field); `"message"` when the server gives none.
  public var event: String
  /// The data lines, joined with newlines.
  public var data: String
  /// The reconnection delay the server asked for with this event (`retry:` field).
  public var retry: Duration?

  /// Creates an event.
  public init(id: String? = nil, event: String = "message", data: String, retry: Duration? = nil) {
    self.id = id
    self.event = event
    self.data = data
    self.retry = retry
  }
}

/// Parses a `text/event-stream` incrementally, as the WHATWG HTML standard specifies:
/// lines end with CRLF, LF or CR (even split across chunks), `:` starts a comment, an empty
/// line dispatches the event, `data:` lines accumulate, `id:` persists across events.
public struct ServerSentEventParser: Sendable {
  private var buffer: [UInt8] = []
  private var skipsNextLineFeed = false
  private var isAtStart = true
  private var eventType = ""
  private var data = ""
  private var hasData = false
  private var retry: Duration?
  /// The last event id seen (the standard's "last event ID buffer").
  public private(set) var lastEventID: String?

  /// Creates a parser with no last event id.
  public init() {}

  /// Feeds bytes as they arrive; returns the events they complete, in order.
  public mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
    var events: [ServerSentEvent] = []
    for byte in bytes {
      if skipsNextLineFeed {
        skipsNextLineFeed = false
        if byte == UInt8(ascii: "\n") { continue }
      }
      switch byte {
      case UInt8(ascii: "\r"):
        skipsNextLineFeed = true
        if let event = processLine() { events.append(event) }
      case UInt8(ascii: "\n"):
        if let event = processLine() { events.append(event) }
      default:
        buffer.append(byte)
      }
    }
    return events
  }

  private mutating func processLine() -> ServerSentEvent? {
    var line = String(decoding: buffer, as: UTF8.self)
    buffer.removeAll(keepingCapacity: true)
    if isAtStart {
      isAtStart = false
      if line.hasPrefix("\u{FEFF}") { line.removeFirst() }
    }
    if line.isEmpty { return dispatch() }
    if line.hasPrefix(":") { return nil }
    let field: Substring
    var value: Substring
    if let colon = line.firstIndex(of: ":") {
      field = line[..<colon]
      value = line[line.index(after: colon)...]
      if value.hasPrefix(" ") { value = value.dropFirst() }
    } else {
      field = line[...]
      value = ""
    }
    switch field {
    case "event":
      eventType = String(value)
    case "data":
      if hasData { data += "\n" }
      data += value
      hasData = true
    case "id":
      if !value.contains("\u{0}") { lastEventID = String(value) }
    case "retry":
      if !value.isEmpty, value.allSatisfy(\.isASCII), let milliseconds = Int(value) {
        retry = .milliseconds(milliseconds)
      }
    default:
      break
    }
    return nil
  }

  private mutating func dispatch() -> ServerSentEvent? {
    defer {
      eventType = ""
      data = ""
      hasData = false
      retry = nil
    }
    guard hasData else { return nil }
    return ServerSentEvent(
      id: lastEventID, event: eventType.isEmpty ? "message" : eventType, data: data, retry: retry)
  }
}
