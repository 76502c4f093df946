/// The 16 cells of the Clips and Groups tabs, laid out down the columns of a rectangle: as many rows as
/// the rectangle has, as few columns as that allows, so each cell gets the most width.
struct SlotGrid {
    let rect: Rect
    let rows: Int
    let columns: Int
    let cellWidth: Int

    init(rect: Rect, count: Int = 16) {
        self.rect = rect
        rows = max(1, rect.height)
        columns = (count + rows - 1) / rows
        cellWidth = max(1, rect.width / columns)
    }

    /// The cell of slot `n` (1-based).
    func cell(_ n: Int) -> Rect {
        let i = n - 1
        return Rect(x: rect.x + (i / rows) * cellWidth, y: rect.y + i % rows, width: cellWidth - 1, height: 1)
    }
}
