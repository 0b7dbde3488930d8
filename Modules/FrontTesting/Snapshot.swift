import Foundation
import TrellisCore
import TrellisFront

/// Text snapshots of screens: a screen drawn in a window of a fixed size, compared with a file
/// committed next to the test, in `__Snapshots__/<test file>/<name>.txt`.
///
/// ```swift
/// @Test func theEmptyList() throws {
///   let screen = TaskListViewController(reactor: reactor, viewControllerProvider: providers)
///   try assertSnapshot(of: screen, state: TaskListViewReactor.State(), named: "empty")
/// }
/// ```
///
/// - The first run writes the file and passes (review it and commit it); later runs compare.
/// - `TRELLIS_RECORD_SNAPSHOTS=1 swift test` writes every snapshot again (after a deliberate
///   change of a screen; review the diff in git).
/// - `TRELLIS_SNAPSHOTS=verify` makes a missing file a failure instead (for CI, where a
///   snapshot nobody committed would otherwise be recorded and forgotten).
///
/// Frames are plain text (styles are not compared) and deterministic: spinners are drawn at
/// their first frame, and nothing in a frame reads the clock.
public enum Snapshot {
  /// What to do with a snapshot file.
  public enum Mode: Sendable, Equatable {
    /// Compare; record a missing file (the default).
    case recordMissing
    /// Compare; a missing file is a failure (`TRELLIS_SNAPSHOTS=verify`).
    case verify
    /// Write every file again (`TRELLIS_RECORD_SNAPSHOTS=1`).
    case recordAll

    /// The mode the environment asks for.
    public static var fromEnvironment: Mode {
      let environment = ProcessInfo.processInfo.environment
      if let value = environment["TRELLIS_RECORD_SNAPSHOTS"], !value.isEmpty, value != "0" {
        return .recordAll
      }
      return environment["TRELLIS_SNAPSHOTS"] == "verify" ? .verify : .recordMissing
    }
  }

  /// The folder of snapshots beside `testFile`: `<its folder>/__Snapshots__/<its name>`.
  public static func folder(for testFile: String) -> URL {
    let test = URL(fileURLWithPath: testFile)
    return test.deletingLastPathComponent().appendingPathComponent("__Snapshots__")
      .appendingPathComponent(test.deletingPathExtension().lastPathComponent)
  }

  /// `viewController` drawn as text in a window of `size` (the window it is in, if any).
  @MainActor
  public static func text(of viewController: ViewController, size: TerminalSize) -> String {
    if let window = viewController.window {
      window.size = size
      return window.text
    }
    let window = Window(size: size)
    window.setRoot(viewController)
    return window.text
  }

  /// The lines of a readable diff of `expected` against `actual`: each differing row with its
  /// number, `-` the expected text and `+` the actual.
  public static func diff(expected: String, actual: String) -> String {
    let old = expected.components(separatedBy: "\n")
    let new = actual.components(separatedBy: "\n")
    var lines: [String] = []
    for row in 0..<max(old.count, new.count) {
      let was = row < old.count ? old[row] : nil
      let now = row < new.count ? new[row] : nil
      guard was != now else { continue }
      lines.append("row \(row + 1):")
      if let was { lines.append("- \(was)") }
      if let now { lines.append("+ \(now)") }
    }
    return lines.joined(separator: "\n")
  }
}

/// A snapshot that does not match its committed file (or is missing where one is required).
public struct SnapshotFailure: Error, CustomStringConvertible {
  /// What differs, row by row, and how to record the snapshot again.
  public let description: String
}

/// Compares `viewController`, drawn in a window of `size`, with its snapshot `named` beside
/// the test file; see ``Snapshot``.
///
/// - Throws: ``SnapshotFailure`` with a row-by-row diff when the frame differs.
@MainActor
public func assertSnapshot(
  of viewController: ViewController, named name: String,
  size: TerminalSize = TerminalSize(columns: 80, rows: 24),
  mode: Snapshot.Mode = .fromEnvironment, testFile: String = #filePath
) throws(SnapshotFailure) {
  let actual = Snapshot.text(of: viewController, size: size) + "\n"
  let folder = Snapshot.folder(for: testFile)
  let file = folder.appendingPathComponent("\(name).txt")
  let expected = try? String(contentsOf: file, encoding: .utf8)
  if expected == nil, mode == .verify {
    throw SnapshotFailure(
      description: "no snapshot \(file.path) (TRELLIS_SNAPSHOTS=verify): record it with "
        + "`swift test` on a developer machine and commit it")
  }
  if expected == nil || mode == .recordAll {
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data(actual.utf8).write(to: file, options: .atomic)
    } catch {
      throw SnapshotFailure(description: "cannot write the snapshot \(file.path): \(error)")
    }
    return
  }
  guard let expected, expected != actual else { return }
  throw SnapshotFailure(
    description: """
      the screen no longer matches its snapshot \(file.path):
      \(Snapshot.diff(expected: expected, actual: actual))
      (if the change is intended, record again with TRELLIS_RECORD_SNAPSHOTS=1 swift test)
      """)
}

/// Puts `viewController`'s reactor in stub mode with `state`, then compares the screen with
/// its snapshot `named`; see ``Snapshot``.
@MainActor
public func assertSnapshot<R: ReactorProtocol>(
  of viewController: ReactorViewController<R>, state: R.State, named name: String,
  size: TerminalSize = TerminalSize(columns: 80, rows: 24),
  mode: Snapshot.Mode = .fromEnvironment, testFile: String = #filePath
) throws(SnapshotFailure) {
  viewController.reactor.enableStub().state = state
  try assertSnapshot(
    of: viewController, named: name, size: size, mode: mode, testFile: testFile)
}
