/// The groups bank: storing the selection (copy) and stamping a group at the cursor (paste).
extension Session {
    /// Stores the selection in group slot `n`: times relative to the earliest selected element, tracks
    /// relative to the first selected track. The span (how far apart repeated stamps go) runs to the marker
    /// after the last element on its track, or, when there is none, repeats the selection's last interval.
    func runGroupStore(_ n: Int) throws -> String? {
        guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
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
                                             content: m.content))
            }
        }
        elements.sort { ($0.offset, $0.trackOffset) < ($1.offset, $1.trackOffset) }
        let span = (last - first) + tailGap(groups, last: last)
        let group = Group(elements: elements, span: span)
        try perform("group store \(n)") { $0.setGroup(n, group) }
        return "group \(n): \(elements.count) marker\(elements.count == 1 ? "" : "s")"
    }

    /// The gap that closes a stored group: from its last element to the next marker of that element's track,
    /// else the last interval between the selected times, else nothing.
    private func tailGap(_ groups: [(track: Int, markers: [Marker])], last: Double) -> Double {
        for (track, markers) in groups where markers.last!.time == last {
            let list = document.tracks[track].markers
            let p = list.upperBound(time: last)
            if p < list.count { return list[p].time - last }
        }
        let times = Set(groups.flatMap { $0.markers.map(\.time) }).sorted()
        return times.count >= 2 ? times[times.count - 1] - times[times.count - 2] : 0
    }

    /// Stamps group `n` at the cursor on the current track, `times` copies each one span after the last.
    /// The stamped markers become the selection and the cursor moves to the end of the stamp, so stamps chain.
    func runGroupStamp(_ n: Int, times: Int) throws -> String? {
        guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
        guard times >= 1 else { throw CommandError("times must be at least 1") }
        let t = try requireTrack()
        let group = document.groups[n]
        guard !group.isEmpty else { throw CommandError("group \(n) is empty: store a selection with 'group store \(n)'") }
        guard times == 1 || group.span > 0 else { throw CommandError("group \(n) has no span to repeat") }
        let lowest = group.elements.map(\.trackOffset).max()!
        guard t + lowest < document.tracks.count else {
            throw CommandError("group \(n) spans \(lowest + 1) tracks, but there are only \(document.tracks.count - t) from track \(t + 1)")
        }
        let origin = cursor
        let name = times == 1 ? "group stamp" : "group stamp x\(times)"
        try Limits.checkAdding(Limits.product(group.elements.count, times), to: markerCount, name)
        let lastOffset = group.elements.map(\.offset).max() ?? 0
        try Limits.checkTime(origin + Double(times - 1) * group.span + lastOffset, "\(name) would put its last marker at")
        var stamped: [Int: Set<MarkerID>] = [:]
        try perform(times == 1 ? "stamp group \(n)" : "stamp group \(n) x\(times)") { edit in
            for r in 0..<times {
                let start = origin + Double(r) * group.span
                for e in group.elements {
                    let track = t + e.trackOffset
                    let id = edit.insert(Marker(id: 0, time: start + e.offset, amp: e.amp, content: e.content), track: track)
                    stamped[track, default: []].insert(id)
                }
            }
        }
        selection = stamped
        cursor = min(origin + Double(times) * group.span, Limits.maxTime)
        let count = group.elements.count * times
        return "stamped group \(n)\(times == 1 ? "" : " x\(times)"): \(count) marker\(count == 1 ? "" : "s")"
    }
}
