import Foundation
import Testing

@testable import TrellisGenerator

/// The generator's fast scans checked against the slow, plain definitions they replaced, on
/// every Swift file of this repository and on the edge cases of their syntax.
@Suite("The generator's line scans agree with their plain definitions")
struct ScanOracleTests {
  /// Every Swift file of the repository (its sources, tests, app and templates' output).
  private static func repositoryTexts() throws -> [String] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    var texts: [String] = []
    for folder in ["Modules", "Tests", "App"] {
      let base = root.appendingPathComponent(folder)
      guard let files = FileManager.default.enumerator(atPath: base.path) else { continue }
      for case let path as String in files
      where path.hasSuffix(".swift")
        && !path.split(separator: "/").contains(where: { $0.hasPrefix(".") })
      {
        texts.append(try String(contentsOf: base.appendingPathComponent(path), encoding: .utf8))
      }
    }
    return texts
  }

  /// The regular expression `declaredTypes(in:)` used to be.
  private static func typesByRegex(_ source: String) -> [String] {
    let declaration =
      #/^(?:@[\w.]+(?:\([^)\n]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|open|final|indirect|nonisolated)\s+)*(?:class|struct|enum|protocol|actor|typealias)\s+(\w+)/#
      .anchorsMatchLineEndings()
    return source.matches(of: declaration).map { String($0.output.1) }
  }

  /// The digest `digest(of:)` used to be: the lines without `import`s, by characters.
  private static func digestByCharacters(_ body: String) -> String {
    let kept = body.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
    return String(ContentDigest.of(kept).prefix(32))
  }

  private static let edgeCases = [
    "", "\n", "import Foundation", "struct A {}", "  struct Indented {}",
    "public final class B: C {}",
    "@MainActor\npublic final class D {}", "@available(*, unavailable) struct E {}",
    "@objc(Name) @MainActor final class F {}", "@a.b(x) enum G: String {}",
    "indirect enum H { case x }", "nonisolated struct I {}", "typealias J = Int",
    "protocol K: Sendable {}", "actor L {}", "classy M {}", "class\n", "struct  N<T>: P {}",
    "public\nstruct O {}", "@attr(unclosed struct P {}", "@ struct Q {}", "extension R {}",
    "import Foo\n\nimport Bar\nstruct S {}\n", "\nimport A\n", "é struct T {}",
    "struct Ünïcode {}", "fileprivate struct U_1 {}", "open class V {}\r\nstruct W {}",
  ]

  @Test func declaredTypesAgreeWithTheRegularExpression() throws {
    let texts = try Self.repositoryTexts()
    #expect(texts.count > 100)  // a stripped tree has fewer than the demo's 400
    for text in texts + Self.edgeCases {
      #expect(Generator.declaredTypes(in: text) == Self.typesByRegex(text), "\(text.prefix(80))")
    }
  }

  @Test func digestsAgreeWithTheCharacterSplit() throws {
    for text in try Self.repositoryTexts() + Self.edgeCases {
      #expect(Generator.digest(of: text) == Self.digestByCharacters(text), "\(text.prefix(80))")
    }
  }
}

@Suite("The generator's file system")
struct LocalFileSystemTests {
  /// A hidden folder's Swift files (a build's, `.build` in `Tests/GeneratorTests` once its
  /// package is built) are never taken for the project's: a rename would edit them.
  @Test func swiftFilesLeaveHiddenFoldersOut() throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-files-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    for file in [
      "Tests/A.swift", "Tests/Kit/B.swift", "Tests/Kit/.build/C.swift", ".hidden/D.swift",
    ] {
      let url = URL(fileURLWithPath: root + "/" + file)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data("let x = 1\n".utf8).write(to: url)
    }
    let found = LocalFileSystem().swiftFiles(under: root).map {
      String($0.dropFirst(root.count + 1))
    }
    #expect(found.sorted() == ["Tests/A.swift", "Tests/Kit/B.swift"])
  }
}
