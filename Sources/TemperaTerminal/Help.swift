import TemperaCore

/// The `?` / F1 overlay: every binding in force, read from the live key map so it cannot go stale, grouped
/// by context, each with what it does; then every command the `:` line takes, read from the command table.
public enum Help {
    static let contextTitles: [KeyMap.Context: String] = [
        .global: "everywhere",
        .timeline: "on the timeline",
        .tab: "in the tab area (Tab moves the keys there)",
        .clips: "in the Clips tab (the chosen slot)",
        .groups: "in the Groups tab (the chosen group)",
        .designer: "in the rhythm designer",
        .song: "in the Song tab (the section under its cursor)",
        .pads: "in the Pads tab (these come first, even before q and the file keys)",
        .prompt: "on the : line",
    ]

    /// The column where a binding's description starts.
    static let descriptionColumn = 44

    /// The overlay's lines: a heading per context, then `key(s)  action  description`. Lines longer than
    /// `width` wrap at spaces, a description's continuation under its first line, so a narrow screen
    /// still shows every word.
    public static func lines(_ map: KeyMap, ascii: Bool = false, width: Int = .max) -> [(text: String, role: Role)] {
        var out: [(String, Role)] = []
        func add(_ text: String, _ role: Role, indent: Int = 0) {
            for part in wrap(text, width: width, indent: indent) { out.append((part, role)) }
        }
        add("tempera keys. \(ascii ? "Up Down" : "↑↓") PgUp PgDn scroll, any other key closes. Your own: ~/.config/tempera/keys", .accent, indent: 2)
        for context in [KeyMap.Context.global, .timeline, .tab, .clips, .groups, .designer, .song, .pads, .prompt] {
            // Keys bound to the same action are listed together.
            var byAction: [(Action, [Key])] = []
            for b in map.bindings where b.context == context {
                if let i = byAction.firstIndex(where: { $0.0 == b.action }) { byAction[i].1.append(b.key) }
                else { byAction.append((b.action, [b.key])) }
            }
            guard !byAction.isEmpty else { continue }
            out.append(("", .normal))
            out.append((contextTitles[context] ?? context.rawValue, .title))
            for (action, keys) in byAction {
                let label = keys.map(KeyMap.label).joined(separator: " ")
                let what = action.verb == .run ? commandHelp(action.argument) ?? "run \(action.argument)"
                    : action.verb == .command ? "\(action.name) \(action.argument)" : (Action.describe(action.name) ?? "")
                add(pad(label, 16) + " " + pad(action.description, 26) + " " + what, .normal,
                    indent: descriptionColumn)
            }
        }
        // The commands, from the command table: the document's, then the transport's, files' and screen's.
        for (title, items) in [("the : line's commands (scripts take them too)", CommandReference.language),
                               ("the transport, files and the screen (not in scripts)", CommandReference.host)] {
            out.append(("", .normal))
            out.append((title, .title))
            for item in items {
                let what = item.help + CommandReference.notes(item)
                if item.usage.count < descriptionColumn - 1 {
                    add(pad(item.usage, descriptionColumn - 1) + " " + what, .normal, indent: descriptionColumn)
                } else {
                    add(item.usage, .normal, indent: 4)
                    add(String(repeating: " ", count: descriptionColumn) + what, .normal, indent: descriptionColumn)
                }
            }
        }
        return out
    }

    /// The help of the command a `run` line runs, from the command table (nil for a line that does not read).
    static func commandHelp(_ line: String) -> String? {
        let word = String(line.prefix { $0 != " " })
        return (try? CommandParser.parse(line))?.spec.help ?? CommandTable.entry(named: word)?.spec.help
    }

    /// `text` broken at spaces into lines of at most `width` characters; continuation lines start with
    /// `indent` spaces. A word longer than the room is cut where the room ends.
    static func wrap(_ text: String, width: Int, indent: Int) -> [String] {
        guard text.count > width, width > indent + 1 else { return [text] }
        var parts: [String] = []
        var rest = Array(text)
        var prefix: [Character] = []
        while prefix.count + rest.count > width {
            let room = width - prefix.count
            // Break at the last space that leaves something on this line past the indent.
            let floor = max(indent - prefix.count, 0)
            var cut = room
            if let space = rest[floor...min(room, rest.count - 1)].lastIndex(of: " "), space > floor { cut = space }
            parts.append(String(prefix + rest[..<cut]).replacingTrailingSpaces())
            rest = Array(rest[cut...].drop { $0 == " " })
            prefix = Array(repeating: " ", count: indent)
            if rest.isEmpty { break }
        }
        if !rest.isEmpty { parts.append(String(prefix + rest)) }
        return parts
    }

    /// Draws the overlay over the middle of the canvas from line `offset`; returns the offset actually used
    /// (clamped so the last page stays full).
    @discardableResult
    public static func draw(_ map: KeyMap, offset: Int, ascii: Bool, into canvas: inout Canvas) -> Int {
        let w = min(canvas.width - 2, 110), h = canvas.height - 2
        let all = lines(map, ascii: ascii, width: w - 4)
        guard w > 10, h > 3 else { return 0 }
        let x0 = (canvas.width - w) / 2, y0 = 1
        let inner = h - 2
        let top = min(max(offset, 0), max(0, all.count - inner))
        let g = Glyphs.set(ascii: ascii)
        canvas.fill(x: x0, y: y0, width: w, height: h, " ", .normal)
        for x in x0..<(x0 + w) {
            canvas[x, y0] = Cell(g.horizontal, .border)
            canvas[x, y0 + h - 1] = Cell(g.horizontal, .border)
        }
        for y in y0..<(y0 + h) {
            canvas[x0, y] = Cell(g.vertical, .border)
            canvas[x0 + w - 1, y] = Cell(g.vertical, .border)
        }
        canvas[x0, y0] = Cell(g.topLeft, .border)
        canvas[x0 + w - 1, y0] = Cell(g.topRight, .border)
        canvas[x0, y0 + h - 1] = Cell(g.bottomLeft, .border)
        canvas[x0 + w - 1, y0 + h - 1] = Cell(g.bottomRight, .border)
        canvas.put(x0 + 2, y0, " help ", .titleActive)
        if all.count > inner {
            canvas.put(x0 + w - 14, y0 + h - 1, " \(top + 1)-\(min(top + inner, all.count))/\(all.count) ", .dim)
        }
        for (i, line) in all.dropFirst(top).prefix(inner).enumerated() {
            var text = line.text
            if ascii { text = String(text.map { $0.isASCII ? $0 : "?" }) }
            canvas.put(x0 + 2, y0 + 1 + i, String(text.prefix(w - 4)), line.role)
        }
        return top
    }

    private static func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s : s + String(repeating: " ", count: n - s.count)
    }
}

private extension String {
    func replacingTrailingSpaces() -> String {
        var s = self
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }
}
