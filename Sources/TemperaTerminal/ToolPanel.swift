import TemperaCore

/// The tool panel: the clip-mode and snap toggles, then the draw, fill, select and modify sections with
/// each tool's key, the pattern code area, and the subdivision count. Items flow onto a second row
/// (indented under their section) when the panel is narrow.
enum ToolPanel {
    /// Width of the section names column ("modify ").
    static let sectionWidth = 7

    static func draw(session: Session, view: ViewState, layout l: Layout, _ g: Glyphs,
                     into canvas: inout Canvas) -> [Spot] {
        var spots: [Spot] = []
        let r = l.tools
        var y = r.y
        var x = r.x

        func fits(_ width: Int) -> Bool { x + width <= r.maxX }
        func newRow() {
            y += 1
            x = r.x + sectionWidth
        }
        /// One item: its key in the key role, then its label; wraps first if it does not fit.
        func item(key: String?, label: String, role: Role, hit: Hit) {
            let keyText = key.map { $0 + " " } ?? ""
            let width = keyText.count + label.count
            if x > r.x + sectionWidth && !fits(width) { newRow() }
            guard y < r.maxY else { return }
            let start = x
            x = canvas.put(x, y, keyText, .toolKey)
            x = canvas.put(x, y, label, role)
            spots.append(Spot(Rect(x: start, y: y, width: x - start, height: 1), hit))
            x += 2
        }
        func section(_ name: String) {
            if y >= r.maxY { return }
            x = r.x
            canvas.put(x, y, name, .dim)
            x += sectionWidth
        }

        section("mode")
        item(key: view.key("mode.clip"), label: session.clipMode ? "[clip]" : " clip ",
             role: session.clipMode ? .toolActive : .tool, hit: .clipMode)
        item(key: view.key("mode.snap"), label: session.snap ? "[snap]" : " snap ",
             role: session.snap ? .toolActive : .tool, hit: .snap)
        subdivisionItem(session: session, view: view, row: y, layout: l, into: &canvas, spots: &spots)

        for s in Tool.Section.allCases {
            y += 1
            guard y < r.maxY else { break }
            section(s.rawValue)
            for tool in s.tools {
                item(key: view.key(tool.action), label: tool.label(ascii: view.ascii),
                     role: tool == view.tool ? .toolActive : .tool, hit: .tool(tool))
            }
            if s == .fill { patternArea(session: session, view: view, x: x, y: y, layout: l, g,
                                        into: &canvas, spots: &spots) }
        }
        return spots
    }

    /// The code of the pattern tools: the one being typed (with a text cursor), else the document's.
    static func patternArea(session: Session, view: ViewState, x: Int, y: Int, layout l: Layout, _ g: Glyphs,
                            into canvas: inout Canvas, spots: inout [Spot]) {
        let width = l.tools.maxX - x
        guard width > 4, y < l.tools.maxY else { return }
        let rect = Rect(x: x, y: y, width: width, height: 1)
        spots.append(Spot(rect, .patternArea))
        if let typing = view.patternInput {
            // Keep the end (where the user types) in view.
            let room = width - 1
            let shown = typing.count > room ? String(g.ellipsis) + String(typing.suffix(room - 1)) : typing
            let end = canvas.put(x, y, shown, .pattern)
            canvas.put(end, y, String(g.textCursor), .cursor)
        } else if session.document.pattern.isEmpty {
            canvas.put(x, y, "(no code)", .dim)
        } else {
            canvas.put(x, y, Format.fit(session.document.pattern, width, ellipsis: g.ellipsis), .pattern)
        }
    }

    /// "n 2" at the right end of the mode row: how many markers `subdivide` puts between two.
    static func subdivisionItem(session: Session, view: ViewState, row y: Int, layout l: Layout,
                                into canvas: inout Canvas, spots: inout [Spot]) {
        let n = session.subdivision
        let key = view.key("subdivision").map { $0 + " " } ?? ""
        let text = "subdivide n=\(n)"
        let x = l.tools.maxX - key.count - text.count
        let end = canvas.put(canvas.put(x, y, key, .toolKey), y, text, .tool)
        spots.append(Spot(Rect(x: x, y: y, width: end - x, height: 1), .subdivision))
    }

}
