/// Sections that choose what plays: `section N tracks LIST|all` and `section N play K=G`.
extension Document {
    /// The document as section `s` plays it: a track the section leaves out has no markers (nor its own cycle or
    /// ratio), and a track that plays a group holds the group's content, repeated end to end from the section's
    /// start to its end (a multi-track group reaching down from the track), in place of its own markers, cycle
    /// and ratio. A section that chooses nothing gets the document itself. Only the tracks change.
    public func playing(_ s: Song.Section) -> Document {
        guard let choice = s.choice else { return self }
        var doc = self
        var id = nextMarkerID
        var replaced: [Int: [Marker]] = [:]
        for (k, n) in choice.plays.sorted(by: { $0.key < $1.key }) where GroupBank.range.contains(n) {
            let g = groups[n]
            guard !g.elements.isEmpty else { continue }
            let times = g.span > 0 ? Int(min(((s.end - s.start) / g.span).rounded(.up), Double(GroupInstance.maxTimes))) : 1
            for e in g.elements {
                let t = k + e.trackOffset
                guard t < tracks.count else { continue }
                if replaced[t] == nil { replaced[t] = [] }
                for r in 0..<max(times, 1) {
                    let time = s.start + Double(r) * g.span + e.offset
                    guard time < s.end else { break }
                    var m = Marker(id: id, time: time, amp: e.amp, content: e.content)
                    m.extras = e.extras
                    id &+= 1
                    replaced[t]!.append(m)
                }
            }
            // The track itself plays the group even where the group has nothing for it.
            if replaced[k] == nil, k < tracks.count { replaced[k] = [] }
        }
        let sounding = choice.tracks.map(Set.init)
        for t in doc.tracks.indices {
            let silent = sounding.map { !$0.contains(t) } ?? false
            guard silent || replaced[t] != nil else { continue }
            doc.tracks[t].markers = MarkerList(silent ? [] : replaced[t]!)
            doc.tracks[t].cycle = nil
            doc.tracks[t].ratioText = nil
            doc.tracks[t].ratio = 1
        }
        doc.nextMarkerID = id
        return doc
    }
}

/// The song's choice commands, each one undo step.
extension Session {
    /// `section N tracks LIST|all`: tracks from 1; nil is every track.
    func runSectionTracks(_ n: Int, _ list: [Int]?) throws -> String? {
        let j = try sectionIndex(n)
        let count = document.tracks.count
        if let list, let bad = list.first(where: { $0 < 1 || $0 > count }) {
            throw CommandError("no track \(bad) (the document has \(count))")
        }
        var song = document.song
        song.sections[j].tracks = list.map { Array(Set($0.map { $0 - 1 })).sorted() }
        try perform("section tracks") { $0.setSong(song) }
        guard let list = song.sections[j].tracks else { return "\(sectionLabel(j)): every track" }
        return "\(sectionLabel(j)): " + (list.isEmpty ? "no track" : "track\(list.count == 1 ? "" : "s") "
            + list.map { String($0 + 1) }.joined(separator: ","))
    }

    /// `section N play K=G` (G 0: the track plays its own markers again). Tracks and groups from 1.
    func runSectionPlay(_ n: Int, _ plays: [(track: Int, group: Int)]) throws -> String? {
        let j = try sectionIndex(n)
        let count = document.tracks.count
        var song = document.song
        for (k, g) in plays {
            guard k >= 1, k <= count else { throw CommandError("no track \(k) (the document has \(count))") }
            guard g == 0 || GroupBank.range.contains(g) else { throw CommandError("no group \(g) (groups are 1-16, 0 for none)") }
            if g != 0 && document.groups[g].elements.isEmpty {
                throw CommandError("group \(g) is empty: store a selection with 'group store \(g)'")
            }
            song.sections[j].plays[k - 1] = g == 0 ? nil : g
        }
        try perform("section play") { $0.setSong(song) }
        let p = song.sections[j].plays.sorted { $0.key < $1.key }
        return "\(sectionLabel(j)): " + (p.isEmpty ? "every track plays its own markers"
            : p.map { "track \($0.key + 1) plays group \($0.value)" }.joined(separator: ", "))
    }
}
