/// Adding a document made elsewhere (an imported recording, MIDI file or Hydrogen song) to this one.
extension Session {
    /// `imported`'s tracks inserted below the current track, their markers from the cursor's time on, and the
    /// slots they play added to this document's slots (a slot equal to one already here is shared, any other
    /// takes an empty slot, else one no marker of this document plays, from slot 16 down, its markers following
    /// it), as one undo step named `name`. The timeline grows to hold
    /// them; this document's tempo, loop, groups and designer stay as they are. Throws when the slots they need
    /// do not fit in the free ones, or the tracks would pass the limits.
    public func add(_ imported: Document, name: String) throws -> String {
        // Its linked patterns (a Hydrogen song's) come as groups in this document's empty group slots, their
        // instances with them; when too few are empty, they come as the markers they play.
        let groupsUsed = Array(Set(imported.song.instances.map(\.group))).sorted()
        let freeGroups = GroupBank.range.filter { n in document.groups[n].isEmpty && !document.song.instances.contains { $0.group == n } }
        let linked = groupsUsed.count <= freeGroups.count && document.song.instances.count + imported.song.instances.count <= Song.maxInstances
        let imported = linked ? imported : imported.expandingInstances().withoutInstances()
        let groupMap = Dictionary(uniqueKeysWithValues: zip(groupsUsed, freeGroups))
        guard !imported.tracks.isEmpty,
              imported.tracks.contains(where: { !$0.markers.isEmpty }) || !imported.song.instances.isEmpty else {
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
        for g in groupsUsed {
            for e in imported.groups[g].elements { if case .clip(let n)? = e.content, !used.contains(n) { used.append(n) } }
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
            // This document's instances and section choices below the insertion move down with their tracks; the imported ones
            // start at the cursor on the new tracks, playing their groups in the slots given above.
            edit.followTracks { $0 >= at ? $0 + incoming.count : $0 }
            var song = edit.document.song
            for (from, to) in groupMap {
                var g = imported.groups[from]
                for k in g.elements.indices {
                    if case .clip(let n)? = g.elements[k].content, let slot = map[n] { g.elements[k].content = .clip(slot) }
                }
                edit.setGroup(to, g)
            }
            for inst in imported.song.instances {
                guard let g = groupMap[inst.group] else { continue }
                let placed = GroupInstance(group: g, start: inst.start + offset, track: inst.track + at, times: inst.times)
                try Limits.checkTime(placed.start, "the import would put an instance at")
                end = max(end, placed.end(of: imported.groups[inst.group]))
                song.instances.append(placed)
            }
            song.instances.sort { ($0.start, $0.track, $0.group) < ($1.start, $1.track, $1.group) }
            if song != edit.document.song { edit.setSong(song) }
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
            + (groupMap.isEmpty ? "" : ", its patterns as group" + (groupMap.count == 1 ? " " : "s ")
                + groupMap.values.sorted().map(String.init).joined(separator: ", "))
            + (linked || groupsUsed.isEmpty ? "" : " (its \(groupsUsed.count) patterns as markers: too few empty groups)")
    }
}

extension Document {
    /// The document with its linked instances taken away (after `expandingInstances`, whose markers stand in
    /// for them).
    func withoutInstances() -> Document {
        var doc = self
        doc.song.instances = []
        return doc
    }
}
