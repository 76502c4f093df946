import TemperaCore

/// The Pads tab: the 16 slots as a 4x4 block of pads, laid out as the keys that play them (`1 2 3 4` on top, `z x c
/// v` at the bottom). Each pad shows its slot's number and name and its key from the key map; while its sample
/// sounds the pad is lit and a bar along its bottom runs down with what is left of the sound (from the engine's
/// voices). A line above says the pad velocity, the record state and where the music is.
///
/// A pad is several rows high so a click can say how hard: the top row plays at full velocity, each row below a
/// step softer (`velocity(row:height:)`). The tab asks the layout for the rows it needs (`rows(screenHeight:)`).
enum PadsTab {
    /// Rows of each pad: three from 30 rows of screen up, else two (the timeline keeps room for its tracks).
    static func padHeight(screenHeight h: Int) -> Int { h >= 30 ? 3 : 2 }

    /// Rows the tab needs: the status line and four rows of pads.
    static func rows(screenHeight h: Int) -> Int { 1 + 4 * padHeight(screenHeight: h) }

    /// Where pad `n` (1...16) lies in the tab's rectangle `r`.
    static func cell(_ n: Int, in r: Rect) -> Rect {
        let h = max(1, (r.height - 1) / 4)
        let w = max(1, (r.width + 1) / 4 - 1)
        let i = n - 1
        return Rect(x: r.x + (i % 4) * (w + 1), y: r.y + 1 + (i / 4) * h, width: w, height: h)
    }

    /// The velocity of a click on row `row` (0 = top) of a pad `height` rows high: 1 at the top, a step of
    /// 1/height softer each row down, in hundredths.
    static func velocity(row: Int, height: Int) -> Double {
        guard height > 1 else { return 1 }
        let r = min(max(row, 0), height - 1)
        return (Double(height - r) / Double(height) * 100).rounded() / 100
    }

    static func draw(session: Session, view: ViewState, rect r: Rect, _ g: Glyphs,
                     into canvas: inout Canvas) -> [Spot] {
        var spots: [Spot] = []
        guard r.height >= 5, r.width >= 20 else { return spots }
        // The line above the pads: velocity, record state, where the music is; in short words when narrow.
        let (record, shortRecord, role) = recordText(session: session, view: view, g)
        let at = session.document.transport.barBeatLabel(view.transport.position)
        let v = percent(view.padVelocity)
        // During a count-in the music stands at its start: the count-in's words take the room of where it is.
        let counting = countingIn(session: session, view: view) != nil
        let choices = counting
            ? [["velocity \(v)", record], ["vel \(v)", record], ["vel \(v)", shortRecord]]
            : [["velocity \(v)", record, at], ["vel \(v)", record, at], ["vel \(v)", shortRecord, at]]
        let parts = choices.first { $0.joined(separator: g.separator).count <= r.width } ?? choices[2]
        var x = r.x
        for (i, part) in parts.enumerated() {
            if i > 0 { x = canvas.put(x, r.y, Format.fit(g.separator, max(0, r.maxX - x), ellipsis: g.ellipsis), .dim) }
            x = canvas.put(x, r.y, Format.fit(part, max(0, r.maxX - x), ellipsis: g.ellipsis), i == 1 ? role : i == 0 ? .tool : .dim)
        }

        for n in ClipSlot.range {
            let c = cell(n, in: r)
            let slot = session.document.slot(n)
            let left = n <= view.transport.pads.count ? view.transport.pads[n - 1] : 0
            let key = view.key("pad.\(n)") ?? ""
            let number = n < 10 ? " \(n)" : "\(n)"
            let name = slot.isEmpty && slot.name.isEmpty ? String(g.dash) : slot.name
            let room = c.width - key.count - 1
            // Narrow pads leave out the number: the name and the key say more.
            let text = c.width >= 10 ? number + " " + name : name
            let label = Format.pad(Format.fit(text, max(0, room), ellipsis: g.ellipsis), max(0, room))
            let lit = left > 0
            canvas.put(c.x, c.y, label + " ", lit ? .toolActive : slot.isEmpty ? .dim : .tool)
            canvas.put(c.x + max(0, room) + 1, c.y, key, lit ? .toolActive : .toolKey)
            if view.brokenSlots.contains(n) { canvas.put(c.x + (c.width >= 10 && n >= 10 ? 2 : 0), c.y, "!", .error) }
            // The bar: what is left of the sound, along the pad's last row.
            if c.height > 1 {
                let filled = Int((left * Double(c.width)).rounded(.up))
                let bar = String(repeating: g.sliderFill, count: filled)
                    + String(repeating: g.sliderEmpty, count: c.width - filled)
                let end = canvas.put(c.x, c.maxY - 1, String(bar.prefix(filled)), .sliderFill)
                canvas.put(end, c.maxY - 1, String(bar.dropFirst(filled)), .sliderEmpty)
            }
            spots.append(Spot(c) { _, y in .pad(slot: n, velocity: velocity(row: y - c.y, height: c.height)) })
        }
        return spots
    }

    /// The record state, in words and in short words, and its role: `● count-in 3: not recording yet` while
    /// the count-in before a take runs (its beats left, counting down), `● recording: 3 hits`, `armed: Space
    /// starts the take`, or how to arm.
    static func recordText(session: Session, view: ViewState, _ g: Glyphs) -> (String, String, Role) {
        if let left = countingIn(session: session, view: view) {
            let dot = view.ascii ? "*" : "\u{25CF}"
            let count = left > 0 ? "count-in \(left)" : "starting"
            return ("\(dot) \(count): not recording yet", "\(dot) \(count)", .warning)
        }
        if session.takeOpen {
            let dot = view.ascii ? "*" : "\u{25CF}"
            let hits = "\(view.takeHits) hit" + (view.takeHits == 1 ? "" : "s")
            return ("\(dot) recording: \(hits)", "\(dot) rec \(hits)", .error)
        }
        if session.recordArmed {
            return ("armed: " + (view.key("play").map { "\($0) starts the take" } ?? "playing starts the take"),
                    "rec armed", .warning)
        }
        return ("record off" + (view.key("record.toggle").map { " (\($0) arms)" } ?? ""), "rec off", .dim)
    }

    /// The beats left of a count-in before a take (armed, or the take open), nil when none runs.
    static func countingIn(session: Session, view: ViewState) -> Int? {
        session.takeOpen || session.recordArmed ? view.transport.countIn : nil
    }

    static func percent(_ v: Double) -> String { "\(Int((v * 100).rounded()))%" }
}
