/// A group opened as the timeline (`group edit N`): the timeline's own tracks and transport are kept aside
/// while the tracks hold the group's content, its first track on `track`, from 0 to its span (the loop region).
/// `group done` stores the timeline back as the group and puts the kept timeline back, one undo step each.
/// Kept with the song, so undo and redo of either step restore both sides exactly.
public struct GroupEdit: Hashable, Sendable {
    /// The group being edited, 1...16.
    public var group: Int
    /// The track the group's first track is shown on.
    public var track: Int
    /// The timeline's tracks and transport as they were when the edit began.
    public var tracks: [Track]
    public var transport: Transport

    public init(group: Int, track: Int, tracks: [Track], transport: Transport) {
        self.group = group
        self.track = track
        self.tracks = tracks
        self.transport = transport
    }
}

extension Document {
    /// The group the timeline shows while `group edit` is open: every marker of every track from `edit.track`
    /// down, at its time from 0 (empty markers too: they are the grid the tools draw on), its span the loop
    /// region's end. A marker above the group's first track cannot belong to it.
    public func editedGroup(_ edit: GroupEdit) throws -> Group {
        var elements: [GroupElement] = []
        for (t, track) in tracks.enumerated() {
            for m in track.markers {
                guard t >= edit.track else {
                    throw CommandError("group \(edit.group) starts on track \(edit.track + 1): move the markers on track \(t + 1) down or delete them")
                }
                elements.append(GroupElement(offset: m.time, trackOffset: t - edit.track, amp: m.amp, content: m.content,
                                             extras: m.extras))
            }
        }
        elements.sort { ($0.offset, $0.trackOffset) < ($1.offset, $1.trackOffset) }
        var g = Group(elements: elements, span: transport.loopEnd)
        if elements.isEmpty { g.span = 0 }
        return g
    }

    /// The document as it stands outside the group being edited: the kept timeline back, the edited group in the
    /// bank. Saving writes this, and the song plays it, so what is heard and kept is the arrangement with the
    /// edit in it. Without an open edit, the document itself; with an edit that cannot be stored (markers above
    /// the group's track), the group as it was.
    public var closingGroupEdit: Document {
        guard let e = song.editing else { return self }
        var doc = self
        if let g = try? editedGroup(e), Limits.groupProblem(g) == nil { doc.groups[e.group] = g }
        doc.tracks = e.tracks
        doc.transport = e.transport
        doc.song.editing = nil
        return doc
    }
}

/// `group edit N` and `group done`.
extension Session {
    /// The group open as the timeline, if any.
    public var editingGroup: Int? { document.song.editing?.group }

    func runGroupEdit(_ n: Int) throws -> String? {
        guard GroupBank.range.contains(n) else { throw CommandError("no group \(n) (groups are 1-16)") }
        if let open = document.song.editing {
            throw CommandError("group \(open.group) is open: 'group done' returns to the timeline first")
        }
        let g = document.groups[n]
        guard g.groove == nil else { throw CommandError("group \(n) holds a groove, not markers: 'groove apply \(n)' uses it") }
        // Shown on the track of its first instance (its sounds as they play), else on the current track.
        let first = document.song.instances.first { $0.group == n }?.track ?? (own.currentTrack >= 0 ? own.currentTrack : 0)
        let lowest = g.elements.map(\.trackOffset).max() ?? 0
        let span = g.span > 0 ? g.span : max(g.elements.map(\.offset).max() ?? 0, 0) + 1
        let kept = GroupEdit(group: n, track: first, tracks: document.tracks, transport: document.transport)
        var tracks = document.tracks.map { t -> Track in
            var t = t
            t.markers = MarkerList()
            t.cycle = nil
            t.ratioText = nil
            t.ratio = 1
            return t
        }
        while tracks.count <= first + lowest { tracks.append(Track(name: "track \(tracks.count + 1)")) }
        var transport = document.transport
        transport.loopStart = 0
        transport.loopEnd = span
        transport.length = max(span, g.elements.map(\.offset).max() ?? 0)
        var song = document.song
        song.editing = kept
        try perform("group edit \(n)") { edit in
            for t in tracks.indices {
                var markers: [Marker] = []
                for e in g.elements where first + e.trackOffset == t {
                    var m = Marker(id: edit.document.makeMarkerID(), time: e.offset, amp: e.amp, content: e.content)
                    m.extras = e.extras
                    markers.append(m)
                }
                tracks[t].markers = MarkerList(markers)
            }
            edit.setTracks(tracks)
            edit.setTransport(transport)
            edit.setSong(song)
        }
        own.selection = [:]
        own.cursor = 0
        own.currentTrack = first
        return "editing group \(n) as the timeline (\(g.elements.count) marker\(g.elements.count == 1 ? "" : "s") over "
            + "\(DocumentFile.number(span)) s): 'group done' or Esc returns"
    }

    func runGroupDone() throws -> String? {
        guard let e = document.song.editing else { throw CommandError("no group is open: 'group edit N' opens one") }
        let g = try document.editedGroup(e)
        if let problem = Limits.groupProblem(g) { throw CommandError("group done: \(problem)") }
        var song = document.song
        song.editing = nil
        try perform("group done") { edit in
            edit.setTracks(e.tracks)
            edit.setTransport(e.transport)
            edit.setGroup(e.group, g)
            edit.setSong(song)
        }
        own.selection = [:]
        own.currentTrack = min(e.track, document.tracks.count - 1)
        let uses = document.song.instances.filter { $0.group == e.group }.count
        return "group \(e.group): \(g.elements.count) marker\(g.elements.count == 1 ? "" : "s") over "
            + "\(DocumentFile.number(g.span)) s, heard in \(uses) instance\(uses == 1 ? "" : "s")"
    }
}
