import TemperaCore

/// The Clips tab: the 16 clip slots (number, name, and mode, note (`sf40` on a SoundFont), velocity layers (`3v`), pan (`<50` is half
/// left), choke group (`c2`) and gain as width allows) with the chosen clip highlighted, and the `+ hold  - rest  ? random` choices.
enum ClipsTab {
    static func draw(session: Session, view: ViewState, rect r: Rect, _ g: Glyphs,
                     into canvas: inout Canvas) -> [Spot] {
        var spots: [Spot] = []
        guard r.height >= 2 else { return spots }
        let grid = SlotGrid(rect: Rect(x: r.x, y: r.y, width: r.width, height: r.height - 1))
        for n in ClipSlot.range {
            let cell = grid.cell(n)
            let slot = session.document.slot(n)
            let chosen = session.chosenClip == .clip(n)
            let text = Format.pad(cellText(n, slot, width: cell.width, g), cell.width)
            canvas.put(cell.x, cell.y, text, chosen ? .toolActive : slot.isEmpty ? .dim : .tool)
            if !chosen { canvas.put(cell.x, cell.y, n < 10 ? " \(n)" : "\(n)", .toolKey) }
            // A slot whose file did not load: a `!` in the error role where the number's padding was.
            if view.brokenSlots.contains(n) { canvas.put(cell.x + (n < 10 ? 0 : 2), cell.y, "!", .error) }
            spots.append(Spot(cell, .slot(n)))
        }
        var x = r.x
        let y = r.maxY - 1
        for (content, name) in [(Content.hold, "hold"), (.rest, "rest"), (.random, "random")] {
            let chosen = session.chosenClip == content
            let start = x
            x = canvas.put(x, y, content.code, chosen ? .toolActive : .toolKey)
            x = canvas.put(x, y, " " + name, chosen ? .toolActive : .tool)
            spots.append(Spot(Rect(x: start, y: y, width: x - start, height: 1), .clipContent(content)))
            x += 2
        }
        return spots
    }

    /// "NN name detail": the name gives way to the details (gate, MIDI note, gain) as space allows.
    static func cellText(_ n: Int, _ slot: ClipSlot, width: Int, _ g: Glyphs) -> String {
        let number = n < 10 ? " \(n)" : "\(n)"
        guard !slot.isEmpty || !slot.name.isEmpty else { return number + " " + g.dash }
        var details: [String] = []
        if slot.mode == .gate { details.append(width >= 22 ? "gate" : "g") }
        // A SoundFont's note reads `sf38`; a sampler's `n38`.
        if let note = slot.note { details.append((slot.soundFont != nil ? "sf" : "n") + "\(note)") }
        if !slot.layers.isEmpty { details.append("\(slot.layers.count)v") }
        if slot.pan != 0 && width >= 18 { details.append((slot.pan < 0 ? "<" : ">") + "\(Int((abs(slot.pan) * 100).rounded()))") }
        if slot.choke != 0 && width >= 18 { details.append("c\(slot.choke)") }
        if slot.gain != 1 && width >= 18 { details.append(g.times + Format.fixed(slot.gain, 2)) }
        var detail = details.joined(separator: " ")
        let nameRoom = width - 3 - (detail.isEmpty ? 0 : detail.count + 1)
        if nameRoom < 4 { detail = "" }
        let room = detail.isEmpty ? width - 3 : nameRoom
        let name = Format.fit(slot.name, room, ellipsis: g.ellipsis)
        guard !detail.isEmpty else { return number + " " + name }
        return number + " " + Format.pad(name, room) + " " + detail
    }
}
