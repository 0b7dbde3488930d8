import Foundation
import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting
import TrellisRepository

@testable import TrellisService

@Suite("DraftService: what is typed survives a quit", .timeLimit(.minutes(1)))
struct DraftServiceTests {
  struct Note: Codable, Equatable, Sendable { var text: String }

  /// Kept as it changes (readable at once), written a moment after the first change of a run,
  /// several changes in one write; dropped on discard.
  @Test func aDraftIsKeptWrittenOnceAfterAPauseAndDropped() async throws {
    let store = MemoryLocalStore()
    let sleeps = Mutex(0)
    let release = AsyncStream<Void>.makeStream()
    let drafts = DraftServiceImpl(store: store, delay: .milliseconds(500)) { _ in
      sleeps.withLock { $0 += 1 }
      for await _ in release.stream { return }
    }
    drafts.keep(Note(text: "H"), for: "draft.note")
    drafts.keep(Note(text: "Hello"), for: "draft.note")
    #expect(drafts.draft(Note.self, for: "draft.note") == Note(text: "Hello"))
    #expect(store.keys.isEmpty)  // not yet written
    try #require(await eventually { sleeps.withLock { $0 } == 1 })  // one write scheduled
    release.continuation.yield()
    try #require(await eventually { store.keys == ["draft.note"] })
    // A new service (the next launch) reads it back.
    #expect(
      DraftServiceImpl(store: store).draft(Note.self, for: "draft.note") == Note(text: "Hello"))
    drafts.discard("draft.note")
    #expect(drafts.draft(Note.self, for: "draft.note") == nil)
    #expect(store.keys.isEmpty)
  }

  /// Quitting writes what is pending at once; a discard is never undone by a write after it.
  @Test func flushWritesNowAndADiscardWins() {
    let store = MemoryLocalStore()
    let drafts = DraftServiceImpl(store: store, delay: .seconds(3600))
    drafts.keep(Note(text: "typed just before quitting"), for: "draft.note")
    drafts.flush()
    #expect(
      store.value(Note.self, forKey: "draft.note")?.value.text == "typed just before quitting")
    drafts.keep(Note(text: "then discarded"), for: "draft.note")
    drafts.discard("draft.note")
    drafts.flush()
    #expect(store.keys.isEmpty)
  }
}
