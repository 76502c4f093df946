import TemperaCore

/// The Groups tab: the 16 group slots with how many elements each holds and the span one stamp covers,
/// the chosen group highlighted, and a line describing the chosen group. A groove (`groove extract`) shows `~`
/// and its step count, and its line the steps' offsets.
enum GroupsTab {
    static func draw(session: Session, view: ViewState, rect r: Rect, _ g: Glyphs,
                     into canvas: inout Canvas) -> [Spot] {
        var spots: [Spot] = []
        guard r.height >= 2 else { return spots }
        let bank = session.document.groups
        let grid = SlotGrid(rect: Rect(x: r.x, y: r.y, width: r.width, height: r.height - 1))
        for n in GroupBank.range {
            let cell = grid.cell(n)
            let group = bank[n]
            let chosen = n == view.chosenGroup
            let number = n < 10 ? " \(n)" : "\(n)"
            // A groove is marked `~` before its step count.
            var text = number + " " + (group.isEmpty ? g.dash
                : group.groove.map { "~\($0.offsets.count) \(span(group.span))" } ?? "\(group.elements.count) \(span(group.span))")
            // A narrow cell drops the unit before it cuts the figure.
            if text.count > cell.width && text.hasSuffix("s") { text.removeLast() }
            canvas.put(cell.x, cell.y, Format.pad(Format.fit(text, cell.width, ellipsis: g.ellipsis), cell.width),
                       chosen ? .toolActive : group.isEmpty ? .dim : .tool)
            if !chosen { canvas.put(cell.x, cell.y, number, .toolKey) }
            spots.append(Spot(cell, .group(n)))
        }
        let y = r.maxY - 1
        canvas.put(r.x, y, Format.fit(summary(view.chosenGroup, bank), r.width, ellipsis: g.ellipsis), .dim)
        return spots
    }

    /// A span short enough for a cell: "0.75s", "1.5s", "12s".
    static func span(_ s: Double) -> String {
        var text = Format.fixed(s, s < 10 ? 3 : 1)
        while text.contains(".") && (text.hasSuffix("0") || text.hasSuffix(".")) { text.removeLast() }
        return text + "s"
    }

    /// "group 3: 5 markers over 0.750 s, 2 tracks" or "group 3 is empty".
    static func summary(_ n: Int, _ bank: GroupBank) -> String {
        guard GroupBank.range.contains(n) else { return "" }
        let group = bank[n]
        guard !group.isEmpty else { return "group \(n) is empty: select markers and store" }
        if let groove = group.groove {
            // The offsets of the steps that had markers, in ms: the groove's feel at a glance.
            let shown = groove.offsets.compactMap { $0 }.prefix(8).map { o in
                (o >= 0 ? "+" : "") + Format.fixed(o * 1000, 1)
            }
            return "group \(n): groove of \(groove.offsets.count) steps of 1/\(groove.steps) beat, offsets ms "
                + shown.joined(separator: " ") + (groove.offsets.compactMap { $0 }.count > 8 ? " ..." : "")
                + " (groove apply \(n))"
        }
        let count = group.elements.count
        let tracks = Set(group.elements.map(\.trackOffset)).count
        var text = "group \(n): \(count) marker\(count == 1 ? "" : "s") over \(Format.seconds(group.span)) s"
        if tracks > 1 { text += ", \(tracks) tracks" }
        return text
    }
}
