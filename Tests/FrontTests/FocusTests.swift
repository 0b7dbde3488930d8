import Testing
import TrellisFront

/// A form like the compose screen's: a path field, "Attach" (disabled while an upload runs or
/// the path is empty), a list, and "Save" (disabled while saving).
@MainActor
private final class UploadScreen: ViewController {
  var path = "/tmp/a.png"
  var isUploading = false
  var isSaving = false
  var tapped: [String] = []

  init() { super.init(title: "Upload") }

  override func body() -> [Element] {
    var elements: [Element] = [
      .field(
        TextField(
          id: "file", label: "File", text: path, onChange: { [weak self] in self?.path = $0 })),
      .button(
        Button("Attach", isEnabled: !isUploading && !path.isEmpty) { [weak self] in
          self?.tapped.append("Attach")
          self?.isUploading = true
        }),
      .list(ListBox(id: "tags", title: "Tags", items: [ListItem("bug")], onSelect: { _ in })),
      .button(
        Button("Save", isEnabled: !isSaving) { [weak self] in
          self?.tapped.append("Save")
          self?.isSaving = true
        }),
    ]
    if isUploading { elements.append(.spinner("Uploading…")) }
    return elements
  }
}

@MainActor
@Suite("Focus: it stays where the user put it")
struct FocusTests {
  /// After "Attach" (which disables itself while it works, success or failure) the focus is
  /// still on it, not on the first control; Enter taps it again once it is enabled.
  @Test func theFocusStaysOnAButtonWhileItIsDisabled() {
    let screen = UploadScreen()
    let window = Window(size: TerminalSize(columns: 60, rows: 14))
    window.setRoot(screen)
    window.handle(.tab)  // the field to "Attach"
    window.handle(.enter)
    _ = window.text  // drawn while "Attach" is disabled
    screen.isUploading = false  // it failed, or finished
    window.handle(.enter)
    #expect(screen.tapped == ["Attach", "Attach"])
    #expect(window.text.contains("[ Attach ]"))
  }

  /// From a disabled control, Tab goes to the next control that takes input, Shift-Tab to the
  /// one before; "Save" keeps the focus while saving.
  @Test func tabFromADisabledControlGoesToItsNeighbour() {
    let screen = UploadScreen()
    let window = Window(size: TerminalSize(columns: 60, rows: 14))
    window.setRoot(screen)
    window.handle(.tab)
    window.handle(.enter)  // Attach: disabled now
    _ = window.text
    window.handle(.backTab)  // to the field
    window.handle(.character("x"))
    #expect(screen.path == "/tmp/a.pngx")
    screen.isUploading = false
    for _ in 0..<3 { window.handle(.tab) }  // Attach, the list, Save
    window.handle(.enter)
    _ = window.text
    screen.isSaving = false  // the save failed: the form is still open
    window.handle(.enter)
    #expect(screen.tapped == ["Attach", "Save", "Save"])
  }
}
