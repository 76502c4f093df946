/// One character cell: a single grapheme of display width 1 and the role it is painted with.
public struct Cell: Hashable, Sendable {
    public var char: Character
    public var role: Role

    public init(_ char: Character = " ", _ role: Role = .normal) {
        self.char = char
        self.role = role
    }
}

/// A rectangle of cells that panes draw into. The curses screen shows a canvas (drawing only the cells that
/// changed since the last frame); tests read one back as text. Drawing outside the bounds is clipped.
public struct Canvas: Hashable, Sendable {
    public private(set) var width: Int
    public private(set) var height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(width, 0)
        self.height = max(height, 0)
        cells = Array(repeating: Cell(), count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            cells[y * width + x] = newValue
        }
    }

    /// Fills the whole canvas with blanks of one role.
    public mutating func clear(_ role: Role = .normal) {
        for i in cells.indices { cells[i] = Cell(" ", role) }
    }

    /// Writes text from (x, y) to the right, one cell per character, clipped to the canvas.
    /// Returns the column after the last character written.
    @discardableResult
    public mutating func put(_ x: Int, _ y: Int, _ text: String, _ role: Role = .normal) -> Int {
        var col = x
        guard y >= 0, y < height else { return x + text.count }
        for ch in text {
            if col >= width { break }
            if col >= 0 { cells[y * width + col] = Cell(ch, role) }
            col += 1
        }
        return col
    }

    /// Fills a rectangle with one character.
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, _ char: Character = " ", _ role: Role = .normal) {
        let rows = max(y, 0)..<max(min(y + h, height), max(y, 0))
        let cols = max(x, 0)..<max(min(x + w, width), max(x, 0))
        for row in rows {
            for col in cols { cells[row * width + col] = Cell(char, role) }
        }
    }

    /// Copies another canvas in at (x, y), clipped.
    public mutating func blit(_ other: Canvas, x: Int, y: Int) {
        for row in 0..<other.height {
            for col in 0..<other.width {
                self[x + col, y + row] = other[col, row]
            }
        }
    }

    /// Row `y` as a string (trailing blanks kept).
    public func line(_ y: Int) -> String {
        String(cells[(y * width)..<((y + 1) * width)].map(\.char))
    }

    /// The whole canvas as text, one line per row, trailing blanks trimmed: what tests compare.
    public var text: String {
        (0..<height).map { y in
            var s = line(y)
            while s.last == " " { s.removeLast() }
            return s
        }.joined(separator: "\n")
    }

    /// The role painted at the first cell of row `y` whose text starts `needle`, for tests on styling.
    public func role(of needle: String, inRow y: Int) -> Role? {
        let row = Array(line(y)), n = Array(needle)
        guard !n.isEmpty, n.count <= row.count else { return nil }
        for x in 0...(row.count - n.count) where Array(row[x..<(x + n.count)]) == n {
            return self[x, y].role
        }
        return nil
    }
}
