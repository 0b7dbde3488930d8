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

  /// Runs `body` with a folder of users' drafts (removed after), Alice (user 1) signed in, and
  /// a drafts service over it that writes only when flushed.
  private func withAlicesDrafts(
    _ body: (_ root: URL, _ store: UserLocalStore, _ drafts: DraftServiceImpl) throws -> Void
  ) throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-drafts-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let store = UserLocalStore(root: root)
    store.setUser(1)
    try body(root, store, DraftServiceImpl(store: store, delay: .seconds(3600)))
  }

  /// A draft typed by a user who signs out before it is written is not shown to the next user
  /// and not written into their data.
  @Test func aDraftTypedBeforeASignOutNeverReachesTheNextUser() throws {
    try withAlicesDrafts { root, store, drafts in
      drafts.keep(Note(text: "Alice's half-written task"), for: "draft.note")
      store.setUser(nil)  // she signed out before it was written
      store.setUser(2)  // Bob signs in
      #expect(drafts.draft(Note.self, for: "draft.note") == nil)
      drafts.flush()
      #expect(store.read("draft.note") == nil)
      #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("user-1").path))
    }
  }

  /// A save's discard after its `await` goes to the drafts of the user who saved. The server
  /// ended Alice's session during the save (her drafts set aside): her draft is dropped there,
  /// so it does not open again (and the task get made twice) when she signs in again; the
  /// service's own `discard` would have dropped nothing.
  @Test func aPinnedDiscardDropsTheDraftSetAsideDuringTheSave() throws {
    try withAlicesDrafts { root, store, drafts in
      drafts.keep(Note(text: "New task"), for: "draft.compose")
      drafts.keep(Note(text: "Renamed"), for: "draft.rename")
      drafts.flush()
      let saving = drafts.pinned()  // as the save begins
      store.setAside()  // the server ended her session while the task was being saved
      saving.discard("draft.compose")
      drafts.discard("draft.rename")  // not pinned: nobody is served, nothing dropped
      store.setUser(1)  // she signs in again
      #expect(drafts.draft(Note.self, for: "draft.compose") == nil)
      #expect(drafts.draft(Note.self, for: "draft.rename") == Note(text: "Renamed"))
    }
  }

  /// Once another user has signed in, a discard pinned to the user before touches nothing of
  /// theirs, written or pending.
  @Test func aPinnedDiscardNeverDropsTheNextUsersDraft() throws {
    try withAlicesDrafts { root, store, drafts in
      let saving = drafts.pinned()  // Alice's save begins
      store.setUser(2)  // Bob signs in before it ends
      drafts.keep(Note(text: "Bob's, written"), for: "draft.compose")
      drafts.flush()
      drafts.keep(Note(text: "Bob's, pending"), for: "draft.rename")
      saving.discard("draft.compose")
      saving.discard("draft.rename")
      #expect(drafts.draft(Note.self, for: "draft.compose") == Note(text: "Bob's, written"))
      #expect(drafts.draft(Note.self, for: "draft.rename") == Note(text: "Bob's, pending"))
      drafts.flush()
      #expect(store.value(Note.self, forKey: "draft.rename")?.value == Note(text: "Bob's, pending"))
      // Nor does a keep through it replace his pending draft of the same key.
      drafts.keep(Note(text: "Bob's, pending again"), for: "draft.rename")
      saving.keep(Note(text: "Alice's, late"), for: "draft.rename")
      #expect(drafts.draft(Note.self, for: "draft.rename") == Note(text: "Bob's, pending again"))
      drafts.flush()
      #expect(
        store.value(Note.self, forKey: "draft.rename")?.value == Note(text: "Bob's, pending again"))
    }
  }
}
