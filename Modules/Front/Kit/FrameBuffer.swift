/// How a cell is drawn.
public struct TextStyle: Sendable, Equatable {
  /// Bold (bright) text.
  public var isBold = false
  /// Dimmed text, for hints.
  public var isDim = false
  /// Foreground and background swapped: the focused control.
  public var isInverse = false
  /// Underlined: an editable field.
  public var isUnderlined = false
  /// An ANSI color number (30-37), or `nil` for the terminal's default.
  public var color: Int?

  /// Plain text.
  public static let plain = TextStyle()
  /// Bold text.
  public static let bold = TextStyle(isBold: true)
  /// Dim text.
  public static let dim = TextStyle(isDim: true)
  /// Inverse text.
  public static let inverse = TextStyle(isInverse: true)
  /// Red text, for errors.
  public static let error = TextStyle(isBold: true, color: 31)
  /// Green text, for success.
  public static let success = TextStyle(color: 32)
  /// Yellow text, for warnings.
  public static let warning = TextStyle(color: 33)

  /// Creates a style.
  public init(
    isBold: Bool = false, isDim: Bool = false, isInverse: Bool = false, isUnderlined: Bool = false,
    color: Int? = nil
  ) {
    self.isBold = isBold
    self.isDim = isDim
    self.isInverse = isInverse
    self.isUnderlined = isUnderlined
    self.color = color
  }

  /// The SGR escape sequence that selects this style (after a reset).
  var ansiCodes: String {
    var codes: [String] = []
    if isBold { codes.append("1") }
    if isDim { codes.append("2") }
    if isUnderlined { codes.append("4") }
    if isInverse { codes.append("7") }
    if let color { codes.append("\(color)") }
    return "\u{1B}[0" + (codes.isEmpty ? "" : ";" + codes.joined(separator: ";")) + "m"
  }
}

/// A grid of styled characters: what a frame looks like before it reaches a terminal, and
/// what tests read as text.
public struct FrameBuffer: Sendable, Equatable {
  struct Cell: Sendable, Equatable {
    var character: Character = " "
    var style = TextStyle.plain
    /// The right half of a wide character: drawn by the cell before it.
    var isContinuation = false
  }

  /// The width in columns.
  public let width: Int
  /// The height in rows.
  public let height: Int
  private var cells: [Cell]

  /// Creates a blank frame.
  public init(width: Int, height: Int) {
    self.width = max(1, width)
    self.height = max(1, height)
    cells = Array(repeating: Cell(), count: self.width * self.height)
  }

  /// Writes `text` from column `x` of row `y`, clipped to the frame and to `maxWidth` columns;
  /// returns the number of columns used.
  @discardableResult
  public mutating func write(
    _ text: String, x: Int, y: Int, style: TextStyle = .plain, maxWidth: Int? = nil
  ) -> Int {
    guard y >= 0, y < height else { return 0 }
    let limit = min(width, x + (maxWidth ?? width))
    var column = x
    for character in text {
      let characterWidth = character.displayWidth
      guard column + characterWidth <= limit else { break }
      if column >= 0 {
        cells[y * width + column] = Cell(character: character, style: style)
        if characterWidth == 2, column + 1 < width {
          cells[y * width + column + 1] = Cell(character: " ", style: style, isContinuation: true)
        }
      }
      column += characterWidth
    }
    return column - x
  }

  /// Sets the style of `count` cells from column `x` of row `y` (to highlight a line).
  public mutating func setStyle(_ style: TextStyle, x: Int, y: Int, count: Int) {
    guard y >= 0, y < height else { return }
    for column in max(0, x)..<min(width, x + count) { cells[y * width + column].style = style }
  }

  /// The frame as plain text: one line per row, trailing spaces removed.
  public var text: String {
    (0..<height).map { row in
      var line = ""
      for column in 0..<width where !cells[row * width + column].isContinuation {
        line.append(cells[row * width + column].character)
      }
      while line.last == " " { line.removeLast() }
      return line
    }.joined(separator: "\n")
  }

  /// The frame as ANSI: each row from column 1, styles as SGR sequences.
  public func ansi() -> String {
    var output = "\u{1B}[H"
    for row in 0..<height {
      output += "\u{1B}[\(row + 1);1H"
      var current: TextStyle?
      for column in 0..<width {
        let cell = cells[row * width + column]
        if cell.isContinuation { continue }
        if cell.style != current {
          output += cell.style.ansiCodes
          current = cell.style
        }
        output.append(cell.character)
      }
      output += "\u{1B}[0m"
    }
    return output
  }
}

extension Character {
  /// Columns the character takes in a terminal: 2 for wide East Asian characters and emoji,
  /// else 1 (see ``CharacterWidth``).
  var displayWidth: Int { CharacterWidth.of(self) }
}

extension String {
  /// Columns the string takes in a terminal.
  var displayWidth: Int { reduce(0) { $0 + $1.displayWidth } }
}
