import Foundation
import Testing
import TrellisFront
import TrellisFrontTesting

@MainActor
@Suite("Text snapshots")
struct SnapshotTests {
  /// A screen whose text the test sets.
  private final class Note: ViewController {
    var text: String
    init(_ text: String) {
      self.text = text
      super.init(title: "Note")
    }
    override func body() -> [Element] { [.text(text)] }
  }

  /// A test file in a fresh folder, so snapshots go to `<folder>/__Snapshots__/Fake/`.
  private let testFile = FileManager.default.temporaryDirectory
    .appendingPathComponent("snapshots-\(UUID().uuidString)/Fake.swift").path

  private func cleanUp() {
    try? FileManager.default.removeItem(atPath: (testFile as NSString).deletingLastPathComponent)
  }

  @Test func theFirstRunRecordsAndLaterRunsCompare() throws {
    defer { cleanUp() }
    let size = TerminalSize(columns: 30, rows: 6)
    try assertSnapshot(
      of: Note("Hello"), named: "note", size: size, mode: .recordMissing, testFile: testFile)
    let file = Snapshot.folder(for: testFile).appendingPathComponent("note.txt")
    let recorded = try String(contentsOf: file, encoding: .utf8)
    #expect(recorded.hasPrefix(" Trellis · Note\n"))
    #expect(recorded.contains("\n Hello\n"))
    try assertSnapshot(
      of: Note("Hello"), named: "note", size: size, mode: .recordMissing, testFile: testFile)
    #expect {
      try assertSnapshot(
        of: Note("Goodbye"), named: "note", size: size, mode: .recordMissing, testFile: testFile)
    } throws: { error in
      let text = "\(error)"
      return text.contains("row 3:\n-  Hello\n+  Goodbye")
        && text.contains("TRELLIS_RECORD_SNAPSHOTS")
    }
    // A failed comparison leaves the committed snapshot as it was.
    #expect(try String(contentsOf: file, encoding: .utf8) == recorded)
  }

  @Test func verifyModeFailsOnAMissingSnapshotAndRecordAllRewrites() throws {
    defer { cleanUp() }
    let size = TerminalSize(columns: 30, rows: 6)
    #expect {
      try assertSnapshot(of: Note("Hi"), named: "n", size: size, mode: .verify, testFile: testFile)
    } throws: { "\($0)".contains("no snapshot") }
    try assertSnapshot(of: Note("Hi"), named: "n", size: size, mode: .recordAll, testFile: testFile)
    try assertSnapshot(of: Note("Yo"), named: "n", size: size, mode: .recordAll, testFile: testFile)
    try assertSnapshot(of: Note("Yo"), named: "n", size: size, mode: .verify, testFile: testFile)
  }

  /// Two screens in the same state draw the same text, whatever was drawn before.
  @Test func framesAreDeterministic() {
    let size = TerminalSize(columns: 40, rows: 8)
    let screen = Note("Before")
    let before = Snapshot.text(of: screen, size: size)
    screen.text = "Same"
    #expect(Snapshot.text(of: screen, size: size) == Snapshot.text(of: Note("Same"), size: size))
    #expect(before != Snapshot.text(of: screen, size: size))
  }

  @Test func theDiffNamesEachChangedRow() {
    #expect(
      Snapshot.diff(expected: "a\nb\nc", actual: "a\nB\nc\nd") == "row 2:\n- b\n+ B\nrow 4:\n+ d")
  }
}
