import TemperaCore

/// The bottom line: the `:` command line while it is open; otherwise the last message, or what undo
/// would undo, with the current track and selection at the right.
enum StatusLine {
    static func draw(session: Session, view: ViewState, layout l: Layout, _ g: Glyphs,
                     into canvas: inout Canvas) -> [Spot] {
        let r = l.status
        if let line = view.commandLine {
            let (lineRect, error) = commandLineParts(view: view, line: line, rect: r, g)
            if let error { canvas.put(r.maxX - error.count - 1, r.y, error, .error) }
            drawCommandLine(line, cursor: view.commandCursor, label: view.commandLabel, selection: view.commandSelection,
                            rect: lineRect, g, into: &canvas)
            return [Spot(r, .statusLine)]
        }
        if let job = view.render {
            // A bar while a render runs: "rendering song.wav [█████·····] 48%".
            let name = (job.path.split(separator: "/").last).map(String.init) ?? job.path
            let percent = Int((job.fraction * 100).rounded(.down))
            let label = "rendering \(name) "
            let width = max(4, min(30, r.width - label.count - 8))
            let filled = Int((job.fraction * Double(width)).rounded(.down))
            let x = canvas.put(r.x + 1, r.y, label + "[", .message)
            let x2 = canvas.put(x, r.y, String(repeating: g.sliderFill, count: filled), .sliderFill)
            let x3 = canvas.put(x2, r.y, String(repeating: g.sliderEmpty, count: width - filled), .sliderEmpty)
            canvas.put(x3, r.y, "] \(percent)%", .message)
            return [Spot(r, .statusLine)]
        }
        let right = summary(session: session, view: view)
        var rightX = r.maxX - right.count - 1
        canvas.put(rightX, r.y, right, .dim)
        if let link = view.transport.link {
            // The Link session before the track: with peers in the accent, alone dimmed.
            let text = link.text + "  "
            if rightX - text.count - r.x > 12 {
                rightX -= text.count
                canvas.put(rightX, r.y, link.text, link.peers > 0 ? .accent : .dim)
            }
        }
        let room = rightX - r.x - 2
        if let message = view.message {
            canvas.put(r.x + 1, r.y, Format.fit(message, room, ellipsis: g.ellipsis),
                       view.messageIsError ? .error : .message)
        } else {
            canvas.put(r.x + 1, r.y, Format.fit(hint(session: session, view: view), room, ellipsis: g.ellipsis), .dim)
        }
        return [Spot(r, .statusLine)]
    }

    /// Where the open line goes and the error shown at its right: an error about the line (a pattern code that
    /// does not read) stays beside it while it is fixed.
    static func commandLineParts(view: ViewState, line: String, rect r: Rect, _ g: Glyphs) -> (Rect, String?) {
        guard view.messageIsError, let message = view.message else { return (r, nil) }
        let room = max(r.width / 2, r.width - view.commandLabel.count - line.count - 4)
        let shown = Format.fit(message, max(0, min(message.count, room)), ellipsis: g.ellipsis)
        guard !shown.isEmpty else { return (r, nil) }
        var lineRect = r
        lineRect.width -= shown.count + 2
        return (lineRect, shown)
    }

    /// The screen column of the open line's insertion point, as `drawCommandLine` scrolls it, on a screen
    /// `width` wide.
    static func commandCursorColumn(view: ViewState, width: Int, _ g: Glyphs) -> Int {
        let (r, _) = commandLineParts(view: view, line: view.commandLine ?? "", rect: Rect(x: 0, y: 0, width: width, height: 1), g)
        let x0 = r.x + view.commandLabel.count
        let at = max(view.commandCursor, 0)
        let room = max(1, r.maxX - x0 - 1)
        return x0 + at - max(0, at - room + 1)
    }

    /// "label text" (":text" for commands) with the cursor cell; scrolled so the cursor stays in view. A
    /// selected text is drawn in the selection's role.
    static func drawCommandLine(_ text: String, cursor: Int, label: String = ":", selection: Range<Int>? = nil,
                                rect r: Rect, _ g: Glyphs, into canvas: inout Canvas) {
        let chars = Array(text)
        let at = min(max(cursor, 0), chars.count)
        let x0 = canvas.put(r.x, r.y, label, .prompt)
        let room = r.maxX - x0 - 1
        guard room > 0 else { return }
        let first = max(0, at - room + 1)
        var x = x0
        for i in first..<min(chars.count, first + room) {
            canvas[x, r.y] = Cell(chars[i], i == at ? .cursor : selection?.contains(i) == true ? .markerSelected : .normal)
            x += 1
        }
        if at == chars.count { canvas[x0 + at - first, r.y] = Cell(" ", .cursor) }
    }

    /// Where to look next when nothing has been said: what undo would undo, or the help and command keys.
    static func hint(session: Session, view: ViewState) -> String {
        let help = view.key("help") ?? "?"
        let command = view.key("command") ?? ":"
        var parts: [String] = []
        if view.focus == .tab { parts.append("\(view.tab.label) has the keys  Esc: back to the timeline") }
        if let name = session.undoName { parts.append("undo \(name)" + (view.key("undo").map { " (\($0))" } ?? "")) }
        parts.append("\(help) help")
        parts.append("\(command) command")
        return parts.joined(separator: "  ")
    }


    /// "track 2/5 kick  3 selected".
    static func summary(session: Session, view: ViewState) -> String {
        let count = session.document.tracks.count
        guard count > 0 else { return "no tracks" }
        let t = min(max(session.currentTrack, 0), count - 1)
        var text = "track \(t + 1)/\(count) \(session.document.tracks[t].name)"
        let selected = session.selectionCount
        if selected > 0 { text += "  \(selected) selected" }
        return text
    }
}
