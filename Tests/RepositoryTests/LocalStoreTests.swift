import Foundation
import Testing
import TrellisCore

@testable import TrellisRepository

/// A fresh folder under the temporary directory, removed by `cleanUp()`.
private struct Folder {
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("trellis-store-\(UUID().uuidString)", isDirectory: true)

  func cleanUp() { try? FileManager.default.removeItem(at: url) }

  func mode(_ path: URL) throws -> Int {
    try #require(
      (FileManager.default.attributesOfItem(atPath: path.path)[.posixPermissions] as? NSNumber)?
        .intValue)
  }
}

@Suite("LocalStore: private, atomic, bounded, versioned; never the cause of a failure")
struct LocalStoreTests {
  private func store(
    _ folder: Folder, maximumSize: Int = 1 << 20, sink: MemoryLogSink = MemoryLogSink()
  )
    -> FileLocalStore
  {
    FileLocalStore(
      folder: folder.url.appendingPathComponent("cache"), maximumSize: maximumSize,
      logger: Logger(category: "LocalStore", sink: sink))
  }

  @Test func aValueIsKeptPrivateWithWhenItWasStored() throws {
    let folder = Folder()
    defer { folder.cleanUp() }
    let store = store(folder)
    let before = Date()
    store.write("tasks.2", Data("[1,2,3]".utf8))
    let read = try #require(store.read("tasks.2"))
    #expect(read.data == Data("[1,2,3]".utf8))
    #expect(read.storedAt >= before.addingTimeInterval(-0.01) && read.storedAt <= Date())
    #expect(try folder.mode(store.folder) == 0o700)
    #expect(try folder.mode(store.folder.appendingPathComponent("tasks.2.entry")) == 0o600)
    #expect(store.read("tasks.3") == nil)
    store.remove("tasks.2")
    #expect(store.read("tasks.2") == nil)
  }

  /// What is not a whole entry of this version for this key is skipped with a log line, and
  /// removed, except another version's (two versions of the app may share the folder: each
  /// skips the other's); the app then works from the network.
  @Test(arguments: [
    ("garbage", Data("not an entry".utf8), "not a whole entry", false),
    (
      "truncated", Data(#"{"format":1,"key":"projects","storedAt":17"#.utf8), "not a whole entry",
      false
    ),
    ("another version", Data(#"{"format":2,"rows":[]}"#.utf8), "written in format 2", true),
    (
      "another key",
      Data(#"{"format":1,"key":"user","storedAt":1700000000000,"text":"{}"}"#.utf8),
      "the file holds \"user\"", false
    ),
  ])
  func aBadEntryIsSkippedLoggedAndRemoved(
    name: String, contents: Data, reason: String, isKept: Bool
  ) throws {
    let folder = Folder()
    defer { folder.cleanUp() }
    let sink = MemoryLogSink()
    let store = store(folder, sink: sink)
    store.write("projects", Data("[]".utf8))  // makes the folder
    let file = store.folder.appendingPathComponent("projects.entry")
    try contents.write(to: file)
    #expect(store.read("projects") == nil, "\(name)")
    #expect(sink.messages.contains { $0.contains(reason) }, "\(name): \(sink.messages)")
    #expect(FileManager.default.fileExists(atPath: file.path) == isKept, "\(name)")
  }

  /// An entry larger than the whole store's bound is not one of ours.
  @Test func anOversizedEntryIsSkipped() throws {
    let folder = Folder()
    defer { folder.cleanUp() }
    let sink = MemoryLogSink()
    let store = store(folder, maximumSize: 4096, sink: sink)
    store.write("projects", Data("[]".utf8))
    try Data(repeating: 0x20, count: 5000).write(
      to: store.folder.appendingPathComponent("projects.entry"))
    #expect(store.read("projects") == nil)
    #expect(sink.messages.contains { $0.contains("larger than 4096 bytes") })
  }

  /// An entry that cannot be read at all (here a folder where the file should be; permissions
  /// or an I/O error do the same) is skipped with a log line, and left for the user to see.
  @Test func anUnreadableEntryIsSkippedAndKept() throws {
    let folder = Folder()
    defer { folder.cleanUp() }
    let sink = MemoryLogSink()
    let store = store(folder, sink: sink)
    let file = store.folder.appendingPathComponent("user.entry")
    try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
    #expect(store.read("user") == nil)
    #expect(sink.messages.contains { $0.contains("Skipped the stored user") })
    #expect(FileManager.default.fileExists(atPath: file.path))
  }

  /// A write that cannot be made (the disk is full; here the folder's place is taken by a file)
  /// is logged and dropped: nothing throws, nothing crashes.
  @Test func aWriteThatFailsIsLoggedAndDropped() throws {
    let folder = Folder()
    defer { folder.cleanUp() }
    let sink = MemoryLogSink()
    try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
    try Data("a file".utf8).write(to: folder.url.appendingPathComponent("cache"))
    let store = store(folder, sink: sink)
    store.write("projects", Data("[]".utf8))
    #expect(store.read("projects") == nil)
    #expect(sink.messages.contains { $0.contains("Did not store projects") })
  }

  /// Bounded: once the entries take more than the bound, the ones stored longest ago go.
  @Test func theOldestEntriesGoFirstPastTheBound() throws {
    let folder = Folder()
    defer { folder.cleanUp() }
    let store = store(folder, maximumSize: 4096)
    let value = Data(repeating: UInt8(ascii: "a"), count: 600)
    for index in 0..<10 {
      store.write("task.\(index)", value)
      // Distinct modification times, oldest first.
      try FileManager.default.setAttributes(
        [.modificationDate: Date().addingTimeInterval(Double(index - 100))],
        ofItemAtPath: store.folder.appendingPathComponent("task.\(index).entry").path)
    }
    let kept = (0..<10).filter { store.read("task.\($0)") != nil }
    #expect(kept.last == 9)
    #expect(kept.count < 10 && kept.count >= 3)
    #expect(kept == Array((10 - kept.count)..<10))
    let total = try FileManager.default.contentsOfDirectory(atPath: store.folder.path).reduce(0) {
      $0
        + ((try FileManager.default.attributesOfItem(
          atPath: store.folder.appendingPathComponent($1).path)[.size] as? NSNumber)?.intValue ?? 0)
    }
    #expect(total <= 4096)
  }

  /// The folder is not scanned on every write, but what another copy of the app wrote counts
  /// toward the bound within ``FileLocalStore/rescanInterval`` writes of this copy: the folder
  /// never stays past it.
  @Test func anotherCopysWritesCountTowardTheBound() throws {
    let folder = Folder()
    defer { folder.cleanUp() }
    let mine = store(folder, maximumSize: 64 * 1024)
    let other = store(folder, maximumSize: 64 * 1024)
    let large = Data(repeating: UInt8(ascii: "x"), count: 2000)
    // Each copy writes 40 KB: within the bound by its own count, 80 KB together.
    for index in 0..<20 {
      mine.write("mine.\(index)", large)
      other.write("other.\(index)", large)
    }
    let small = Data(repeating: UInt8(ascii: "s"), count: 100)
    for index in 0..<FileLocalStore.rescanInterval { mine.write("more.\(index)", small) }
    let sizes = try FileManager.default.contentsOfDirectory(atPath: mine.folder.path).map {
      (try FileManager.default.attributesOfItem(
        atPath: mine.folder.appendingPathComponent($0).path)[.size] as? NSNumber)?.intValue ?? 0
    }
    #expect(sizes.reduce(0, +) <= 64 * 1024)
    #expect(mine.read("more.\(FileLocalStore.rescanInterval - 1)") != nil)  // the newest stay
  }

  /// Two copies of the app on one folder replace whole files: a read sees one copy's entry or
  /// the other's, never a mix.
  @Test func twoCopiesWritingOneKeyNeverLeaveHalfAnEntry() async throws {
    let folder = Folder()
    defer { folder.cleanUp() }
    let first = store(folder)
    let second = store(folder)
    let a = Data(repeating: UInt8(ascii: "a"), count: 20_000)
    let b = Data(repeating: UInt8(ascii: "b"), count: 30_000)
    await withTaskGroup(of: Void.self) { group in
      group.addTask { for _ in 0..<100 { first.write("tasks.1", a) } }
      group.addTask { for _ in 0..<100 { second.write("tasks.1", b) } }
      group.addTask {
        for _ in 0..<300 {
          if let read = first.read("tasks.1") { #expect(read.data == a || read.data == b) }
        }
      }
    }
    let last = try #require(second.read("tasks.1"))
    #expect(last.data == a || last.data == b)
  }

  @Test func keysAreOurOwnNames() {
    let folder = Folder()
    defer { folder.cleanUp() }
    let store = store(folder)
    for key in ["../escape", "a/b", "", ".hidden", String(repeating: "k", count: 101)] {
      store.write(key, Data("x".utf8))
      #expect(store.read(key) == nil)
    }
    #expect(
      !FileManager.default.fileExists(
        atPath: folder.url.appendingPathComponent("escape.entry").path))
  }

  @Test func aValueThatNoLongerDecodesIsRemovedWithALogLine() {
    let store = MemoryLocalStore()
    let sink = MemoryLogSink()
    let logger = Logger(category: "LocalStore", sink: sink, minimumLevel: .trace)
    store.write("projects", Data(#"{"old": "secret title"}"#.utf8))
    #expect(store.value([Int].self, forKey: "projects", logger: logger) == nil)
    #expect(store.keys.isEmpty)
    let lines = sink.records.map(\.message)
    #expect(lines.count == 1)
    #expect(lines.first?.contains("Skipped the stored projects") == true)
    #expect(lines.first?.contains("secret title") == false)  // never the content
    store.keep([1, 2], forKey: "projects")
    #expect(store.value([Int].self, forKey: "projects")?.value == [1, 2])
  }
}

@Suite("UserLocalStore: one user's data, erased when the session ends")
struct UserLocalStoreTests {
  /// Alice's data is read in her sessions only; another user's sign-in erases it, and a
  /// sign-out erases everything: her task titles are in no file after.
  @Test func aUsersDataIsNeverAnothersAndGoesAtSignOut() throws {
    let folder = Folder()
    defer { folder.cleanUp() }
    let store = UserLocalStore(root: folder.url.appendingPathComponent("cache"))
    store.write("tasks.1", Data("ignored: nobody is signed in".utf8))
    #expect(store.read("tasks.1") == nil)
    store.setUser(1)
    store.write("tasks.1", Data(#"["Alice's secret plan"]"#.utf8))
    store.setUser(1)  // her session restored at the next launch: kept
    #expect(store.read("tasks.1") != nil)
    // (Kept as text: a search of the files would find it.)
    #expect(try contentsMention("Alice's secret plan", under: store.root))
    store.setUser(2)
    #expect(store.read("tasks.1") == nil)
    #expect(try !contentsMention("Alice's secret plan", under: store.root))
    store.write("tasks.1", Data(#"["Bob's list"]"#.utf8))
    store.setUser(nil)
    #expect(try FileManager.default.contentsOfDirectory(atPath: store.root.path).isEmpty)
  }

  /// An answer that arrives for a user who has signed out since (a request made before the
  /// sign-out) goes nowhere: not into the next user's data, and not back into the erased
  /// folder. Erasing touches only the users' folders.
  @Test func aLateAnswerForAUserWhoLeftGoesNowhere() throws {
    let folder = Folder()
    defer { folder.cleanUp() }
    let root = folder.url.appendingPathComponent("cache")
    let store = UserLocalStore(root: root)
    store.setUser(1)
    let alices = store.pinned()  // taken when her request started
    store.write("projects", Data("[]".utf8))
    try Data("the app's other cache".utf8).write(to: root.appendingPathComponent("Cache.db"))

    store.setUser(2)  // she signed out, Bob signed in; then her answer arrives
    alices.write("tasks.1", Data(#"["Alice's plan"]"#.utf8))
    #expect(store.read("tasks.1") == nil)
    #expect(try !contentsMention("Alice's plan", under: root))
    #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("user-1").path))
    store.setUser(nil)
    store.pinned().write("tasks.1", Data("nobody's".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["Cache.db"])
  }

  private func contentsMention(_ text: String, under root: URL) throws -> Bool {
    guard let files = FileManager.default.enumerator(atPath: root.path) else { return false }
    for case let path as String in files {
      let data = (try? Data(contentsOf: root.appendingPathComponent(path))) ?? Data()
      if String(decoding: data, as: UTF8.self).contains(text) { return true }
    }
    return false
  }
}
