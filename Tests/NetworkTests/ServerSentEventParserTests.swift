import Foundation
import Testing
import TrellisCoreTesting
import TrellisNetwork

@Suite("Server-sent event parsing", .capturesLogs)
struct ServerSentEventParserTests {
  private func parse(_ chunks: [String]) throws -> [ServerSentEvent] {
    var parser = ServerSentEventParser()
    return try chunks.flatMap { try parser.feed(Array($0.utf8)) }
  }

  @Test func dispatchesOnABlankLine() throws {
    #expect(try parse(["data: hello\n\n"]) == [ServerSentEvent(data: "hello")])
    #expect(try parse(["data: hello\n"]).isEmpty)  // not dispatched yet
  }

  @Test func joinsDataLinesAndReadsEventTypesAndIDs() throws {
    let events = try parse(["id: 7\nevent: task.created\ndata: {\"id\":1,\ndata: \"x\":2}\n\n"])
    #expect(
      events == [ServerSentEvent(id: "7", event: "task.created", data: "{\"id\":1,\n\"x\":2}")])
  }

  @Test func acceptsEveryLineEndingEvenSplitAcrossChunks() throws {
    let events = try parse(["data: a\r", "\n\r", "\ndata: b\r\rdata: c\n", "\n"])
    #expect(events.map(\.data) == ["a", "b", "c"])
  }

  @Test func handlesChunksSplitInsideAMultibyteCharacter() throws {
    let bytes = Array("data: 안녕\n\n".utf8)
    var parser = ServerSentEventParser()
    var events: [ServerSentEvent] = []
    for byte in bytes { events += try parser.feed([byte]) }
    #expect(events.map(\.data) == ["안녕"])
  }

  @Test func ignoresCommentsAndUnknownFieldsAndOneLeadingSpace() throws {
    let events = try parse([": keep-alive\nfoo: bar\ndata:  two spaces\ndata:none\n\n"])
    #expect(events.map(\.data) == [" two spaces\nnone"])
  }

  @Test func theLastEventIDPersistsUntilChanged() throws {
    var parser = ServerSentEventParser()
    let events = try parser.feed(Array("id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n".utf8))
    #expect(events.map(\.id) == ["1", "1", "2"])
    #expect(parser.lastEventID == "2")
  }

  @Test func readsRetryOnlyWhenItIsDigits() throws {
    let events = try parse(["retry: 1500\ndata: a\n\nretry: soon\ndata: b\n\n"])
    #expect(events.map(\.retry) == [.milliseconds(1500), nil])
  }

  @Test func anEventWithoutDataIsNotDispatched() throws {
    #expect(try parse(["event: ping\n\n"]).isEmpty)
  }

  @Test func skipsALeadingByteOrderMark() throws {
    #expect(try parse(["\u{FEFF}data: x\n\n"]).map(\.data) == ["x"])
  }

  @Test func lastEventIDNamesOnlyDispatchedEvents() throws {
    var parser = ServerSentEventParser()
    _ = try parser.feed(Array("id: 1\ndata: a\n\nid: 2\ndata: b\n".utf8))
    // Event 2 is not complete: reconnecting must ask for what follows event 1.
    #expect(parser.lastEventID == "1")
    // A new connection's parser starts from that id and never sees the cut event's data.
    var next = ServerSentEventParser(lastEventID: parser.lastEventID)
    let events = try next.feed(Array("id: 2\ndata: b\n\ndata: c\n\n".utf8))
    #expect(events == [ServerSentEvent(id: "2", data: "b"), ServerSentEvent(id: "2", data: "c")])
  }

  @Test(arguments: ["+5", "-5", "5a", " 5", "5.0", ""])
  func aRetryThatIsNotOnlyDigitsIsIgnored(value: String) throws {
    var parser = ServerSentEventParser()
    let events = try parser.feed(Array("retry: \(value)\ndata: a\n\n".utf8))
    #expect(events.first?.retry == nil)
    #expect(parser.reconnectionTime == nil)
  }

  @Test func aHugeRetrySaturatesInsteadOfOverflowing() throws {
    var parser = ServerSentEventParser()
    _ = try parser.feed(Array("retry: 99999999999999999999999999\n".utf8))
    #expect(parser.reconnectionTime == .milliseconds(Int.max))
  }

  @Test func aLineOrAnEventOverTheLimitIsATypedError() {
    var lines = ServerSentEventParser(maximumLineLength: 100)
    #expect(throws: ServerSentEventError.lineTooLong(limit: 100)) {
      _ = try lines.feed(Array(("data: " + String(repeating: "x", count: 200)).utf8))
    }
    var events = ServerSentEventParser(maximumLineLength: 100, maximumEventSize: 250)
    let line = "data: " + String(repeating: "y", count: 90) + "\n"
    #expect(throws: ServerSentEventError.eventTooLarge(limit: 250)) {
      _ = try events.feed(Array(String(repeating: line, count: 5).utf8))
    }
  }
}
