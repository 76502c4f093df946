/// Tools that change the selected markers: shift, scale, subdivide, rotate, reverse, delete.
extension Session {
    /// Shift: move the selection by seconds; in clip mode with snap, move its clips by whole markers along
    /// their track while the markers stay.
    func runShift(_ by: Double) throws -> String? {
        if instanceInsteadOfSelection() != nil { return try runInstanceShift(by) }
        let groups = try requireSelection()
        guard by.isFinite else { throw CommandError("shift needs a finite amount") }
        if own.clipMode && own.snap { return try shiftClips(by: by, groups) }
        if by == 0 { return nil }
        let earliest = groups.map { $0.markers[0].time }.min()!
        guard earliest + by >= 0 else {
            throw CommandError("shift would move a marker before 0 (at most \(-earliest) back)")
        }
        try retime("shift", groups) { $0 + by }
        return nil
    }

    private func shiftClips(by: Double, _ groups: [(track: Int, markers: [Marker])]) throws -> String? {
        guard by == by.rounded(), abs(by) < 1e9 else {
            throw CommandError("in clip mode with snap, shift moves clips by whole markers")
        }
        let k = Int(by)
        var plan: [(track: Int, contents: [(MarkerID, Content?)], moved: Set<MarkerID>)] = []
        for (track, selected) in groups {
            let markers = document.tracks[track].markers
            var contents: [MarkerID: Content?] = [:]
            var destinations: [(MarkerID, Content)] = []
            for m in selected {
                guard let content = m.content else { continue }
                let p = markers.index(of: m.id)! + k
                guard p >= 0, p < markers.count else {
                    throw CommandError("a clip on track \(track + 1) would move past the track's \(k < 0 ? "first" : "last") marker")
                }
                contents[m.id] = .some(nil)
                destinations.append((markers[p].id, content))
            }
            for (id, c) in destinations { contents[id] = .some(c) }
            if !destinations.isEmpty {
                plan.append((track, contents.map { ($0.key, $0.value) }, Set(destinations.map(\.0))))
            }
        }
        guard !plan.isEmpty else { throw CommandError("no clip is selected") }
        if k == 0 { return nil }
        try perform("shift") { edit in
            for (track, contents, _) in plan {
                for (id, c) in contents { edit.setContent(c, id: id, track: track) }
            }
        }
        // The selected elements are the clips: the selection goes where they went.
        for (track, _, moved) in plan { own.selection[track] = moved }
        return nil
    }

    /// Scale about a handle: `.last` keeps the first selected time fixed, `.first` the last.
    func runScale(factor: Double, handle: Command.ScaleHandle) throws -> String? {
        let groups = try requireSelection()
        guard factor.isFinite, factor > 0 else { throw CommandError("scale factor must be positive") }
        let (first, last) = Self.span(groups)
        guard last > first else { throw CommandError("scale needs selected markers at two different times") }
        try retime("scale", groups) { t in
            handle == .last ? first + (t - first) * factor : last - (last - t) * factor
        }
        return nil
    }

    /// Moves the k-th selected element (in time order, from 1) to `to`. An outer element rescales the whole
    /// selection with the opposite end fixed; an inner one keeps both ends and moves the elements on each
    /// side proportionally (piecewise-linear).
    func runScaleHandle(k: Int, to: Double) throws -> String? {
        let groups = try requireSelection()
        guard to.isFinite else { throw CommandError("scale needs a finite time") }
        let all: [(Int, Marker)] = groups.flatMap { g in g.markers.map { (m: Marker) -> (Int, Marker) in (g.track, m) } }
            .sorted { (a: (Int, Marker), b: (Int, Marker)) -> Bool in
                a.1.time != b.1.time ? a.1.time < b.1.time : (a.0, a.1.id) < (b.0, b.1.id)
            }
        guard k >= 1, k <= all.count else {
            throw CommandError("no selected element \(k) (\(all.count) are selected)")
        }
        let (first, last) = Self.span(groups)
        guard last > first else { throw CommandError("scale needs selected markers at two different times") }
        let h = all[k - 1].1.time
        let map: (Double) -> Double
        if h == last {
            guard to > first else { throw CommandError("the last element cannot move to or before the first (\(first))") }
            map = { t in first + (t - first) / (last - first) * (to - first) }
        } else if h == first {
            guard to < last else { throw CommandError("the first element cannot move to or past the last (\(last))") }
            map = { t in last - (last - t) / (last - first) * (last - to) }
        } else {
            guard to > first, to < last else {
                throw CommandError("an inner element must stay between the ends (\(first) and \(last))")
            }
            map = { t in
                t <= h ? first + (t - first) / (h - first) * (to - first) : to + (t - h) / (last - h) * (last - to)
            }
        }
        try retime("scale", groups, map)
        return nil
    }

    /// Subdivide: n evenly spaced markers between each pair of consecutive selected markers of a track. The
    /// new markers take the earlier marker's amplitude, have no content, and join the selection.
    func runSubdivide(_ n: Int) throws -> String? {
        guard n >= 1 else { throw CommandError("subdivide needs n >= 1") }
        let groups = try requireSelection()
        var gaps = 0
        for (_, markers) in groups {
            for (a, b) in zip(markers, markers.dropFirst()) where b.time > a.time { gaps += 1 }
        }
        try Limits.checkAdding(Limits.product(gaps, n), to: markerCount, "subdivide")
        var plan: [(track: Int, marker: Marker)] = []
        for (track, markers) in groups {
            for (a, b) in zip(markers, markers.dropFirst()) where b.time > a.time {
                for j in 1...n {
                    let t = a.time + (b.time - a.time) * Double(j) / Double(n + 1)
                    plan.append((track, Marker(id: 0, time: t, amp: a.amp)))
                }
            }
        }
        guard !plan.isEmpty else {
            throw CommandError("subdivide needs two selected markers at different times on one track")
        }
        var added: [(Int, MarkerID)] = []
        try perform("subdivide") { edit in
            for (track, m) in plan { added.append((track, edit.insert(m, track: track))) }
        }
        for (track, id) in added { own.selection[track, default: []].insert(id) }
        return nil
    }

    /// Rotate. Clip mode: each selected marker's content moves to the next selected marker of its track, the
    /// last to the first. Marker mode: each track's selected inter-onset intervals rotate by one (the last
    /// becomes the first), first and last times fixed, amplitude and content staying with their markers.
    func runRotate() throws -> String? {
        let groups = try requireSelection().filter { $0.markers.count >= 2 }
        guard !groups.isEmpty else { throw CommandError("rotate needs two selected markers on one track") }
        try perform("rotate") { edit in
            for (track, markers) in groups {
                let k = markers.count - 1
                if own.clipMode {
                    for i in 0...k { edit.setContent(markers[(i + k) % (k + 1)].content, id: markers[i].id, track: track) }
                } else {
                    let lastInterval = markers[k].time - markers[k - 1].time
                    for i in stride(from: k - 1, through: 1, by: -1) {
                        var m = markers[i]
                        m.time = markers[i - 1].time + lastInterval
                        edit.replace(m, track: track)
                    }
                }
            }
        }
        return nil
    }

    /// Reverse. Clip mode: the contents' order over each track's selected markers is reversed. Marker mode:
    /// the selected times are mirrored inside the whole selection's span (a retrograde that keeps the tracks
    /// aligned), content travelling with its marker.
    func runReverse() throws -> String? {
        let groups = try requireSelection()
        let (first, last) = Self.span(groups)
        try perform("reverse") { edit in
            for (track, markers) in groups {
                if own.clipMode {
                    for (m, source) in zip(markers, markers.reversed()) {
                        edit.setContent(source.content, id: m.id, track: track)
                    }
                } else {
                    for var m in markers {
                        m.time = first + last - m.time
                        edit.replace(m, track: track)
                    }
                }
            }
        }
        return nil
    }

    /// Delete the selected markers, or only their contents in clip mode (the markers stay selected, ready for
    /// a new fill).
    func runDelete(name: String = "delete") throws -> String? {
        if instanceInsteadOfSelection() != nil { return try runInstanceDelete(all: false) }
        let groups = try requireSelection()
        try perform(name) { edit in
            for (track, markers) in groups {
                for m in markers {
                    if own.clipMode {
                        edit.setContent(nil, id: m.id, track: track)
                    } else {
                        edit.remove(id: m.id, track: track)
                    }
                }
            }
        }
        return nil
    }

    /// Gives every selected marker the time `map` assigns to its current time.
    func retime(_ name: String, _ groups: [(track: Int, markers: [Marker])],
                        _ map: (Double) -> Double) throws {
        var plan: [(track: Int, markers: [Marker])] = []
        for (track, markers) in groups {
            var moved: [Marker] = []
            moved.reserveCapacity(markers.count)
            for var m in markers {
                m.time = map(m.time)
                try Limits.checkTime(m.time, "\(name) would move a marker to")
                moved.append(m)
            }
            plan.append((track, moved))
        }
        try perform(name) { edit in
            for (track, markers) in plan { edit.replace(contentsOf: markers, track: track) }
        }
    }

    /// The earliest and latest selected times.
    static func span(_ groups: [(track: Int, markers: [Marker])]) -> (Double, Double) {
        (groups.map { $0.markers.first!.time }.min()!, groups.map { $0.markers.last!.time }.max()!)
    }
}
