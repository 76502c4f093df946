/// Everyday editing: amplitude, the clipboard, duplicate, quantize, and deleting, moving and duplicating
/// tracks.
extension Session {
    /// `amp A` sets every selected element's amplitude; `amp +D` / `amp -D` adds D, clamped to 0...1.
    func runAmp(_ value: Double, relative: Bool) throws -> String? {
        guard value.isFinite else { throw CommandError("amp needs a number") }
        if !relative { try checkAmp(value) }
        let groups = try requireSelection().map { g in (g.track, g.markers.filter(isElement)) }
        var plan: [(track: Int, markers: [Marker])] = []
        var count = 0
        for (track, markers) in groups where !markers.isEmpty {
            plan.append((track, markers.map { m in
                var m = m
                m.amp = relative ? min(1, max(0, m.amp + value)) : value
                return m
            }))
            count += markers.count
        }
        guard count > 0 else { throw CommandError("no clip is selected") }
        try perform("amp") { edit in
            for (track, markers) in plan { edit.replace(contentsOf: markers, track: track) }
        }
        let amps = Set(plan.flatMap { $0.markers.map(\.amp) })
        let shown = amps.count == 1 ? "amp \(DocumentFile.number(amps.first!))" : "amp \(relative && value >= 0 ? "+" : "")\(DocumentFile.number(value))"
        return "\(shown) on \(count) marker\(count == 1 ? "" : "s")"
    }

    /// `copy`: the selection (its clips in clip mode) becomes the clipboard, a group keeping its span (see
    /// `selectionGroup`). Not an undo step: the clipboard is the session's, not the document's.
    func runCopy() throws -> String? {
        if let i = instanceInsteadOfSelection() { return try copyInstance(i) }
        let group = try selectionGroup().group
        own.clipboard = group
        let count = group.elements.count
        return "copied \(count) marker\(count == 1 ? "" : "s")"
    }

    /// `cut`: copy, then delete what was copied (in clip mode, the clips only), as one step.
    func runCut() throws -> String? {
        let group = try selectionGroup().group
        _ = try runDelete(name: "cut")
        own.clipboard = group
        let count = group.elements.count
        return "cut \(count) marker\(count == 1 ? "" : "s")"
    }

    /// `paste`: the clipboard at the cursor, its first track on the current track; the pasted markers become
    /// the selection and the cursor moves one span on, so pastes chain.
    func runPaste() throws -> String? {
        guard let group = own.clipboard, !group.isEmpty else { throw CommandError("the clipboard is empty: copy or cut first") }
        let (count, grew) = try stamp(group, what: "the clipboard", at: own.cursor, track: try requireTrack(), times: 1,
                                      name: "paste")
        own.cursor = min(own.cursor + group.span, Limits.maxTime)
        return "pasted \(count) marker\(count == 1 ? "" : "s")" + (grew.map { "; " + $0 } ?? "")
    }

    /// `duplicate`: the selection repeated right after its span (the span a stored group would have), on the
    /// same tracks; the copy becomes the selection.
    func runDuplicate() throws -> String? {
        if instanceInsteadOfSelection() != nil { return try runInstanceDuplicate() }
        let (group, track, first) = try selectionGroup()
        guard group.span > 0 else {
            throw CommandError("the selection has no length to repeat after (select two times, or a marker before the next)")
        }
        let (count, grew) = try stamp(group, what: "the selection", at: first + group.span, track: track, times: 1,
                                      name: "duplicate")
        return "duplicated \(count) marker\(count == 1 ? "" : "s")" + (grew.map { "; " + $0 } ?? "")
    }

    /// `quantize N [strength=S]`: each selected element moves toward the nearest 1/N of a beat (counted from
    /// time 0) by the fraction S: t + S * (nearest - t).
    func runQuantize(_ steps: Int, strength: Double) throws -> String? {
        guard steps >= 1, steps <= CommandParser.maxQuantize else {
            throw CommandError("quantize needs N from 1 to \(CommandParser.maxQuantize)")
        }
        guard strength.isFinite, (0...1).contains(strength) else { throw CommandError("strength must be from 0 to 1") }
        let groups = try requireSelection().compactMap { g -> (track: Int, markers: [Marker])? in
            let ms = g.markers.filter(isElement)
            return ms.isEmpty ? nil : (g.track, ms)
        }
        guard !groups.isEmpty else { throw CommandError("no clip is selected") }
        let transport = document.transport
        try retime("quantize", groups) { t in
            let target = transport.nearestGridPoint(to: t, steps: steps)
            return strength == 1 ? target : t + strength * (target - t)
        }
        let count = groups.reduce(0) { $0 + $1.markers.count }
        return "quantized \(count) marker\(count == 1 ? "" : "s") to 1/\(steps) beat"
            + (strength == 1 ? "" : " by \(DocumentFile.number(strength))")
    }

    // MARK: Tracks

    /// `track [N] delete`. The last track cannot go (a document keeps at least one).
    func runTrackDelete(_ n: Int?) throws -> String? {
        let t = try trackIndex(n)
        guard document.tracks.count > 1 else { throw CommandError("cannot delete the only track") }
        let label = trackLabel(t)
        var tracks = document.tracks
        tracks.remove(at: t)
        try changeTracks("delete track \(t + 1)", tracks) { $0 == t ? nil : $0 > t ? $0 - 1 : $0 }
        if own.currentTrack > t || own.currentTrack >= document.tracks.count { own.currentTrack = max(0, own.currentTrack - 1) }
        return "deleted \(label)"
    }

    /// `track [N] move M`: the track takes position M, the others keep their order.
    func runTrackMove(_ n: Int?, to m: Int) throws -> String? {
        let t = try trackIndex(n)
        guard m >= 1, m <= document.tracks.count else {
            throw CommandError("no track \(m) to move to (the document has \(document.tracks.count))")
        }
        let to = m - 1
        guard to != t else { return nil }
        var tracks = document.tracks
        tracks.insert(tracks.remove(at: t), at: to)
        let map: (Int) -> Int? = { i in
            if i == t { return to }
            if t < to { return i > t && i <= to ? i - 1 : i }
            return i >= to && i < t ? i + 1 : i
        }
        try changeTracks("move track \(t + 1)", tracks, map)
        own.currentTrack = map(own.currentTrack) ?? own.currentTrack
        return "\(trackLabel(to)) moved from \(t + 1)"
    }

    /// `track [N] duplicate`: a copy (markers, clips and settings) right below the track, made current.
    func runTrackDuplicate(_ n: Int?) throws -> String? {
        let t = try trackIndex(n)
        commitTransaction()
        try perform("duplicate track \(t + 1)") { edit in
            var tracks = edit.document.tracks
            tracks.insert(edit.renumbered(tracks[t]), at: t + 1)
            edit.setTracks(tracks)
            edit.followTracks({ $0 > t ? $0 + 1 : $0 }, copies: [t + 1: t])
        }
        remapSelection { $0 > t ? $0 + 1 : $0 }
        own.currentTrack = t + 1
        return "\(trackLabel(t + 1)) is a copy of track \(t + 1)"
    }

    /// Replaces the track list as one step; `map` takes an old track index to its new one (nil: deleted), for
    /// the selection and the song's instances and sections.
    private func changeTracks(_ name: String, _ tracks: [Track], _ map: (Int) -> Int?) throws {
        // Marker records of an open drag name tracks by index: close it before the indices change.
        commitTransaction()
        try perform(name) { edit in
            edit.setTracks(tracks)
            edit.followTracks(map)
        }
        remapSelection(map)
    }

    private func remapSelection(_ map: (Int) -> Int?) {
        var moved: [Int: Set<MarkerID>] = [:]
        for (track, ids) in own.selection { if let to = map(track) { moved[to] = ids } }
        own.selection = moved
    }
}
