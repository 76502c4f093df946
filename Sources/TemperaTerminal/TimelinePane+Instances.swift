import TemperaCore

/// Linked instances of groups on the timeline: each a framed block over the tracks it plays, from its start to
/// its end, named after its group at its start on its first track (`[G2×4───]`), with the markers it plays
/// labelled in the accent role where the track's own markers leave the label row free.
extension TimelinePane {
    static func drawInstances(session: Session, view: ViewState, track: Int, layout l: Layout, _ g: Glyphs,
                              into canvas: inout Canvas) {
        let doc = session.document
        guard !doc.song.instances.isEmpty, let rows = l.rows(ofTrack: track) else { return }
        let vp = view.viewport, width = rows.width, labelRow = rows.maxY - 1
        let viewEnd = vp.start + Double(width) * vp.secondsPerColumn
        for inst in doc.song.instances where GroupBank.range.contains(inst.group) {
            let group = doc.groups[inst.group]
            guard inst.tracks(of: group).contains(track) else { continue }
            let a = vp.column(of: inst.start), b = max(vp.column(of: inst.end(of: group)) - 1, a)
            guard b >= 0, a < width else { continue }
            for c in max(a, 0)...min(b, width - 1) {
                let edge: Character = c == a ? "[" : c == b ? "]" : g.horizontal
                canvas[rows.x + c, rows.y] = Cell(edge, .accent)
            }
            if track == inst.track, a + 1 < width, a + 1 >= 0 {
                let name = "G\(inst.group)" + (inst.times == 1 ? "" : g.times + "\(inst.times)")
                let room = min(b, width) - a - 1
                if room > 0 { canvas.put(rows.x + a + 1, rows.y, String(name.prefix(room)), .accent) }
            }
            // The markers it plays, the passes in view only.
            let offset = track - inst.track
            let span = group.span
            let first = span > 0 ? max(0, Int(((vp.start - inst.start) / span).rounded(.down)) - 1) : 0
            var k = first
            while k < inst.times {
                let base = inst.start + Double(k) * span
                if base > viewEnd { break }
                for e in group.elements where e.trackOffset == offset {
                    let c = vp.column(of: base + e.offset)
                    guard c >= 0, c < width, canvas[rows.x + c, labelRow].char == " " else { continue }
                    canvas[rows.x + c, labelRow] = Cell(g.label(e.content), .accent)
                }
                if span <= 0 { break }
                k += 1
            }
        }
    }
}
