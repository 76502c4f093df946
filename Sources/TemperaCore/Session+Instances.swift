/// Linked instances of groups: placing one (`place group`) and unlinking (`unlink`), each one step of the song.
extension Session {
    func runPlaceGroup(_ n: Int, at: Double?, track: Int?, times: Int) throws -> String? {
        guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
        guard (1...GroupInstance.maxTimes).contains(times) else {
            throw CommandError("times must be from 1 to \(GroupInstance.maxTimes)")
        }
        let g = document.groups[n]
        guard !g.elements.isEmpty else { throw CommandError("group \(n) is empty: store a selection with 'group store \(n)'") }
        guard times == 1 || g.span > 0 else { throw CommandError("group \(n) has no span to repeat") }
        let t = try track ?? requireTrack()
        guard t >= 0, t < document.tracks.count else {
            throw CommandError("no track \(t + 1) (the document has \(document.tracks.count))")
        }
        guard document.song.instances.count < Song.maxInstances else {
            throw CommandError("a song holds at most \(Limits.count(Song.maxInstances)) linked instances")
        }
        let start = at ?? own.cursor
        let inst = GroupInstance(group: n, start: start, track: t, times: times)
        let lastOffset = g.elements.map(\.offset).max() ?? 0
        try Limits.checkTime(start, "place group would start at")
        try Limits.checkTime(start + Double(times - 1) * g.span + lastOffset, "place group would put its last marker at")
        let end = min(max(inst.end(of: g), start + lastOffset), Limits.maxTime)
        let before = document.tracks.count
        let missing = max(0, inst.tracks(of: g).upperBound + 1 - before)
        var transport = document.transport
        let lengthens = end > transport.length
        if lengthens { transport.length = end }
        var song = document.song
        song.instances.append(inst)
        song.instances.sort { ($0.start, $0.track, $0.group) < ($1.start, $1.track, $1.group) }
        try perform("place group \(n)") { edit in
            for k in 0..<missing { edit.addTrack(Track(name: "track \(before + k + 1)")) }
            if lengthens { edit.setTransport(transport) }
            edit.setSong(song)
        }
        own.cursor = min(inst.end(of: g), Limits.maxTime)
        return "placed group \(n)\(times == 1 ? "" : " x\(times)") on track \(t + 1), linked: "
            + "\(DocumentFile.number(start))–\(DocumentFile.number(inst.end(of: g))) s"
    }

    /// The instances (indices into `song.instances`) under the cursor on the current track.
    public func instancesAtCursor() -> [Int] {
        let t = own.currentTrack, c = own.cursor
        return document.song.instances.indices.filter { i in
            let inst = document.song.instances[i], g = document.groups[inst.group]
            return inst.tracks(of: g).contains(t) && c >= inst.start && c < max(inst.end(of: g), inst.start + 1e-9)
        }
    }

    func runUnlink(all: Bool) throws -> String? {
        let targets = all ? Array(document.song.instances.indices) : instancesAtCursor()
        guard !targets.isEmpty else {
            throw CommandError(all ? "no linked instance to unlink"
                                   : "no linked instance under the cursor on this track ('unlink all' unlinks every one)")
        }
        // Each instance's markers, as the player hears them, become the track's own.
        var only = document
        only.song.instances = targets.map { document.song.instances[$0] }
        for t in only.tracks.indices { only.tracks[t].markers = MarkerList() }
        let placed = only.expandingInstances()
        var song = document.song
        for i in targets.sorted(by: >) { song.instances.remove(at: i) }
        var count = 0
        try Limits.checkAdding(placed.tracks.reduce(0) { $0 + $1.markers.count }, to: markerCount, "unlink")
        var added: [Int: Set<MarkerID>] = [:]
        try perform(targets.count == 1 ? "unlink" : "unlink \(targets.count)") { edit in
            edit.setSong(song)
            for (t, track) in placed.tracks.enumerated() {
                for m in track.markers {
                    added[t, default: []].insert(edit.insert(m, track: t))
                    count += 1
                }
            }
        }
        own.selection = added
        return "unlinked \(targets.count) instance\(targets.count == 1 ? "" : "s"): \(count) marker\(count == 1 ? "" : "s"), now plain"
    }
}

/// Deleting and moving linked instances as whole blocks.
extension Session {
    func runInstanceDelete(all: Bool) throws -> String? {
        let targets = all ? Array(document.song.instances.indices) : instancesAtCursor()
        guard !targets.isEmpty else {
            throw CommandError(all ? "no linked instance to delete"
                                   : "no linked instance under the cursor on this track ('instance delete all' deletes every one)")
        }
        var song = document.song
        for i in targets.sorted(by: >) { song.instances.remove(at: i) }
        try perform(targets.count == 1 ? "delete instance" : "delete \(targets.count) instances") { $0.setSong(song) }
        return "deleted \(targets.count) linked instance\(targets.count == 1 ? "" : "s") (the group stays in the bank)"
    }

    func runInstanceShift(_ by: Double) throws -> String? {
        let targets = instancesAtCursor()
        guard !targets.isEmpty else { throw CommandError("no linked instance under the cursor on this track") }
        var song = document.song
        for i in targets {
            let start = song.instances[i].start + by
            guard start >= 0 else {
                throw CommandError("instance shift would start an instance at \(DocumentFile.number(start)) s, before 0")
            }
            try Limits.checkTime(start, "instance shift would start an instance at")
            song.instances[i].start = start
        }
        song.instances.sort { ($0.start, $0.track, $0.group) < ($1.start, $1.track, $1.group) }
        try perform(targets.count == 1 ? "shift instance" : "shift \(targets.count) instances") { $0.setSong(song) }
        own.cursor = min(max(own.cursor + by, 0), Limits.maxTime)
        return "moved \(targets.count) linked instance\(targets.count == 1 ? "" : "s") by \(DocumentFile.number(by)) s"
    }
}

/// The ordinary editing commands on a linked instance: with no marker selected, delete, shift, duplicate and copy
/// act on the instance under the cursor on the current track, whole.
extension Session {
    /// The first instance under the cursor on the current track when no marker is selected, else nil.
    func instanceInsteadOfSelection() -> Int? {
        guard (try? requireSelection()) == nil else { return nil }
        return instancesAtCursor().first
    }

    /// Each instance under the cursor again right after itself (its group, track and passes), one step.
    func runInstanceDuplicate() throws -> String? {
        let targets = instancesAtCursor()
        guard !targets.isEmpty else { throw CommandError("no linked instance under the cursor on this track") }
        var song = document.song
        guard song.instances.count + targets.count <= Song.maxInstances else {
            throw CommandError("a song holds at most \(Limits.count(Song.maxInstances)) linked instances")
        }
        var end = 0.0
        for i in targets {
            var copy = song.instances[i]
            let g = document.groups[copy.group]
            guard g.span > 0 else { throw CommandError("group \(copy.group) has no span to repeat after") }
            copy.start = song.instances[i].end(of: g)
            try Limits.checkTime(copy.end(of: g), "duplicate would end an instance at")
            end = max(end, copy.end(of: g))
            song.instances.append(copy)
        }
        song.instances.sort { ($0.start, $0.track, $0.group) < ($1.start, $1.track, $1.group) }
        var transport = document.transport
        let lengthens = end > transport.length
        if lengthens { transport.length = end }
        try perform(targets.count == 1 ? "duplicate instance" : "duplicate \(targets.count) instances") { edit in
            if lengthens { edit.setTransport(transport) }
            edit.setSong(song)
        }
        return "duplicated \(targets.count) linked instance\(targets.count == 1 ? "" : "s"), linked to the same group"
    }

    /// The instance's markers as it plays them (all its passes) become the clipboard: paste puts plain copies.
    func copyInstance(_ i: Int) throws -> String? {
        let inst = document.song.instances[i], g = document.groups[inst.group]
        var elements: [GroupElement] = []
        for k in 0..<inst.times {
            for e in g.elements {
                var c = e
                c.offset += Double(k) * g.span
                elements.append(c)
            }
        }
        own.clipboard = Group(elements: elements, span: inst.length(of: g))
        return "copied the instance of group \(inst.group): \(elements.count) marker\(elements.count == 1 ? "" : "s")"
    }
}
