import Foundation
import Network
import Testing

@Suite("Server-sent event parsing")
struct ServerSentEventParserTests {
  private func parse(_ chunks: [String]) -> [ServerSentEvent] {
    var parser = ServerSentEventParser()
    return chunks.flatMap { parser.feed(Array($0.utf8)) }
  }

  @Test func dispatchesOnABlankLine() {
    #expect(parse(["data: hello\n\n"]) == [ServerSentEvent(data: "hello")])
    #expect(parse(["data: hello\n"]).isEmpty)  // not dispatched yet
  }

  @Test func joinsDataLinesAndReadsEventTypesAndIDs() {
    let events = parse(["id: 7\nevent: task.created\ndata: {\"id\":1,\ndata: \"x\":2}\n\n"])
    #expect(
      events == [ServerSentEvent(id: "7", event: "task.created", data: "{\"id\":1,\n\"x\":2}")])
  }

  @Test func acceptsEveryLineEndingEvenSplitAcrossChunks() {
    let events = parse(["data: a\r", "\n\r", "\ndata: b\r\rdata: c\n", "\n"])
    #expect(events.map(\.data) == ["a", "b", "c"])
  }

  @Test func handlesChunksSplitInsideAMultibyteCharacter() {
    let bytes = Array("data: 안녕\n\n".utf8)
    var parser = ServerSentEventParser()
    var events: [ServerSentEvent] = []
    for byte in bytes { events += parser.feed([byte]) }
    #expect(events.map(\.data) == ["안녕"])
  }

  @Test func ignoresCommentsAndUnknownFieldsAndOneLeadingSpace() {
    let events = parse([": keep-alive\nfoo: bar\ndata:  two spaces\ndata:none\n\n"])
    #expect(events.map(\.data) == [" two spaces\nnone"])
  }

  @Test func theLastEventIDPersistsUntilChanged() {
    var parser = ServerSentEventParser()
    let events = parser.feed(Array("id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n".utf8))
    #expect(events.map(\.id) == ["1", "1", "2"])
    #expect(parser.lastEventID == "2")
  }

  @Test func readsRetryOnlyWhenItIsDigits() {
    let events = parse(["retry: 1500\ndata: a\n\nretry: soon\ndata: b\n\n"])
    #expect(events.map(\.retry) == [.milliseconds(1500), nil])
  }

  @Test func anEventWithoutDataIsNotDispatched() {
    #expect(parse(["event: ping\n\n"]).isEmpty)
  }

  @Test func skipsALeadingByteOrderMark() {
    #expect(parse(["\u{FEFF}data: x\n\n"]).map(\.data) == ["x"])
  }
}
