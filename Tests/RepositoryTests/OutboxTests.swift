import Foundation
import Testing
import TrellisCore

@testable import TrellisRepository

/// A change as a test's outbox keeps it.
private struct Rename: Codable, Sendable, Equatable {
  var taskID: Int
  var title: String
}

@Suite("Outbox: the changes not yet confirmed, kept in order, across launches, per user")
struct OutboxTests {
  private let root = FileManager.default.temporaryDirectory
    .appendingPathComponent("trellis-outbox-\(UUID().uuidString)", isDirectory: true)

  private func cleanUp() { try? FileManager.default.removeItem(at: root) }

  /// A store over the folder, as a launch of the app makes it.
  private func launch(sink: MemoryLogSink = MemoryLogSink()) -> FileLocalStore {
    FileLocalStore(
      folder: root.appendingPathComponent("drafts"),
      logger: Logger(category: "LocalStore", sink: sink))
  }

  @Test func changesAreKeptInOrderWithTheirKeysAcrossALaunch() throws {
    defer { cleanUp() }
    let outbox = Outbox<Rename>(store: launch(), name: "tasks")
    let first = try outbox.append(Rename(taskID: 1, title: "One"))
    let second = try outbox.append(Rename(taskID: 2, title: "Two"))
    let third = try outbox.append(Rename(taskID: 1, title: "Three"))
    #expect(Set([first.id, second.id, third.id]).count == 3)
    // The next launch reads the same changes, in order, with the same keys.
    let relaunched = Outbox<Rename>(store: launch(), name: "tasks")
    #expect(relaunched.entries == [first, second, third])
    relaunched.remove(second.id)
    #expect(relaunched.entries.map(\.change.title) == ["One", "Three"])
    relaunched.update(third.id) { $0.title = "Third" }
    #expect(
      Outbox<Rename>(store: launch(), name: "tasks").entries.map(\.change.title) == [
        "One", "Third",
      ])
    #expect(relaunched.entries.map(\.id) == [first.id, third.id])
    // Another outbox of the store is its own.
    #expect(Outbox<Rename>(store: launch(), name: "projects").entries.isEmpty)
    // The last change removed leaves no file behind.
    relaunched.remove(first.id)
    relaunched.remove(third.id)
    #expect(launch().read("outbox.v1.tasks") == nil)
  }

  @Test func theFileIsPrivate() throws {
    defer { cleanUp() }
    let store = launch()
    try Outbox<Rename>(store: store, name: "tasks").append(Rename(taskID: 1, title: "x"))
    let file = store.folder.appendingPathComponent("outbox.v1.tasks.entry")
    let mode = try #require(
      (FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)?
        .intValue)
    #expect(mode == 0o600)
  }

  @Test func itIsBoundedAndRefusesRatherThanDrops() throws {
    let outbox = Outbox<Rename>(store: MemoryLocalStore(), name: "tasks", limit: 3)
    for index in 1...3 { try outbox.append(Rename(taskID: index, title: "\(index)")) }
    #expect(throws: Outbox<Rename>.Failure.full(limit: 3)) {
      try outbox.append(Rename(taskID: 4, title: "4"))
    }
    #expect(outbox.entries.map(\.change.taskID) == [1, 2, 3])
  }

  /// An entry that no longer reads (cut, or of a model that changed) is skipped with a log line,
  /// and the others are kept; a whole file that does not read is logged and read as empty.
  @Test func aCorruptEntryIsSkippedAndTheOthersKept() throws {
    let store = MemoryLocalStore()
    let sink = MemoryLogSink()
    let outbox = Outbox<Rename>(
      store: store, name: "tasks", logger: Logger(category: "Outbox", sink: sink))
    let kept = try outbox.append(Rename(taskID: 1, title: "kept"))
    let file = try #require(store.read("outbox.v1.tasks")).data
    var text = try #require(String(data: file, encoding: .utf8))
    // A second entry whose change is of another shape, and a third that is not an entry.
    text = text.replacingOccurrences(
      of: "]}",
      with: #",{"id":"b","change":{"taskID":"two"},"madeAt":"2026-11-29T00:00:00Z"},17]}"#)
    store.write("outbox.v1.tasks", Data(text.utf8))
    #expect(outbox.entries == [kept])
    #expect(sink.messages.contains { $0.contains("Skipped 2 change(s) of the outbox") })
    // Garbage as a whole: nothing read, logged, never a crash.
    store.write("outbox.v1.tasks", Data("{not json".utf8))
    #expect(outbox.entries.isEmpty)
    #expect(sink.messages.contains { $0.contains("cannot be read") })
    // Another version's outbox is under another key: left alone.
    store.write("outbox.v2.tasks", Data(#"{"queue":[]}"#.utf8))
    try outbox.append(Rename(taskID: 9, title: "new"))
    #expect(store.read("outbox.v2.tasks")?.data == Data(#"{"queue":[]}"#.utf8))
  }

  /// One user's changes are never another's: the outbox lives in the user's store, which a
  /// sign-in of another user erases and a sign-out erases; a send that ends after the sign-out
  /// (its outbox pinned before) changes nothing of the next user's.
  @Test func eachUserHasTheirOwnAndASendAfterTheSignOutTouchesNothing() throws {
    defer { cleanUp() }
    let store = UserLocalStore(root: root)
    let outbox = Outbox<Rename>(store: store, name: "tasks")
    store.setUser(1)
    let alices = try outbox.append(Rename(taskID: 1, title: "Alice's"))
    let sending = outbox.pinned()
    store.setUser(2)
    #expect(outbox.entries.isEmpty)
    let bobs = try outbox.append(Rename(taskID: 2, title: "Bob's"))
    // Alice's send answers now: removing it, or changing it, reaches nobody's outbox.
    sending.remove(alices.id)
    sending.update(bobs.id) { $0.title = "changed by Alice's send" }
    #expect(outbox.entries == [bobs])
    // The server ended Bob's session: his changes wait for him (set aside), for him alone.
    store.setAside()
    #expect(outbox.entries.isEmpty)
    store.setUser(2)
    #expect(outbox.entries == [bobs])
    store.setUser(nil)
    store.setUser(2)
    #expect(outbox.entries.isEmpty)
  }

  @Test func aRewriteFoldsAndDrops() throws {
    let outbox = Outbox<Rename>(store: MemoryLocalStore(), name: "tasks")
    let temporary = try outbox.append(Rename(taskID: -1, title: "Created offline"))
    let other = try outbox.append(Rename(taskID: 5, title: "Other"))
    try outbox.append(Rename(taskID: 6, title: "Dropped"))
    // The server's id replaces the temporary one; a change to a task gone is dropped.
    outbox.rewrite { entry in
      if entry.change.taskID == 6 { return nil }
      var change = entry.change
      if change.taskID == -1 { change.taskID = 42 }
      return change
    }
    #expect(outbox.entries.map(\.change.taskID) == [42, 5])
    #expect(outbox.entries.map(\.id) == [temporary.id, other.id])
    // Renewed: the same place, a new key.
    let renewed = try #require(outbox.renew(temporary.id, with: Rename(taskID: 42, title: "Mine")))
    #expect(renewed.id != temporary.id && renewed.madeAt == temporary.madeAt)
    #expect(outbox.entries.map(\.id) == [renewed.id, other.id])
    #expect(outbox.renew("gone", with: Rename(taskID: 1, title: "x")) == nil)
  }

  /// Sent in order until one cannot be sent now: a made one leaves, a refused one leaves and is
  /// reported, one the server cannot take now stops the sending and waits with its key (a
  /// `409` still in progress, a `5xx`, no answer, offline).
  @Test func sendingSendsInOrderReportsRefusalsAndStopsAtWhatMustWait() async throws {
    for stop in [
      RepositoryError.offline("down"), .server(status: 503, "busy"),
      .server(status: 409, "in progress"), .server(status: 429, "slow down"),
      .invalidResponse("garbled"), .unauthorized("renewing"), .cancelled,
    ] {
      let outbox = Outbox<Rename>(store: MemoryLocalStore(), name: "tasks")
      for id in 1...4 { try outbox.append(Rename(taskID: id, title: "\(id)")) }
      let keys = outbox.entries.map(\.id)
      var sent: [(Int, String)] = []
      let report = await outbox.sendWaiting { (change, key) throws(RepositoryError) in
        sent.append((change.taskID, key))
        switch change.taskID {
        case 2: throw .notFound("gone")
        case 3: throw stop
        default: return
        }
      }
      #expect(sent.map(\.0) == [1, 2, 3] && sent.map(\.1) == Array(keys.prefix(3)))
      #expect(report.sent.map(\.change.taskID) == [1])
      #expect(report.refused.map(\.entry.change.taskID) == [2])
      #expect(report.refused.first?.error == .notFound("gone"))
      #expect(report.stoppedBy == stop)
      #expect(outbox.entries.map(\.id) == Array(keys.suffix(2)), "\(stop)")
    }
    for refusal in [
      RepositoryError.forbidden("no"), .validation("bad", fields: [:]),
      .server(status: 410, "gone"),
    ] {
      #expect(Outbox<Rename>.isRefusal(refusal))
    }
  }

  /// One send at a time: a second call while the first waits sends nothing.
  @Test func oneSendAtATime() async throws {
    let outbox = Outbox<Rename>(store: MemoryLocalStore(), name: "tasks")
    try outbox.append(Rename(taskID: 1, title: "One"))
    let (entered, enter) = AsyncStream<Void>.makeStream()
    let (release, open) = AsyncStream<Void>.makeStream()
    let first = Task {
      await outbox.pinned().sendWaiting { (_, _) throws(RepositoryError) in
        enter.yield()
        for await _ in release { break }
      }
    }
    for await _ in entered { break }
    let second = await outbox.sendWaiting { (_, _) throws(RepositoryError) in
      Issue.record("sent twice at once")
    }
    #expect(second == OutboxReport())
    // A change added while the first sends is sent by it (the second call asked it to go on).
    try outbox.append(Rename(taskID: 2, title: "Two"))
    open.yield()
    open.yield()
    #expect(await first.value.sent.map(\.change.taskID) == [1, 2])
    #expect(outbox.entries.isEmpty)
  }

  /// A change the store did not keep (its size bound, a full disk, no user signed in) is not
  /// taken as kept: the append throws, and what was kept before stays.
  @Test func aChangeTheStoreDidNotKeepIsRefused() throws {
    defer { cleanUp() }
    let store = FileLocalStore(folder: root.appendingPathComponent("drafts"), maximumSize: 1024)
    let outbox = Outbox<Rename>(store: store, name: "tasks")
    let kept = try outbox.append(Rename(taskID: 1, title: "Short"))
    #expect(throws: Outbox<Rename>.Failure.notKept) {
      try outbox.append(Rename(taskID: 2, title: String(repeating: "x", count: 2048)))
    }
    #expect(outbox.entries == [kept])
    let signedOut = UserLocalStore(root: root.appendingPathComponent("users"))
    #expect(throws: Outbox<Rename>.Failure.notKept) {
      try Outbox<Rename>(store: signedOut, name: "tasks").append(Rename(taskID: 3, title: "3"))
    }
  }

  /// A store that evicts to stay within its size never evicts an outbox, however much else is
  /// written after it.
  @Test func aStoreNeverEvictsAnOutbox() throws {
    defer { cleanUp() }
    let store = FileLocalStore(folder: root.appendingPathComponent("drafts"), maximumSize: 4096)
    let outbox = Outbox<Rename>(store: store, name: "tasks")
    let kept = try outbox.append(Rename(taskID: 1, title: String(repeating: "o", count: 1500)))
    for index in 0..<8 {
      store.keep(String(repeating: "d", count: 1500), forKey: "draft.\(index)")
    }
    #expect(store.read("draft.0") == nil)  // the oldest draft went
    #expect(outbox.entries == [kept])
  }
}
