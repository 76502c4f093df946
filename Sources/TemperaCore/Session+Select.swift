/// Selection: not an undo step. A plain select replaces the whole selection; with `add` (hold) it toggles
/// each element it touches and leaves the rest as it is. In clip mode the elements are markers holding content.
extension Session {
    func runSelect(_ s: Command.Selection) throws -> String? {
        let tracks = s.allTracks ? Array(document.tracks.indices) : [try requireTrack()]
        if case .range(let a, let b) = s.kind, !(a <= b) {
            throw CommandError("select range needs A <= B")
        }
        var touched: [Int: [MarkerID]] = [:]
        if case .pattern(let code) = s.kind, !s.add, tracks.contains(where: { own.selection[$0] != nil }) {
            // A pattern over a selection picks among the selected markers (`select range 2 4`, then `select
            // pattern "+-"`: every other one of those), from a key as from the command line.
            for t in tracks { touched[t] = picked(code, from: selectedMarkers(track: t)) }
        } else {
            for t in tracks { touched[t] = elements(s.kind, track: t) }
        }
        if s.add {
            for (t, ids) in touched {
                var set = own.selection[t] ?? []
                for id in ids where set.remove(id) == nil { set.insert(id) }
                own.selection[t] = set.isEmpty ? nil : set
            }
        } else {
            own.selection = [:]
            for (t, ids) in touched where !ids.isEmpty { own.selection[t] = Set(ids) }
        }
        return nil
    }

    /// The elements of one track a selection kind touches.
    func elements(_ kind: Command.Selection.Kind, track t: Int) -> [MarkerID] {
        let markers = document.tracks[t].markers
        func ids(_ range: Range<Int>) -> [MarkerID] {
            markers[range].lazy.filter { self.isElement($0) }.map(\.id)
        }
        switch kind {
        case .none:
            return []
        case .all:
            return ids(0..<markers.count)
        case .left:
            return ids(0..<markers.lowerBound(time: own.cursor))
        case .right:
            return ids(markers.lowerBound(time: own.cursor)..<markers.count)
        case .at(let time):
            return markers.nearest(to: time, where: isElement).map { [markers[$0].id] } ?? []
        case .range(let a, let b):
            return ids(markers.lowerBound(time: a)..<markers.upperBound(time: b))
        case .pattern(let code):
            return picked(code, from: markers[markers.lowerBound(time: own.cursor)...].filter(isElement))
        }
    }

    /// The markers of `markers` (in time order) a pattern code picks, its symbols repeating.
    func picked(_ code: PatternCode, from markers: [Marker]) -> [MarkerID] {
        let symbols = code.symbols
        guard !symbols.isEmpty else { return [] }
        var out: [MarkerID] = []
        for (i, m) in markers.enumerated() {
            let take: Bool
            switch symbols[i % symbols.count] {
            case .hold: take = true
            case .rest: take = false
            case .clip(let n): take = m.content == .clip(n)
            case .random: take = own.random.coin()
            case .skip: take = m.content == nil
            }
            if take { out.append(m.id) }
        }
        return out
    }
}
