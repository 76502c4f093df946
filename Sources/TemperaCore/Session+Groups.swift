/// The groups bank: storing the selection (copy) and stamping a group at the cursor (paste).
extension Session {
    /// Stores the selection in group slot `n`: times relative to the earliest selected element, tracks
    /// relative to the first selected track, and the span of `selectionGroup`.
    func runGroupStore(_ n: Int) throws -> String? {
        guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
        var group = try selectionGroup().group
        // What a user means by a group is the music: when the selection holds clips, its empty markers (a
        // preset's grid, taken along by select-all) are left out. Offsets and span stay measured on the whole
        // selection, so a bar stored stamps as a bar, each clip in its place.
        let clips = group.elements.filter { $0.content != nil }
        let left = group.elements.count - clips.count
        if !clips.isEmpty { group.elements = clips }
        try perform("group store \(n)") { $0.setGroup(n, group) }
        let count = group.elements.count
        return "group \(n): \(count) marker\(count == 1 ? "" : "s")"
            + (!clips.isEmpty && left > 0 ? " (\(left) empty marker\(left == 1 ? "" : "s") left out)" : "")
    }

    /// The selection as a group (in clip mode, its clips): times relative to the earliest selected element,
    /// tracks relative to the first selected track, the first track and the earliest time.
    ///
    /// Its span is the length of what it was taken from (a selection that is exactly what the last stamp,
    /// paste or duplicate placed keeps that span): the loop region's length when the selection lies
    /// inside the region and reaches its last marker (no marker of a selected track lies after the selection
    /// inside the region), else up to the next marker after the selection on a selected track (in clip mode
    /// too: markers are the grid); with none,
    /// the selection's last interval, else 0. So a bar stored whole and stamped four times gives four bars.
    public func selectionGroup() throws -> (group: Group, firstTrack: Int, first: Double) {
        let groups = try requireSelection().compactMap { g -> (track: Int, markers: [Marker])? in
            let ms = g.markers.filter(isElement)
            return ms.isEmpty ? nil : (g.track, ms)
        }
        guard !groups.isEmpty else { throw CommandError("no clip is selected") }
        let firstTrack = groups[0].track
        let (first, last) = Self.span(groups)
        var elements: [GroupElement] = []
        for (track, markers) in groups {
            for m in markers {
                elements.append(GroupElement(offset: m.time - first, trackOffset: track - firstTrack, amp: m.amp,
                                             content: m.content, extras: m.extras))
            }
        }
        elements.sort { ($0.offset, $0.trackOffset) < ($1.offset, $1.trackOffset) }
        // A selection that is exactly what was last stamped keeps the span it was stamped with.
        let span = own.lastStamp.flatMap { $0.selection == own.selection ? $0.span : nil }
            ?? groupSpan(groups, first: first, last: last)
        return (Group(elements: elements, span: span), firstTrack, first)
    }

    private func groupSpan(_ groups: [(track: Int, markers: [Marker])], first: Double, last: Double) -> Double {
        // The next marker (a grid position, in clip mode too) after the selection on any selected track.
        var next: Double?
        for (track, _) in groups {
            let list = document.tracks[track].markers
            let p = list.upperBound(time: last)
            if p < list.count { next = min(next ?? list[p].time, list[p].time) }
        }
        let t = document.transport
        if first >= t.loopStart, last < t.loopEnd, next.map({ $0 >= t.loopEnd }) ?? true {
            return t.loopEnd - t.loopStart
        }
        if let next { return next - first }
        let times = Set(groups.flatMap { $0.markers.map(\.time) }).sorted()
        return times.count >= 2 ? last - first + (times[times.count - 1] - times[times.count - 2]) : 0
    }

    /// Stamps group `n` at the cursor on the current track, `times` copies each one span after the last.
    /// The stamped markers become the selection and the cursor moves to the end of the stamp, so stamps chain.
    func runGroupStamp(_ n: Int, times: Int) throws -> String? {
        guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
        guard times >= 1 else { throw CommandError("times must be at least 1") }
        let group = document.groups[n]
        guard !group.isEmpty else { throw CommandError("group \(n) is empty: store a selection with 'group store \(n)'") }
        let (count, grew) = try stamp(group, what: "group \(n)", at: own.cursor, track: try requireTrack(), times: times,
                                      name: times == 1 ? "stamp group \(n)" : "stamp group \(n) x\(times)")
        own.cursor = min(own.cursor + Double(times) * group.span, Limits.maxTime)
        return "stamped group \(n)\(times == 1 ? "" : " x\(times)"): \(count) marker\(count == 1 ? "" : "s")"
            + (grew.map { "; " + $0 } ?? "")
    }

    /// Puts `times` copies of `group` from `origin`, each one span after the last, its first track at `t`, as
    /// one step; the stamped markers become the selection. Nothing is left out: a group reaching below the last
    /// track adds the tracks it needs, and a stamp ending past the document's length lengthens the document to
    /// its end (the loop stays as it is). Returns how many markers were placed, and what grew (for the message).
    func stamp(_ group: Group, what: String, at origin: Double, track t: Int, times: Int, name: String) throws
        -> (count: Int, grew: String?) {
        guard times == 1 || group.span > 0 else { throw CommandError("\(what) has no span to repeat") }
        let lowest = group.elements.map(\.trackOffset).max()!
        try Limits.checkAdding(Limits.product(group.elements.count, times), to: markerCount, name)
        let lastOffset = group.elements.map(\.offset).max() ?? 0
        try Limits.checkTime(origin + Double(times - 1) * group.span + lastOffset, "\(name) would put its last marker at")
        let end = min(max(origin + Double(times) * group.span, origin + Double(times - 1) * group.span + lastOffset),
                      Limits.maxTime)
        let before = document.tracks.count
        let missing = max(0, t + lowest + 1 - before)
        var transport = document.transport
        let lengthens = end > transport.length
        if lengthens { transport.length = end }
        var stamped: [Int: Set<MarkerID>] = [:]
        try perform(name) { edit in
            for k in 0..<missing { edit.addTrack(Track(name: "track \(before + k + 1)")) }
            if lengthens { edit.setTransport(transport) }
            for r in 0..<times {
                let start = origin + Double(r) * group.span
                for e in group.elements {
                    let track = t + e.trackOffset
                    var m = Marker(id: 0, time: start + e.offset, amp: e.amp, content: e.content)
                    m.extras = e.extras
                    let id = edit.insert(m, track: track)
                    stamped[track, default: []].insert(id)
                }
            }
        }
        own.selection = stamped
        own.lastStamp = times == 1 ? (stamped, group.span) : nil
        var grew: [String] = []
        if missing == 1 { grew.append("added track \(before + 1)") }
        if missing > 1 { grew.append("added tracks \(before + 1)-\(before + missing)") }
        if lengthens { grew.append("the document now lasts \(Limits.seconds(end)) s") }
        return (group.elements.count * times, grew.isEmpty ? nil : grew.joined(separator: "; "))
    }
}
