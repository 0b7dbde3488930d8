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

/// Why an event stream was refused.
public enum ServerSentEventError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A line was longer than the parser accepts.
  case lineTooLong(limit: Int)
  /// An event's data was larger than the parser accepts.
  case eventTooLarge(limit: Int)

  /// A one-line explanation.
  public var description: String {
    switch self {
    case .lineTooLong(let limit): "the server sent a line longer than \(limit) bytes"
    case .eventTooLarge(let limit): "the server sent an event larger than \(limit) bytes"
    }
  }
}

/// Parses one connection's `text/event-stream` incrementally, as the WHATWG HTML standard
/// specifies: lines end with CRLF, LF or CR (even split across chunks), `:` starts a comment,
/// an empty line dispatches the event, `data:` lines accumulate, `id:` persists across events,
/// `retry:` is honoured only when it is all ASCII digits.
///
/// Use a new parser for each connection, seeded with the previous one's ``lastEventID``: an
/// event that was not complete when a connection ended is discarded with its parser, never
/// glued onto the next connection's first event.
///
/// Memory is bounded: a line longer than `maximumLineLength` or an event whose data grows past
/// `maximumEventSize` throws ``ServerSentEventError`` instead of growing without end.
public struct ServerSentEventParser: Sendable {
  private var buffer: [UInt8] = []
  private var skipsNextLineFeed = false
  private var isAtStart = true
  private var eventType = ""
  private var data = ""
  private var hasData = false
  private var retry: Duration?
  /// The id of the event being read (the standard's "last event ID buffer").
  private var idBuffer: String?
  /// The id as of the last dispatch (the standard's "last event ID string"): what to send as
  /// `Last-Event-ID` on reconnecting. An event that never completed does not change it.
  public private(set) var lastEventID: String?
  /// The longest line accepted, in bytes.
  public let maximumLineLength: Int
  /// The largest event data accepted, in bytes.
  public let maximumEventSize: Int
  /// The reconnection delay the server last asked for with `retry:`, applied at once (it does
  /// not wait for an event to complete); `nil` until it asks.
  public private(set) var reconnectionTime: Duration?

  /// Creates a parser for one connection.
  ///
  /// - Parameters:
  ///   - lastEventID: The id the previous connection's parser had dispatched, if any.
  ///   - maximumLineLength: The longest line accepted (default 64 KiB).
  ///   - maximumEventSize: The largest event data accepted (default 1 MiB).
  public init(
    lastEventID: String? = nil, maximumLineLength: Int = 64 * 1024,
    maximumEventSize: Int = 1024 * 1024
  ) {
    self.lastEventID = lastEventID
    idBuffer = lastEventID
    self.maximumLineLength = maximumLineLength
    self.maximumEventSize = maximumEventSize
  }

  /// Feeds bytes as they arrive; returns the events they complete, in order.
  ///
  /// - Throws: ``ServerSentEventError`` when a line or an event is over its limit; the
  ///   connection should then be closed.
  public mutating func feed(_ bytes: some Sequence<UInt8>) throws(ServerSentEventError)
    -> [ServerSentEvent]
  {
    var events: [ServerSentEvent] = []
    for byte in bytes {
      if skipsNextLineFeed {
        skipsNextLineFeed = false
        if byte == UInt8(ascii: "\n") { continue }
      }
      switch byte {
      case UInt8(ascii: "\r"):
        skipsNextLineFeed = true
        if let event = try processLine() { events.append(event) }
      case UInt8(ascii: "\n"):
        if let event = try processLine() { events.append(event) }
      default:
        guard buffer.count < maximumLineLength else {
          throw .lineTooLong(limit: maximumLineLength)
        }
        buffer.append(byte)
      }
    }
    return events
  }

  private mutating func processLine() throws(ServerSentEventError) -> ServerSentEvent? {
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
      guard data.utf8.count + value.utf8.count + 1 <= maximumEventSize else {
        throw .eventTooLarge(limit: maximumEventSize)
      }
      if hasData { data += "\n" }
      data += value
      hasData = true
    case "id":
      if !value.contains("\u{0}") { idBuffer = String(value) }
    case "retry":
      if let milliseconds = Self.digits(value) {
        retry = .milliseconds(milliseconds)
        reconnectionTime = retry
      }
    default:
      break
    }
    return nil
  }

  /// The value as a base-ten integer when it is only ASCII digits (saturating instead of
  /// overflowing); `nil` otherwise, as the standard says to ignore it.
  private static func digits(_ value: Substring) -> Int? {
    guard !value.isEmpty else { return nil }
    var result = 0
    for byte in value.utf8 {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      let (times, overflow) = result.multipliedReportingOverflow(by: 10)
      let (sum, overflowAgain) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
      result = overflow || overflowAgain ? Int.max : sum
    }
    return result
  }

  private mutating func dispatch() -> ServerSentEvent? {
    lastEventID = idBuffer
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
