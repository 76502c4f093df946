import TemperaCore

/// The whole editor screen: lays out and draws the transport, timeline, tool panel, tabs and status line
/// into a canvas, and says what lies under a cell.
///
/// - Warning: main (editor) thread only: it reads the `Session`.
public enum EditorView {
    /// Draws everything for the canvas's size. Below `Layout.minimum...` it draws one centred message
    /// instead, naming the size it needs.
    public static func draw(session: Session, view: ViewState, into canvas: inout Canvas) {
        _ = render(session: session, view: view, into: &canvas)
    }

    /// What lies under the cell (x, y) of a screen of `size` (width, height) drawn from the same session and
    /// view state.
    public static func hitTest(x: Int, y: Int, session: Session, view: ViewState, size: (Int, Int)) -> Hit {
        var scratch = Canvas(width: size.0, height: size.1)
        let spots = render(session: session, view: view, into: &scratch)
        // Later spots are drawn over earlier ones.
        for spot in spots.reversed() where spot.rect.contains(x: x, y: y) {
            return spot.hit(x, y)
        }
        return .none
    }

    /// The layout `draw` uses for this session, view and size.
    public static func layout(session: Session, view: ViewState, width: Int, height: Int) -> Layout {
        Layout(width: width, height: height, trackCount: session.document.tracks.count,
               currentTrack: session.currentTrack, trackScroll: view.trackScroll,
               tempoLane: view.tempoLane || !session.document.transport.tempoMap.isEmpty,
               tabRows: view.tab == .pads ? PadsTab.rows(screenHeight: height) : Layout.toolRows)
    }

    /// The message drawn when the screen is below the minimum size.
    public static func tooSmallMessage(width: Int, height: Int) -> String {
        "terminal too small: \(width)x\(height) (needs at least \(Layout.minimumWidth)x\(Layout.minimumHeight))"
    }

    static func render(session: Session, view: ViewState, into canvas: inout Canvas) -> [Spot] {
        canvas.clear()
        let layout = self.layout(session: session, view: view, width: canvas.width, height: canvas.height)
        guard layout.fits else {
            drawTooSmall(into: &canvas)
            return []
        }
        let g = Glyphs.set(ascii: view.ascii)
        drawFrame(layout, g, into: &canvas)
        var spots: [Spot] = []
        spots += TransportPane.draw(session: session, view: view, layout: layout, g, into: &canvas)
        spots += TimelinePane.draw(session: session, view: view, layout: layout, g, into: &canvas)
        spots += ToolPanel.draw(session: session, view: view, layout: layout, g, into: &canvas)
        spots += TabBar.draw(view: view, layout: layout, g, into: &canvas)
        switch view.tab {
        case .clips:
            spots += ClipsTab.draw(session: session, view: view, rect: layout.tabs, g, into: &canvas)
        case .groups:
            spots += GroupsTab.draw(session: session, view: view, rect: layout.tabs, g, into: &canvas)
        case .designer:
            spots += drawDesigner(session: session, view: view, rect: layout.tabs, g, into: &canvas)
        case .song:
            spots += SongTab.draw(session: session, view: view, rect: layout.tabs, g, into: &canvas)
        case .pads:
            spots += PadsTab.draw(session: session, view: view, rect: layout.tabs, g, into: &canvas)
        }
        spots += StatusLine.draw(session: session, view: view, layout: layout, g, into: &canvas)
        if view.focus == .tab { highlightTabBorder(layout, into: &canvas) }
        return spots
    }

    /// With the keys in the tab area, its box is drawn in the active title's role, so where the keys go is
    /// never in doubt.
    static func highlightTabBorder(_ l: Layout, into canvas: inout Canvas) {
        func mark(_ x: Int, _ y: Int) {
            guard x >= 0, y >= 0, x < canvas.width, y < canvas.height else { return }
            let cell = canvas[x, y]
            if cell.role == .border { canvas[x, y] = Cell(cell.char, .titleActive) }
        }
        for x in l.dividerX..<l.width {
            mark(x, l.toolsTitleRow)
            mark(x, l.bottomBorderRow)
        }
        for y in l.toolsTitleRow...l.bottomBorderRow {
            mark(l.dividerX, y)
            mark(l.width - 1, y)
        }
    }

    static func drawTooSmall(into canvas: inout Canvas) {
        guard canvas.height > 0 else { return }
        var text = tooSmallMessage(width: canvas.width, height: canvas.height)
        if text.count > canvas.width {
            text = "too small: \(canvas.width)x\(canvas.height)"
        }
        let x = max(0, (canvas.width - text.count) / 2)
        canvas.put(x, canvas.height / 2, text, .warning)
    }

    /// Boxes and titles of the four areas.
    static func drawFrame(_ l: Layout, _ g: Glyphs, into canvas: inout Canvas) {
        let w = l.width
        func hline(_ y: Int, _ left: Character, _ right: Character) {
            canvas[0, y] = Cell(left, .border)
            canvas.fill(x: 1, y: y, width: w - 2, height: 1, g.horizontal, .border)
            canvas[w - 1, y] = Cell(right, .border)
        }
        hline(0, g.topLeft, g.topRight)
        hline(l.timelineTitleRow, g.teeRight, g.teeLeft)
        hline(l.toolsTitleRow, g.teeRight, g.teeLeft)
        hline(l.bottomBorderRow, g.bottomLeft, g.bottomRight)
        canvas[l.dividerX, l.toolsTitleRow] = Cell(g.teeDown, .border)
        canvas[l.dividerX, l.bottomBorderRow] = Cell(g.teeUp, .border)
        for y in 1..<l.bottomBorderRow where y != l.timelineTitleRow && y != l.toolsTitleRow {
            canvas[0, y] = Cell(g.vertical, .border)
            canvas[w - 1, y] = Cell(g.vertical, .border)
            if y > l.toolsTitleRow { canvas[l.dividerX, y] = Cell(g.vertical, .border) }
        }
        for y in 3..<l.toolsTitleRow {
            canvas[l.names.maxX, y] = Cell(g.vertical, .border)
        }
        canvas.put(2, l.toolsTitleRow, " tools ", .title)
    }

    /// The Rhythm Designer tab's area, drawn by `DesignerTab` from the view's `designer` state; clicks come
    /// back as `.designer(x:y:)` relative to the area's top-left corner (see `DesignerTab.click`).
    static func drawDesigner(session: Session, view: ViewState, rect r: Rect, _ g: Glyphs,
                             into canvas: inout Canvas) -> [Spot] {
        DesignerTab.render(session: session, state: view.designer, view: view, into: &canvas, rect: r)
    }
}
