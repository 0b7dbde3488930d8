import Testing

@testable import TrellisGenerator

/// The YAML API descriptions are written in: each construct read, each refusal with its line
/// and column.
@Suite("YAMLReader: the YAML of API descriptions, and JSON")
struct YAMLReaderTests {
  private func read(_ text: String) throws -> DocumentValue {
    try YAMLReader.read(text)
  }

  private func object(_ entries: (String, DocumentValue)...) -> DocumentValue {
    .object(DocumentObject(entries))
  }

  @Test func blockMappingsAndSequencesNestedWithCommentsAndKeyOrder() throws {
    let value = try read(
      """
      # An API
      openapi: 3.0.3   # a version
      info:
        title: Pets
        version: "1.0"
      tags:
      - name: pets
        description: Everything about pets
      - name: store
      paths:
        /pets/{id}:
          get:
            parameters:
              - name: id
                in: path
                required: true
      """)
    #expect(value["openapi"] == .string("3.0.3"))
    #expect(value.object?.keys == ["openapi", "info", "tags", "paths"])
    #expect(value["info"] == object(("title", .string("Pets")), ("version", .string("1.0"))))
    #expect(
      value["tags"]
        == .array([
          object(("name", .string("pets")), ("description", .string("Everything about pets"))),
          object(("name", .string("store"))),
        ]))
    let parameter = value["paths"]?["/pets/{id}"]?["get"]?["parameters"]?.array?.first
    #expect(
      parameter
        == object(("name", .string("id")), ("in", .string("path")), ("required", .bool(true))))
  }

  @Test func plainScalarsResolveAsTheCoreSchema() throws {
    let value = try read(
      """
      a: null
      b: ~
      c:
      d: true
      e: False
      f: 42
      g: -7
      h: 0x1F
      i: 1.5
      j: 2e3
      k: .inf
      l: 12abc
      m: 9223372036854775808
      n: "42"
      o: '1.5'
      p: 2026-11-26T10:00:00Z
      """)
    #expect(value["a"] == .null && value["b"] == .null && value["c"] == .null)
    #expect(value["d"] == .bool(true) && value["e"] == .bool(false))
    #expect(value["f"] == .int(42) && value["g"] == .int(-7) && value["h"] == .int(31))
    #expect(value["i"] == .double(1.5) && value["j"] == .double(2000))
    #expect(value["k"] == .double(.infinity))
    #expect(value["l"] == .string("12abc"))
    #expect(value["m"] == .double(9_223_372_036_854_775_808))
    #expect(value["n"] == .string("42") && value["o"] == .string("1.5"))
    #expect(value["p"] == .string("2026-11-26T10:00:00Z"))
  }

  @Test func quotedScalarsWithEscapesAndLineBreaks() throws {
    let value = try read(
      #"""
      double: "tab\there \"q\" \u00e9 \x41 \\ end"
      single: 'it''s # not a comment'
      folded: "one
        two

        three"
      escaped: "joined\
        here"
      "quoted key": 1
      'single key': 2
      "200": ok
      """#)
    #expect(value["double"] == .string("tab\there \"q\" é A \\ end"))
    #expect(value["single"] == .string("it's # not a comment"))
    #expect(value["folded"] == .string("one two\nthree"))
    #expect(value["escaped"] == .string("joinedhere"))
    #expect(value["quoted key"] == .int(1) && value["single key"] == .int(2))
    #expect(value["200"] == .string("ok"))
  }

  @Test func plainScalarsOverSeveralLines() throws {
    let value = try read(
      """
      description: A long description
        that goes on

        and on.
      next: 1
      """)
    #expect(value["description"] == .string("A long description that goes on\nand on."))
    #expect(value["next"] == .int(1))
  }

  @Test func literalAndFoldedBlockScalarsWithChomping() throws {
    let value = try read(
      """
      literal: |
        line one
          indented
        line three
      folded: >
        one
        two

        three
          kept
        four
      strip: |-
        text

      keep: |+
        text

      indicated: |2
          two extra
      last: end
      """)
    #expect(value["literal"] == .string("line one\n  indented\nline three\n"))
    #expect(value["folded"] == .string("one two\nthree\n  kept\nfour\n"))
    #expect(value["strip"] == .string("text"))
    #expect(value["keep"] == .string("text\n\n"))
    #expect(value["indicated"] == .string("  two extra\n"))
    #expect(value["last"] == .string("end"))
  }

  @Test func flowCollectionsOnOneLineAndSeveral() throws {
    let value = try read(
      """
      required: [id, name]
      enum: [ "a b", 'c', 3, true, null ]
      object: {type: string, format: date-time}
      long: {
        a: [1, 2,
            3],   # a comment
        "b": {c: d},
        url: http://example.com/x,
      }
      empty: []
      none: {}
      """)
    #expect(value["required"] == .array([.string("id"), .string("name")]))
    #expect(
      value["enum"] == .array([.string("a b"), .string("c"), .int(3), .bool(true), .null]))
    #expect(
      value["object"] == object(("type", .string("string")), ("format", .string("date-time"))))
    #expect(
      value["long"]
        == object(
          ("a", .array([.int(1), .int(2), .int(3)])), ("b", object(("c", .string("d")))),
          ("url", .string("http://example.com/x"))))
    #expect(value["empty"] == .array([]) && value["none"] == .object(DocumentObject()))
  }

  @Test func jsonIsRead() throws {
    let value = try read(
      #"""
      {"openapi":"3.1.0","info":{"title":"T","version":"1"},
       "paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}},
       "list":[1,-2.5e1,true,false,null,"x\ny"]}
      """#)
    #expect(value.object?.keys == ["openapi", "info", "paths", "list"])
    #expect(value["paths"]?["/a"]?["get"]?["responses"]?["200"]?["description"] == .string("ok"))
    #expect(
      value["list"]
        == .array([.int(1), .double(-25), .bool(true), .bool(false), .null, .string("x\ny")]))
    // A character beyond U+FFFF, as JSON escapes it: a surrogate pair.
    #expect(try read(#"{"a": "ok \ud83d\udc4d"}"#) == object(("a", .string("ok 👍"))))
  }

  /// An explicit key (`? key`, `: value` on the next line), as documents write keys too long
  /// for a line; its value is any node.
  @Test func explicitKeysWithAScalar() throws {
    #expect(
      try read("? long.key\n: 1\nb: 2\n? \"quoted key\"\n:\n  c: 3\n")
        == object(
          ("long.key", .int(1)), ("b", .int(2)), ("quoted key", object(("c", .int(3))))))
    #expect(try read("a:\n  ? k\n  : v\n") == object(("a", object(("k", .string("v"))))))
    // The value may be a mapping starting on the `: ` line, its keys at that column.
    #expect(
      try read("? k\n: type: object\n  required: [a]\n")
        == object(("k", object(("type", .string("object")), ("required", .array([.string("a")]))))))
  }

  @Test func anchorsAliasesAndMerges() throws {
    let value = try read(
      """
      base: &base
        type: object
        required: [id]
      copy: *base
      list:
        - &item {name: a}
        - *item
      merged:
        <<: *base
        required: [name]
      """)
    let base = object(("type", .string("object")), ("required", .array([.string("id")])))
    #expect(value["base"] == base && value["copy"] == base)
    #expect(
      value["list"] == .array([object(("name", .string("a"))), object(("name", .string("a")))]))
    #expect(
      value["merged"]
        == object(("required", .array([.string("name")])), ("type", .string("object"))))
  }

  @Test func documentMarkersAndSequencesOfSequences() throws {
    #expect(try read("---\na: 1\n...\n") == object(("a", .int(1))))
    #expect(try read("") == .null)
    #expect(try read("# only a comment\n") == .null)
    #expect(
      try read("- - a\n  - b\n- c\n")
        == .array([.array([.string("a"), .string("b")]), .string("c")]))
    #expect(try read("a:\n  -\n  - x\n") == object(("a", .array([.null, .string("x")]))))
    #expect(try read("a: 1\r\nb: 2\r\n") == object(("a", .int(1)), ("b", .int(2))))
  }

  /// What it does not read is refused with where, never read wrongly.
  @Test(arguments: [
    ("a: !!str 1\n", 1, 4, "tags"),
    ("%YAML 1.2\n---\na: 1\n", 1, 1, "directives"),
    ("? [a, b]\n: value\n", 1, 1, "complex keys"),
    ("? key\nb: 1\n", 1, 1, "needs \": value\" on the next line"),
    (#"a: "\ud83d x""#, 1, 5, "a \\u surrogate without its pair"),
    (#"a: "\udc4d""#, 1, 5, "names no character"),
    ("a: 1\n---\nb: 2\n", 2, 1, "a second document"),
    ("a:\n\tb: 1\n", 2, 1, "a tab in the indentation"),
    ("a: *missing\n", 1, 4, "no anchor &missing"),
    ("a: 1\nb: 2\na: 3\n", 3, 1, "appears twice"),
    ("a: [1, 2\nb: 3\n", 2, 2, "expected , or ] in this sequence"),
    ("a: [1, 2\n", 1, 4, "this [ is never closed"),
    ("a: \"open\nb: 2\n", 1, 4, "never closed"),
    ("a: 1\n   b: 2\n", 2, 4, "continues a text above but reads as a key"),
    ("a: b: c\n", 1, 4, "a mapping cannot start on its key's line"),
    ("a: - b\n", 1, 4, "a sequence cannot start on its key's line"),
    ("a:\n  - x\n  y: 1\n", 3, 3, "a key of this mapping goes at column 1"),
    ("a: [1 2] x\n", 1, 10, "unexpected text after the value"),
    ("a: {b: 1, b: 2}\n", 1, 11, "appears twice"),
    ("a: \"\\q\"\n", 1, 5, "an unknown escape"),
    ("a: |x\n  b\n", 1, 5, "a block scalar's header"),
    ("<<: 1\n", 1, 1, "a merge (<<) takes a mapping"),
  ])
  func aConstructItDoesNotReadIsRefusedWithItsPlace(
    text: String, line: Int, column: Int, reason: String
  ) {
    #expect {
      try YAMLReader.read(text)
    } throws: { error in
      guard let error = error as? DocumentError else { return false }
      return error.line == line && error.column == column && error.reason.contains(reason)
    }
  }

  /// Bounds: nesting, and aliases (a "billion laughs" document stops at the limit).
  @Test func nestingAndAliasesAreBounded() {
    let deep = String(repeating: "[", count: YAMLReader.maximumDepth + 1)
    #expect(throws: DocumentError.self) { try YAMLReader.read("a: \(deep)") }
    var laughs = "a: &a [x, x]\n"
    var previous = "a"
    for index in 0..<20 {
      let name = "n\(index)"
      laughs +=
        "\(name): &\(name) ["
        + Array(repeating: "*\(previous)", count: 1000).joined(
          separator: ", ") + "]\n"
      previous = name
    }
    #expect {
      try YAMLReader.read(laughs)
    } throws: { error in
      (error as? DocumentError)?.reason.contains("aliases") == true
    }
    // Few aliases, each copying the last anchor ten times: 10^12 values if written out.
    var nested = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
    for level in 1...12 {
      nested +=
        "l\(level): &l\(level) ["
        + Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
    }
    #expect {
      try YAMLReader.read(nested)
    } throws: { error in
      (error as? DocumentError)?.reason.contains(
        "expand to more than \(YAMLReader.maximumExpandedValues) values") == true
    }
  }
}
