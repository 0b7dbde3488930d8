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

  /// What `replacingTokens(in:_:)` used to be: character by character, a token a run of
  /// characters that are each an ASCII letter, digit or `_`.
  private static func replacingTokensByCharacters(
    in text: String, _ replacement: (Substring, Substring) -> String?
  ) -> String {
    var result = ""
    var index = text.startIndex
    func isTokenCharacter(_ character: Character) -> Bool {
      character.isASCII && (character.isLetter || character.isNumber || character == "_")
    }
    while index < text.endIndex {
      guard isTokenCharacter(text[index]) else {
        result.append(text[index])
        index = text.index(after: index)
        continue
      }
      var end = index
      while end < text.endIndex, isTokenCharacter(text[end]) { end = text.index(after: end) }
      let token = text[index..<end]
      result += replacement(token, text[end...]) ?? String(token)
      index = end
    }
    return result
  }

  /// The byte scan of the rename's tokens gives what the character scan gave: on every Swift
  /// file here, on edges where a letter and an accent or another joining scalar make one
  /// character, and on random text of those pieces. The replacement sees the text after the
  /// token too, as the rename's does (it tells `Trellis.` from `Trellis(`).
  @Test func tokensAreReplacedAsTheCharacterScanReplacedThem() throws {
    func replacement(_ token: Substring, _ rest: Substring) -> String? {
      switch token {
      case "Trellis": rest.hasPrefix("(") ? "Call" : "Acme"
      case "a", "e", "x9", "_": "<\(token)>"
      default: token.count > 12 ? "long" : nil
      }
    }
    let pieces = [
      "Trellis", "a", "e", "\u{301}", "é", "x9", "_", " ", "(", ".", "·", "\r\n", "\u{200D}",
      "\u{0600}", "🇰🇷", "TrellisCore", "\n", "가", "\u{1100}\u{1161}", "ab_c", "Ü",
    ]
    var random = SystemRandomNumberGenerator()
    var texts =
      try Self.repositoryTexts() + Self.edgeCases + [
        "Trellis\u{301}x", "\u{0600}Trellis", "e\u{301}", "Trellise\u{301}", "a\u{200D}a",
        "Trellis(", "·Trellis·", "\r\nTrellis\r\n", "ééTrellisé",
      ]
    for _ in 0..<2000 {
      texts.append(
        (0..<Int.random(in: 0...12, using: &random)).map { _ in
          pieces.randomElement(using: &random)!
        }.joined())
    }
    for text in texts {
      let expected = Self.replacingTokensByCharacters(in: text, replacement)
      #expect(
        Generator.replacingTokens(in: text, replacement) == expected,
        "\(text.prefix(80).debugDescription)")
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
