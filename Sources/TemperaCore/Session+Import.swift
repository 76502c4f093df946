/// Adding a document made elsewhere (an imported recording, MIDI file or Hydrogen song) to this one.
extension Session {
    /// `imported`'s tracks inserted below the current track, their markers from the cursor's time on, and the
    /// slots they play added to this document's slots (a slot equal to one already here is shared, any other
    /// takes an empty slot, else one no marker of this document plays, from slot 16 down, its markers following
    /// it), as one undo step named `name`. The timeline grows to hold
    /// them; this document's tempo, loop, groups and designer stay as they are. Throws when the slots they need
    /// do not fit in the free ones, or the tracks would pass the limits.
    public func add(_ imported: Document, name: String) throws -> String {
        guard !imported.tracks.isEmpty, imported.tracks.contains(where: { !$0.markers.isEmpty }) else {
            throw CommandError("\(name): nothing to add (no markers)")
        }
        guard document.tracks.count + imported.tracks.count <= Limits.maxTracks else {
            throw CommandError("\(name): \(imported.tracks.count) more tracks would pass the \(Limits.maxTracks) a document holds")
        }
        // The slots the imported markers play, each to a slot of this document.
        var used: [Int] = []
        for track in imported.tracks {
            for m in track.markers { if case .clip(let n)? = m.content, !used.contains(n) { used.append(n) } }
        }
        used.sort()
        var map: [Int: Int] = [:]
        var slots = document.slots
        var added: [Int] = []
        var played = Set<Int>()
        for track in document.tracks {
            for m in track.markers { if case .clip(let n)? = m.content { played.insert(n) } }
        }
        // Where a new sound may go: empty slots first, then slots nothing plays, the last first.
        let room = ClipSlot.range.filter { slots[$0 - 1].isEmpty }
            + ClipSlot.range.reversed().filter { !slots[$0 - 1].isEmpty && !played.contains($0) }
        var replaced: [String] = []
        for n in used {
            let slot = imported.slot(n)
            if slots[n - 1] == slot {
                map[n] = n
            } else if let same = ClipSlot.range.first(where: { slots[$0 - 1] == slot && !slot.isEmpty }) {
                map[n] = same
            } else if let free = room.first(where: { !added.contains($0) }) {
                map[n] = free
                if !slots[free - 1].isEmpty { replaced.append(slots[free - 1].name) }
                slots[free - 1] = slot
                added.append(free)
            } else {
                throw CommandError("\(name): its sounds need \(used.count) slots and only \(room.count) "
                    + "\(room.count == 1 ? "is" : "are") free (empty, or played by no marker)")
            }
        }
        let offset = own.cursor
        let at = document.tracks.isEmpty ? 0 : min(max(own.currentTrack, 0), document.tracks.count - 1) + 1
        var end = document.transport.length
        var tracks = document.tracks
        try perform("import \(name)") { edit in
            var incoming: [Track] = []
            for track in imported.tracks {
                var t = edit.renumbered(track)
                t.markers = MarkerList(try t.markers.map { m in
                    var m = m
                    m.time += offset
                    try Limits.checkTime(m.time, "the import would put a marker at")
                    if case .clip(let n)? = m.content, let to = map[n] { m.content = .clip(to) }
                    end = max(end, m.time)
                    return m
                })
                incoming.append(t)
            }
            end = max(end, offset + imported.transport.length)
            tracks.insert(contentsOf: incoming, at: at)
            edit.setTracks(tracks)
            for n in added { edit.setSlot(n, slots[n - 1]) }
            if end > document.transport.length {
                var transport = edit.document.transport
                transport.length = min(end, CommandParser.maxTime)
                edit.setTransport(transport)
            }
        }
        own.currentTrack = at
        let count = imported.tracks.count
        return "\(count) track\(count == 1 ? "" : "s") added " + (at == 0 ? "" : "below track \(at) ") + "at \(DocumentFile.number(offset)) s"
            + (added.isEmpty ? "" : ", slot\(added.count == 1 ? "" : "s") " + added.map(String.init).joined(separator: ", ") + " added")
            + (replaced.isEmpty ? "" : " (in place of " + replaced.joined(separator: ", ") + ", which no marker played)")
    }
}
