/// The visible stretch of the timeline: where it starts and how much time one column holds.
///
/// Pure arithmetic with no terminal in it, so scrolling, zooming and following the playhead are tested
/// directly. Columns count from the timeline's first column (0), not from the screen's left edge.
public struct Viewport: Hashable, Sendable {
    /// Seconds (tempo x1) at the left edge of column 0.
    public var start: Double
    /// Seconds one column holds.
    public var secondsPerColumn: Double

    /// The finest zoom: 0.2 ms a column, so markers 3 ms apart lie 15 columns apart.
    public static let minSecondsPerColumn = 0.0002
    /// The coarsest zoom: a minute a column.
    public static let maxSecondsPerColumn = 60.0

    /// - Parameters:
    ///   - start: seconds at the left edge; never below 0.
    ///   - secondsPerColumn: clamped to `minSecondsPerColumn...maxSecondsPerColumn`.
    public init(start: Double = 0, secondsPerColumn: Double = 0.025) {
        self.start = max(0, start)
        self.secondsPerColumn = Swift.min(Swift.max(secondsPerColumn, Viewport.minSecondsPerColumn),
                                          Viewport.maxSecondsPerColumn)
    }

    /// A viewport that shows `a...b` across `columns` columns.
    public static func fitting(_ a: Double, _ b: Double, columns: Int) -> Viewport {
        let span = Swift.max(b - a, Viewport.minSecondsPerColumn)
        return Viewport(start: a, secondsPerColumn: span / Double(Swift.max(columns, 1)))
    }

    /// The time at a (possibly fractional) column: `time(atColumn: 3.5)` is the middle of column 3.
    public func time(atColumn column: Double) -> Double {
        start + column * secondsPerColumn
    }

    /// The time at the left edge of a column.
    public func time(atColumn column: Int) -> Double {
        time(atColumn: Double(column))
    }

    /// Where a time falls, in columns with the sub-column fraction (2.25: a quarter into column 2).
    public func position(of time: Double) -> Double {
        (time - start) / secondsPerColumn
    }

    /// The column a time falls in (negative when left of the view). A time on a column's left edge belongs
    /// to that column even when rounding of the division lands a hair below it.
    /// A time far off the screen (or not a number) gives a column far off it too, never a trap converting it.
    public func column(of time: Double) -> Int {
        let p = (position(of: time) + 1e-9).rounded(.down)
        guard p.isFinite else { return p == .infinity ? Viewport.farColumn : -Viewport.farColumn }
        return Int(Swift.max(-Double(Viewport.farColumn), Swift.min(Double(Viewport.farColumn), p)))
    }

    /// Further than any screen is wide, either way.
    static let farColumn = 1 << 40

    /// The time just past the last of `columns` columns.
    public func end(columns: Int) -> Double {
        time(atColumn: columns)
    }

    /// Zooms by `factor` (below 1 zooms in) keeping `time` on the same screen position.
    public mutating func zoom(by factor: Double, about time: Double) {
        let at = position(of: time)
        let spc = Swift.min(Swift.max(secondsPerColumn * factor, Viewport.minSecondsPerColumn),
                            Viewport.maxSecondsPerColumn)
        secondsPerColumn = spc
        start = Swift.max(0, time - at * spc)
    }

    /// Halves the time a column holds, about `time`.
    public mutating func zoomIn(about time: Double) { zoom(by: 0.5, about: time) }

    /// Doubles the time a column holds, about `time`.
    public mutating func zoomOut(about time: Double) { zoom(by: 2, about: time) }

    /// Moves the view by a number of columns (negative: towards 0).
    public mutating func scroll(columns: Double) {
        start = Swift.max(0, start + columns * secondsPerColumn)
    }

    /// Keeps `time` in view with `margin` columns to spare on either side, scrolling as little as possible:
    /// for the cursor as it moves.
    public mutating func reveal(_ time: Double, columns: Int, margin: Int = 4) {
        let m = Swift.min(margin, Swift.max(0, (columns - 1) / 2))
        let p = position(of: time)
        if p < Double(m) {
            start = Swift.max(0, time - Double(m) * secondsPerColumn)
        } else if p >= Double(columns - m) {
            start = Swift.max(0, time - Double(columns - m - 1) * secondsPerColumn)
        }
    }

    /// Follows the playhead a page at a time: when it leaves the view, the view jumps so the playhead sits
    /// `margin` columns from the left edge. Paging rather than smooth scrolling keeps markers still while the
    /// eye reads them.
    public mutating func follow(_ playhead: Double, columns: Int, margin: Int = 2) {
        let p = position(of: playhead)
        if p < 0 || p >= Double(columns) {
            start = Swift.max(0, playhead - Double(Swift.min(margin, columns / 2)) * secondsPerColumn)
        }
    }
}
