/// What the rhythm designer's commands (`Commands+Temper`, see `Temperament`) do to the session. Each command that
/// changes the document is one undo step; the designer's state is part of the document, so it is saved and undone
/// like any edit.
///
/// Stamps and morphs put markers on the current track at the cursor, each cycle one span long, with the
/// amplitudes of the result and the chosen clip as content (so what was designed is heard at once; a
/// fill can change the clips afterwards). The stamped markers become the selection and the cursor moves
/// to the end of the last cycle, so the next stamp follows on. Dots an extrapolated slider puts before
/// time 0 are left out, and the message says how many.
///
/// - Warning: main (editor) thread only.
extension Session {
    /// `temper span=... top=A:BEATS bottom=B:BEATS [map=...] [s=X]`: the designer set to a new temperament.
    func temperDefine(span: Double, top a: Int, topBeats: Temperament.BeatChoice, bottom b: Int,
                      bottomBeats: Temperament.BeatChoice, map: [Temperament.Pair]?, slider: Double?) throws -> String? {
        let (t, note) = try Temperament.define(span: span, top: a, topBeats: topBeats, bottom: b,
                                               bottomBeats: bottomBeats, map: map, slider: slider,
                                               keepingAmpsOf: document.designer)
        try perform("temper") { $0.setDesigner(t) }
        let summary = "temperament: \(t.pairs.count) beats, s = \(Temperament.format(t.slider))"
        return note.map { summary + "; " + $0 } ?? summary
    }

    /// `temper slider X`.
    func temperSlider(_ x: Double) throws -> String? {
        try Limits.checkSlider(x, "temper slider: the value")
        var t = document.designer
        t.slider = x
        try perform("temper slider") { $0.setDesigner(t) }
        return "s = \(Temperament.format(x))"
    }

    /// `temper stamp [times=K]`.
    func temperStamp(times: Int) throws -> String? {
        guard times >= 1 else { throw CommandError("temper stamp: times must be at least 1 (got \(times))") }
        let sliders = Array(repeating: document.designer.slider, count: times)
        return try stampTemperament(sliders: sliders, name: "temper stamp")
    }

    /// `temper morph times=K from=S0 to=S1`.
    func temperMorph(times: Int, from: Double, to: Double) throws -> String? {
        guard times >= 1 else { throw CommandError("temper morph: times must be at least 1 (got \(times))") }
        try Limits.checkSlider(from, "temper morph: from")
        try Limits.checkSlider(to, "temper morph: to")
        return try stampTemperament(sliders: Temperament.morphSliders(times: times, from: from, to: to),
                                    name: "temper morph")
    }

    /// `temper group N`.
    func temperGroup(_ n: Int) throws -> String? {
        guard GroupBank.range.contains(n) else {
            throw CommandError("temper group: group \(n) is out of range (groups are 1-16)")
        }
        let t = document.designer
        try t.validate()
        guard !t.pairs.isEmpty else { throw CommandError("temper group: the temperament has no paired beats") }
        let g = t.group(content: own.chosenClip)
        try perform("temper group \(n)") { $0.setGroup(n, g) }
        return "group \(n): \(g.elements.count) elements at s = \(Temperament.format(t.slider))"
    }

    /// `temper apply`.
    func temperApply() throws -> String? {
        let track = try requireTrack()
        let markers = document.tracks[track].markers
        let selected = selectedIndices(track: track).map { markers[$0] }
        try document.designer.validate()
        let retimed = try document.designer.retimed(selected)
        try perform("temper apply") { edit in edit.replace(contentsOf: retimed, track: track) }
        let cycles = retimed.count / max(1, document.designer.result().count)
        return "retimed \(retimed.count) marker\(retimed.count == 1 ? "" : "s")"
            + (cycles > 1 ? " in \(cycles) cycles" : "") + " at s = \(Temperament.format(document.designer.slider))"
    }

    /// `temper preset NAME`.
    func temperPreset(_ name: String) throws -> String? {
        let preset = try TemperamentPreset.named(name)
        let t = preset.temperament
        try perform("temper preset \(preset.rawValue)") { $0.setDesigner(t) }
        return "preset \(preset.rawValue): \(t.commandText)"
    }

    /// `temper amp top|bottom BEAT A`.
    func temperAmp(row which: Temperament.RowName, beat: Int, amp: Double) throws -> String? {
        var t = document.designer
        var row = t.row(which).resized(to: t.row(which).division)
        guard row.amps.indices.contains(beat) else {
            throw CommandError("temper amp: \(which.rawValue) has \(row.division) pulses (0-\(row.division - 1)), no beat \(beat)")
        }
        guard amp.isFinite, (0...1).contains(amp) else { throw CommandError("temper amp: the amplitude must be 0-1") }
        row.amps[beat] = amp
        t = t.replacing(which, with: row)
        try perform("temper amp") { $0.setDesigner(t) }
        return "\(which.rawValue) beat \(beat): amp " + Temperament.format(amp)
    }

    /// Stamps one cycle per slider value at the cursor on the current track (one undo step).
    private func stampTemperament(sliders: [Double], name: String) throws -> String {
        let track = try requireTrack()
        let t = document.designer
        try t.validate()
        guard !t.pairs.isEmpty else { throw CommandError("\(name): the temperament has no paired beats") }
        try Limits.checkAdding(Limits.product(t.pairs.count, sliders.count), to: markerCount, name)
        let all = t.stampMarkers(at: own.cursor, sliders: sliders, content: own.chosenClip)
        let markers = all.filter { $0.time >= 0 }
        // A dot on a marker the track already has (a grid marker, within a microsecond) puts its clip and
        // amplitude on that marker, as `a` puts a clip on the marker under the cursor: no second marker there.
        let existing = document.tracks[track].markers
        var taken = Set<MarkerID>()
        let plan: [(Marker, onto: Marker?)] = markers.map { m in
            var lo = existing.lowerBound(time: m.time - Self.stampTolerance)
            while lo < existing.count, existing[lo].time <= m.time + Self.stampTolerance {
                let old = existing[lo]
                if taken.insert(old.id).inserted { return (m, old) }
                lo += 1
            }
            return (m, nil)
        }
        var ids: [MarkerID] = []
        try perform(name) { edit in
            for (m, onto) in plan {
                if var old = onto {
                    old.content = m.content
                    old.amp = m.amp
                    edit.replace(old, track: track)
                    ids.append(old.id)
                } else {
                    ids.append(edit.insert(m, track: track))
                }
            }
        }
        own.selection = [track: Set(ids)]
        own.cursor = min(own.cursor + Double(sliders.count) * t.span, Limits.maxTime)
        let cycles = sliders.count == 1 ? "1 cycle" : "\(sliders.count) cycles"
        let dropped = all.count - markers.count
        return "stamped \(markers.count) marker\(markers.count == 1 ? "" : "s") (\(cycles))" + (dropped > 0 ? "; \(dropped) before time 0 left out" : "")
    }
}

extension Session {
    /// How near a stamped dot must be to a marker of the track to land on it rather than beside it.
    static let stampTolerance = 1e-6

    /// Replaces the rhythm designer's state as one undo step named `name`: what the designer tab's keys do
    /// (toggling a beat, changing a division or a pair, an amplitude). Nothing happens when `t` equals the
    /// current state.
    /// - Throws: `CommandError` when `t` is not valid (see `Temperament.validate`); nothing changes then.
    /// - Warning: main (editor) thread only.
    func setDesigner(_ t: Temperament, name: String) throws {
        try t.validate()
        guard t != document.designer else { return }
        try perform(name) { $0.setDesigner(t) }
    }
}
