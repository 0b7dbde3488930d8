import Testing
import TrellisFront

@MainActor
@Suite("Deep links")
struct DeepLinkTests {
  @Test func aLinkIsParsedIntoItsPathAndQuery() throws {
    let link = try DeepLink(parsing: "trellis://compose?project=1&draft=x", scheme: "trellis")
    #expect(link.path == ["compose"])
    #expect(link.query == ["project": "1", "draft": "x"])
    #expect(try DeepLink(parsing: "Trellis://tasks/2/", scheme: "trellis").path == ["tasks", "2"])
  }

  @Test(arguments: [
    ("https://tasks/2", "is not a link of this app (trellis://...)"),
    ("trellis://tasks/<script>", "is not a valid part of a link"),
    ("trellis://tasks/%2e%2e", "is not a valid part of a link"),
    ("trellis://tasks?x=1=2=\u{1}", "is not a valid query item"),
    ("trellis://" + String(repeating: "a/", count: 17), "too many parts"),
    ("trellis://" + String(repeating: "a", count: 600), "longer than 512 characters"),
  ])
  func aMalformedLinkIsRefusedWithTheReason(text: String, reason: String) {
    #expect {
      try DeepLink(parsing: text, scheme: "trellis")
    } throws: { ($0 as? DeepLinkError)?.message.contains(reason) == true }
  }

  /// A router with two routes, recording what it was asked to show.
  private func router() -> (DeepLinkRouter, () -> [[String]]) {
    let router = DeepLinkRouter(scheme: "trellis")
    router.register("tasks") { _ in [ViewController(title: "Tasks")] }
    router.register("tasks/:id") { link throws(DeepLinkError) in
      [ViewController(title: "Tasks"), ViewController(title: "Task \(try link.int("id"))")]
    }
    var shown: [[String]] = []
    router.attach { shown.append($0.map(\.title)) }
    return (router, { shown })
  }

  @Test func aLinkShowsItsScreensAndRoutesMatchByPattern() throws {
    let (router, shown) = router()
    try router.open("trellis://tasks/7")
    try router.open("trellis://TASKS")
    #expect(shown() == [["Tasks", "Task 7"], ["Tasks"]])
  }

  @Test func aLinkOpenedWhileSignedOutWaitsForSignIn() throws {
    let (router, shown) = router()
    router.detach()
    try router.open("trellis://tasks/3")
    #expect(router.pendingLink == "trellis://tasks/3")
    #expect(shown().isEmpty)
    var after: [[String]] = []
    router.attach { after.append($0.map(\.title)) }
    #expect(after == [["Tasks", "Task 3"]])
    #expect(router.pendingLink == nil)
  }

  @Test func anUnknownLinkOrABadParameterSaysWhy() {
    let (router, shown) = router()
    #expect {
      try router.open("trellis://settings")
    } throws: {
      "\($0)"
        == "no screen answers trellis://settings (links: trellis://tasks, trellis://tasks/:id)"
    }
    #expect {
      try router.open("trellis://tasks/two")
    } throws: { "\($0)" == "id must be a positive number, not \"two\"" }
    router.detach()  // checked at once, even while signed out
    #expect(throws: DeepLinkError.self) { try router.open("trellis://tasks/0") }
    #expect(router.pendingLink == nil)
    #expect(shown().isEmpty)
  }

  @Test func theScriptCommandOpensALinkOrShowsAnAlert() throws {
    let window = Window(size: TerminalSize(columns: 60, rows: 12))
    let stack = NavigationController(root: ViewController(title: "Home"))
    window.setRoot(stack)
    let router = DeepLinkRouter(scheme: "trellis")
    router.register("tasks") { _ in [ViewController(title: "Tasks")] }
    router.attach { screens in screens.forEach(stack.push) }
    #expect(throws: ScriptError.notFound("this app opens no links")) {
      try window.perform(.open("trellis://tasks"))
    }
    window.deepLinks = router
    let command = try ScriptCommand.parse("open trellis://tasks")
    try window.perform(try #require(command))
    #expect(stack.topViewController.title == "Tasks")
    try window.perform(.open("trellis://nowhere"))
    #expect(window.currentAlert?.title == "Cannot open the link")
    #expect(window.currentAlert?.message.contains("no screen answers trellis://nowhere") == true)
    #expect(throws: ScriptError.self) { try ScriptCommand.parse("open") }
  }
}
