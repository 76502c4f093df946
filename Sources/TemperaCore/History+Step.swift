extension History {
    /// One undoable step.
    ///
    /// Kept small, since a script may record a million: a step that added or removed one marker holds that
    /// marker in place (no list a track), and the parts few steps change (tracks added, deleted or moved, slots,
    /// groups, track settings, transport, song, designer, pattern) live out of line, in one box the other steps
    /// do not have.
    public struct Step: Sendable {
        public var name: String
        /// The markers it changed.
        private var changed: ChangedMarkers = .tracks([])
        /// The rarer parts; nil when the step changed none of them.
        private var rare: RareBox?
        private var storedTracksBefore: Int32
        public var nextMarkerID: (before: MarkerID, after: MarkerID)
        /// What keeping the step costs, in bytes (`measuredBytes`, taken when the step is recorded).
        public internal(set) var bytes = 0
        /// Its number in the history that recorded it (0 until then), so a save point survives undo and redo
        /// but not a new branch.
        var serial = 0

        init(name: String, tracksBefore: Int, nextMarkerID: (MarkerID, MarkerID)) {
            self.name = name
            self.storedTracksBefore = Int32(tracksBefore)
            self.nextMarkerID = nextMarkerID
        }

        /// The markers a step changed: one marker added or removed, in place; else a list of tracks' changes.
        private enum ChangedMarkers: Sendable {
            case added(Marker, track: Int32)
            case removed(Marker, track: Int32)
            case tracks([TrackChange])

            init(_ list: [TrackChange]) {
                if list.count == 1, let track = Int32(exactly: list[0].track) {
                    let c = list[0]
                    if c.before.isEmpty && c.after.count == 1 { self = .added(c.after[0], track: track); return }
                    if c.after.isEmpty && c.before.count == 1 { self = .removed(c.before[0], track: track); return }
                }
                self = .tracks(list)
            }
        }

        /// The parts of a step that few steps change.
        struct Rare: Sendable {
            var addedTracks: [Track] = []
            var slots: [ValueChange<ClipSlot>] = []
            var groups: [ValueChange<Group>] = []
            var trackSettings: [ValueChange<TrackSettings>] = []
            var transport: (before: Transport, after: Transport)?
            var song: (before: Song, after: Song)?
            var designer: (before: Temperament, after: Temperament)?
            var pattern: (before: String, after: String)?
            var tracks: (before: [Track], after: [Track])?

            var isEmpty: Bool {
                addedTracks.isEmpty && slots.isEmpty && groups.isEmpty && trackSettings.isEmpty && transport == nil
                    && song == nil && designer == nil && pattern == nil && tracks == nil
            }
        }

        final class RareBox: Sendable {
            let value: Rare
            init(_ value: Rare) { self.value = value }
        }

        private mutating func editRare(_ body: (inout Rare) -> Void) {
            var r = rare?.value ?? Rare()
            body(&r)
            rare = r.isEmpty ? nil : RareBox(r)
        }

        public var tracksBefore: Int {
            get { Int(storedTracksBefore) }
            set { storedTracksBefore = Int32(newValue) }
        }

        /// The markers the step changed, a track at a time.
        public var markers: [TrackChange] {
            get {
                switch changed {
                case .added(let m, let track): return [TrackChange(track: Int(track), before: [], after: [m])]
                case .removed(let m, let track): return [TrackChange(track: Int(track), before: [m], after: [])]
                case .tracks(let list): return list
                }
            }
            set { changed = ChangedMarkers(newValue) }
        }

        /// Tracks appended by the step, as they were at its end; their markers are not in `markers`.
        public var addedTracks: [Track] {
            get { rare?.value.addedTracks ?? [] }
            set { editRare { $0.addedTracks = newValue } }
        }
        public var slots: [ValueChange<ClipSlot>] {
            get { rare?.value.slots ?? [] }
            set { editRare { $0.slots = newValue } }
        }
        public var groups: [ValueChange<Group>] {
            get { rare?.value.groups ?? [] }
            set { editRare { $0.groups = newValue } }
        }
        /// Name, gain, mute and solo of tracks that existed before the step (index from 0).
        public var trackSettings: [ValueChange<TrackSettings>] {
            get { rare?.value.trackSettings ?? [] }
            set { editRare { $0.trackSettings = newValue } }
        }
        public var transport: (before: Transport, after: Transport)? {
            get { rare?.value.transport }
            set { editRare { $0.transport = newValue } }
        }
        public var song: (before: Song, after: Song)? {
            get { rare?.value.song }
            set { editRare { $0.song = newValue } }
        }
        public var designer: (before: Temperament, after: Temperament)? {
            get { rare?.value.designer }
            set { editRare { $0.designer = newValue } }
        }
        public var pattern: (before: String, after: String)? {
            get { rare?.value.pattern }
            set { editRare { $0.pattern = newValue } }
        }
        /// The whole list of tracks, when the step deleted, moved or duplicated one (then it is the step's
        /// only change to tracks). The tracks share their marker storage with the document's.
        public var tracks: (before: [Track], after: [Track])? {
            get { rare?.value.tracks }
            set { editRare { $0.tracks = newValue } }
        }

        var changesDocument: Bool {
            if case .tracks(let list) = changed, list.isEmpty {
                return rare != nil || nextMarkerID.before != nextMarkerID.after
            }
            return true
        }

        /// Markers held by the step (before and after states, added tracks included): what it costs to keep.
        public var storedMarkers: Int {
            var n = 0
            switch changed {
            case .added, .removed: n = 1
            case .tracks(let list): n = list.reduce(0) { $0 + $1.before.count + $1.after.count }
            }
            return n + (rare?.value.addedTracks.reduce(0) { $0 + $1.markers.count } ?? 0)
        }

        /// What keeping the step costs, in bytes: the step itself, what it holds out of line (its lists, as
        /// allocated, and the rarer parts' box) and the markers it alone keeps; not the storage it shares with
        /// the document. Exact for the step and its lists of markers, an estimate for the rarer parts.
        var measuredBytes: Int {
            var n = MemoryLayout<Step>.stride + History.heapBytes(of: name)
            if case .tracks(let list) = changed, !list.isEmpty {
                n += History.arrayBytes(list.capacity, of: TrackChange.self)
                for c in list {
                    n += History.arrayBytes(c.before.capacity, of: Marker.self) + History.arrayBytes(c.after.capacity, of: Marker.self)
                }
            }
            if let rare { n += History.objectBytes(MemoryLayout<Rare>.stride) + rare.value.measuredBytes }
            return n
        }

        /// Takes the document from the state before the step to the state after it.
        func redo(_ doc: inout Document) {
            let rare = rare?.value
            if let tracks = rare?.tracks { doc.tracks = tracks.after }
            if let added = rare?.addedTracks { doc.tracks.append(contentsOf: added) }
            for change in markers {
                History.move(&doc.tracks[change.track].markers, from: change.before, to: change.after)
            }
            if let rare {
                for s in rare.slots { doc.slots[s.index - 1] = s.after }
                for g in rare.groups { doc.groups[g.index] = g.after }
                for t in rare.trackSettings { t.after.apply(to: &doc.tracks[t.index]) }
                if let transport = rare.transport { doc.transport = transport.after }
                if let song = rare.song { doc.song = song.after }
                if let designer = rare.designer { doc.designer = designer.after }
                if let pattern = rare.pattern { doc.pattern = pattern.after }
            }
            doc.nextMarkerID = nextMarkerID.after
        }

        /// Takes the document from the state after the step back to the state before it.
        func undo(_ doc: inout Document) {
            for change in markers {
                History.move(&doc.tracks[change.track].markers, from: change.after, to: change.before)
            }
            let rare = rare?.value
            if let tracks = rare?.tracks { doc.tracks = tracks.before }
            if doc.tracks.count > tracksBefore { doc.tracks.removeLast(doc.tracks.count - tracksBefore) }
            if let rare {
                for s in rare.slots { doc.slots[s.index - 1] = s.before }
                for g in rare.groups { doc.groups[g.index] = g.before }
                for t in rare.trackSettings { t.before.apply(to: &doc.tracks[t.index]) }
                if let transport = rare.transport { doc.transport = transport.before }
                if let song = rare.song { doc.song = song.before }
                if let designer = rare.designer { doc.designer = designer.before }
                if let pattern = rare.pattern { doc.pattern = pattern.before }
            }
            doc.nextMarkerID = nextMarkerID.before
        }
    }

    /// Bytes the C allocator hands out for an object of `size` bytes (its own 8-byte header, in 16-byte units).
    static func objectBytes(_ size: Int) -> Int { (size + 8 + 15) / 16 * 16 }

    /// Bytes an array's storage of `capacity` elements takes (its 32-byte header included); 0 for none.
    static func arrayBytes<T>(_ capacity: Int, of _: T.Type) -> Int {
        capacity == 0 ? 0 : objectBytes(32 + capacity * MemoryLayout<T>.stride)
    }

    /// Bytes a string holds out of line: none for up to 15 bytes of UTF-8, which Swift keeps in the value.
    static func heapBytes(of string: String) -> Int {
        string.utf8.count <= 15 ? 0 : objectBytes(32 + string.utf8.count + 1)
    }
}

extension History.Step.Rare {
    /// The rarer parts' own records (values, the runs of a tempo map it changed), an estimate close for the
    /// big parts; the markers of added and deleted tracks, which live on only here once undone.
    var measuredBytes: Int {
        var n = addedTracks.reduce(0) { $0 + $1.markers.count } * MemoryLayout<Marker>.stride
        n += slots.count * 2 * (MemoryLayout<ClipSlot>.stride + 64)
        n += groups.reduce(0) { $0 + ($1.before.elements.count + $1.after.elements.count) * MemoryLayout<GroupElement>.stride }
        n += trackSettings.count * 2 * (MemoryLayout<TrackSettings>.stride + 32)
        if let transport {
            n += 2 * MemoryLayout<Transport>.stride
            n += transport.before.tempoMap.bytes(notSharedWith: transport.after.tempoMap)
            n += transport.after.tempoMap.bytes(notSharedWith: transport.before.tempoMap)
        }
        if let song { n += (song.before.sections.count + song.after.sections.count) * (MemoryLayout<Song.Section>.stride + 16) }
        if designer != nil { n += 2 * MemoryLayout<Temperament>.stride + 1024 }
        if let pattern { n += pattern.before.utf8.count + pattern.after.utf8.count }
        if let tracks {
            // The markers of a deleted track live on only here.
            let before = tracks.before.reduce(0) { $0 + $1.markers.count }, after = tracks.after.reduce(0) { $0 + $1.markers.count }
            n += (tracks.before.count + tracks.after.count) * MemoryLayout<Track>.stride
            n += max(before - after, 0) * MemoryLayout<Marker>.stride
        }
        return n
    }
}
