import Foundation
import Synchronization
import Testing

@testable import TrellisGenerator

/// The models are formatted only at their long lines (`SwiftFormatting`): checked against
/// `swift format` formatting them whole, on the constructs fixture's models and on the models
/// of a document with long names.
@Suite("trellis-gen api: formatting the models' long lines only gives the whole formatting")
struct ModelFormattingTests {
  /// `files` formatted whole by `swift format`, as the generator formatted everything before.
  private func formattedWhole(_ files: [String: String], root: String) throws -> [String: String] {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("trellis-whole-\(UUID().uuidString)", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var urls: [String: URL] = [:]
    for (index, (path, text)) in files.enumerated() {
      urls[path] = folder.appendingPathComponent("\(index).swift")
      try Data(text.utf8).write(to: urls[path]!)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    let configuration = root + "/.swift-format"
    process.arguments =
      ["swift", "format", "format", "--in-place"]
      + (FileManager.default.fileExists(atPath: configuration)
        ? ["--configuration", configuration] : []) + urls.values.map(\.path)
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    return try urls.mapValues { try String(contentsOf: $0, encoding: .utf8) }
  }

  @Test func formattingOnlyTheLongLinesOfModelsGivesTheWholeFormatting() throws {
    // Without the layer a tree may have generated from its own document.
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/constructs.yaml")
    try sandbox.write(try String(contentsOf: fixture, encoding: .utf8), to: "api/constructs.yaml")
    let raw = Mutex<[String: String]>([:])
    let generator = Generator(root: sandbox.root) { files, _ in
      raw.withLock { $0.merge(files) { $1 } }
      return files
    }
    _ = try generator.planAPI(
      sandbox.root + "/api/constructs.yaml", prefix: "VeryLongTypePrefix")
    let models = raw.withLock { $0 }.filter { SwiftFormatting.isLaidOutExceptLongLines($0.key) }
    try #require(!models.isEmpty)
    #expect(models.values.contains { !SwiftFormatting.longLineRanges($0, width: 100).isEmpty })
    let byLines = try #require(SwiftFormatting.format(models, root: sandbox.root))
    let whole = try formattedWhole(models, root: sandbox.root)
    for (path, text) in whole {
      #expect(byLines[path] == text, "\(path)")
    }
  }

  /// `swift-format` is started directly when it is beside the `swift` on `PATH` (through a
  /// link, as a toolchain's `bin` is often linked), and `swift format` through `env` otherwise.
  @Test func theToolchainsFormatterIsFoundBesideSwift() throws {
    let files = FileManager.default
    let folder = files.temporaryDirectory.appendingPathComponent("trellis-path-\(UUID())")
    defer { try? files.removeItem(at: folder) }
    let toolchain = folder.appendingPathComponent("toolchain/usr/bin")
    let linked = folder.appendingPathComponent("bin")
    let bare = folder.appendingPathComponent("bare")
    for made in [toolchain, linked, bare] {
      try files.createDirectory(at: made, withIntermediateDirectories: true)
    }
    for tool in [
      toolchain.appendingPathComponent("swift"),
      toolchain.appendingPathComponent("swift-format"),
      toolchain.appendingPathComponent("swift-frontend"),
      bare.appendingPathComponent("swift"), bare.appendingPathComponent("swift-format"),
    ] {
      try Data("#!/bin/sh\n".utf8).write(to: tool)
      try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
    }
    try files.createSymbolicLink(
      at: linked.appendingPathComponent("swift"),
      withDestinationURL: toolchain.appendingPathComponent("swift"))

    let direct = SwiftFormatting.formatCommand(path: "/nowhere:\(linked.path):\(bare.path)")
    #expect(
      direct.executable.resolvingSymlinksInPath().path
        == toolchain.appendingPathComponent("swift-format").resolvingSymlinksInPath().path)
    #expect(direct.arguments == ["format"])
    // The first `swift` decides: one in a folder without the compiler (a shim, a wrapper) is
    // run as `swift format`, even with a `swift-format` beside it.
    let driver = SwiftFormatting.formatCommand(path: "\(bare.path):\(linked.path)")
    #expect(driver.executable.path == "/usr/bin/env")
    #expect(driver.arguments == ["swift", "format", "format"])
    #expect(SwiftFormatting.formatCommand(path: nil).arguments.last == "format")
  }

  /// A long line that is only a comment is not formatted (`swift format` leaves it as it is);
  /// a long line of code is.
  @Test func longCommentLinesAreLeftOut() {
    let comment = "  /// " + String(repeating: "word ", count: 30)
    let code = "  let x = [" + String(repeating: "1, ", count: 40) + "]"
    let ranges = SwiftFormatting.longLineRanges(comment + "\n" + code + "\n", width: 100)
    let start = comment.utf8.count + 1
    #expect(ranges == [start..<(start + code.utf8.count)])
  }

  /// A file `swift format` cannot take (a team's own that does not parse) is left out of the
  /// result, and the others in its batch are still formatted.
  @Test func aFileThatCannotBeFormattedLeavesTheOthersFormatted() throws {
    let sandbox = try apiSandbox()
    defer { sandbox.cleanUp() }
    let files = [
      "Tests/RepositoryTests/A.swift": "let  a=[1,2]\n",
      "Tests/RepositoryTests/B.swift": "func broken( {{{\n",
      "Tests/RepositoryTests/C.swift": "let  c=[3,4]\n",
    ]
    let formatted = try #require(SwiftFormatting.format(files, root: sandbox.root))
    #expect(formatted["Tests/RepositoryTests/A.swift"] == "let a = [1, 2]\n")
    #expect(formatted["Tests/RepositoryTests/C.swift"] == "let c = [3, 4]\n")
    #expect(formatted["Tests/RepositoryTests/B.swift"] == nil)
  }
}
