/// Undo and redo as a list of named steps, each holding the before and after state of only what it touched: a
/// track's changed markers, a slot, a group, the transport, the designer, the pattern text, the tracks it added
/// and the next marker id. Memory grows with the edits made, never with the document's size, up to `maxBytes`:
/// past that the oldest steps are dropped (`dropped` counts them; `takeNotice` says so once).
///
/// - Warning: main (editor) thread only (owned by a `Session`).
public struct History {
    /// One track's markers that a step changed: their states before (removed on redo) and after (removed on
    /// undo). A marker only in `after` was added; only in `before`, deleted.
    public struct TrackChange: Sendable {
        public var track: Int
        public var before: [Marker]
        public var after: [Marker]
    }

    /// A changed value of an indexed part of the document (a slot or a group counted from 1, a track from 0).
    public struct ValueChange<Value: Sendable>: Sendable {
        public var index: Int
        public var before: Value
        public var after: Value
    }

    /// One undoable step.
    public struct Step: Sendable {
        public var name: String
        public var markers: [TrackChange] = []
        /// Tracks appended by the step, as they were at its end; their markers are not in `markers`.
        public var addedTracks: [Track] = []
        public var tracksBefore: Int
        public var slots: [ValueChange<ClipSlot>] = []
        public var groups: [ValueChange<Group>] = []
        /// Name, gain, mute and solo of tracks that existed before the step (index from 0).
        public var trackSettings: [ValueChange<TrackSettings>] = []
        public var transport: (before: Transport, after: Transport)?
        public var song: (before: Song, after: Song)?
        public var designer: (before: Temperament, after: Temperament)?
        public var pattern: (before: String, after: String)?
        /// The whole list of tracks, when the step deleted, moved or duplicated one (then it is the step's
        /// only change to tracks). The tracks share their marker storage with the document's.
        public var tracks: (before: [Track], after: [Track])?
        public var nextMarkerID: (before: MarkerID, after: MarkerID)

        init(name: String, tracksBefore: Int, nextMarkerID: (MarkerID, MarkerID)) {
            self.name = name
            self.tracksBefore = tracksBefore
            self.nextMarkerID = nextMarkerID
        }

        var changesDocument: Bool {
            !markers.isEmpty || !addedTracks.isEmpty || !slots.isEmpty || !groups.isEmpty || !trackSettings.isEmpty
                || transport != nil || song != nil
                || designer != nil || pattern != nil || tracks != nil || nextMarkerID.before != nextMarkerID.after
        }

        /// Markers held by the step (before and after states, added tracks included): what it costs to keep.
        public var storedMarkers: Int {
            markers.reduce(0) { $0 + $1.before.count + $1.after.count } + addedTracks.reduce(0) { $0 + $1.markers.count }
        }

        /// What keeping the step costs, in bytes (`measuredBytes`, taken when the step is recorded).
        public internal(set) var bytes = 0

        /// What keeping the step costs, in bytes: its own records (markers, values, the runs of a tempo map it
        /// changed), not the storage it shares with the document. An estimate, close for the big parts.
        var measuredBytes: Int {
            var n = 256 + name.utf8.count
            n += storedMarkers * MemoryLayout<Marker>.stride
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

        /// Takes the document from the state before the step to the state after it.
        func redo(_ doc: inout Document) {
            if let tracks { doc.tracks = tracks.after }
            doc.tracks.append(contentsOf: addedTracks)
            for change in markers {
                History.move(&doc.tracks[change.track].markers, from: change.before, to: change.after)
            }
            for s in slots { doc.slots[s.index - 1] = s.after }
            for g in groups { doc.groups[g.index] = g.after }
            for t in trackSettings { t.after.apply(to: &doc.tracks[t.index]) }
            if let transport { doc.transport = transport.after }
            if let song { doc.song = song.after }
            if let designer { doc.designer = designer.after }
            if let pattern { doc.pattern = pattern.after }
            doc.nextMarkerID = nextMarkerID.after
        }

        /// Takes the document from the state after the step back to the state before it.
        func undo(_ doc: inout Document) {
            for change in markers {
                History.move(&doc.tracks[change.track].markers, from: change.after, to: change.before)
            }
            if let tracks { doc.tracks = tracks.before }
            if doc.tracks.count > tracksBefore { doc.tracks.removeLast(doc.tracks.count - tracksBefore) }
            for s in slots { doc.slots[s.index - 1] = s.before }
            for g in groups { doc.groups[g.index] = g.before }
            for t in trackSettings { t.before.apply(to: &doc.tracks[t.index]) }
            if let transport { doc.transport = transport.before }
            if let song { doc.song = song.before }
            if let designer { doc.designer = designer.before }
            if let pattern { doc.pattern = pattern.before }
            doc.nextMarkerID = nextMarkerID.before
        }
    }

    /// Takes a track from holding the markers `old` to holding `new` (the same ids may appear in both).
    static func move(_ list: inout MarkerList, from old: [Marker], to new: [Marker]) {
        var incoming = [MarkerID: Marker](minimumCapacity: new.count)
        for m in new { incoming[m.id] = m }
        var removed: [MarkerID] = []
        var moves: [(old: Marker, new: Marker)] = []
        for m in old {
            guard let n = incoming.removeValue(forKey: m.id) else {
                removed.append(m.id)
                continue
            }
            moves.append((m, n))
        }
        let upserts = MarkerList.updateOrder(moves) + new.filter { incoming[$0.id] != nil }
        list.apply(removing: removed, upserting: upserts)
    }

    /// Steps that can be undone, oldest first.
    public private(set) var undoSteps: [Step] = []
    /// Steps that can be redone, the next one last.
    public private(set) var redoSteps: [Step] = []
    /// Serial numbers parallel to `undoSteps`, so a save point survives undo and redo but not a new branch.
    private var undoSerials: [Int] = []
    private var redoSerials: [Int] = []
    private var nextSerial = 1
    /// The bytes every step held costs (`Step.bytes`, undo and redo).
    public private(set) var bytes = 0
    /// The most bytes the steps may hold; past it the oldest are dropped (the newest step always stays).
    public let maxBytes: Int
    /// Steps dropped so far to keep within `maxBytes`.
    public private(set) var dropped = 0
    private var told = false

    public init(maxBytes: Int = Limits.maxHistoryBytes) {
        self.maxBytes = maxBytes
    }

    /// The one line to tell the user the first time steps are dropped; nil otherwise (and ever after).
    public mutating func takeNotice() -> String? {
        guard dropped > 0, !told else { return nil }
        told = true
        return "undo keeps the latest \(Limits.bytes(maxBytes)) of steps: the oldest are dropped from now on "
            + "(\(Limits.count(dropped)) so far)"
    }

    /// The serial of the state the document is in (0: the state it was loaded in).
    public var currentSerial: Int { undoSerials.last ?? 0 }

    /// Records a new step; whatever could be redone is dropped.
    mutating func push(_ step: Step) {
        undoSteps.append(step)
        undoSerials.append(nextSerial)
        nextSerial += 1
        bytes += step.bytes - redoSteps.reduce(0) { $0 + $1.bytes }
        redoSteps.removeAll()
        redoSerials.removeAll()
        let k = History.oldestBeyond(maxBytes, in: undoSteps, total: bytes)
        guard k > 0 else { return }
        bytes -= undoSteps[..<k].reduce(0) { $0 + $1.bytes }
        undoSteps.removeFirst(k)
        undoSerials.removeFirst(k)
        dropped += k
    }

    /// How many of the oldest of `steps` (oldest first, costing `total` bytes together) to drop so that the rest
    /// cost at most `maxBytes`; the newest always stays.
    public static func oldestBeyond(_ maxBytes: Int, in steps: [Step], total: Int) -> Int {
        var k = 0, left = total
        while k < steps.count - 1 && left > maxBytes {
            left -= steps[k].bytes
            k += 1
        }
        return k
    }

    /// Drops the oldest of `steps` (oldest first) beyond `maxBytes`: another stack of steps (a participant's
    /// own undo on a shared document) kept within the same bound. Returns how many were dropped.
    @discardableResult
    public static func trim(_ steps: inout [Step], to maxBytes: Int = Limits.maxHistoryBytes) -> Int {
        let k = oldestBeyond(maxBytes, in: steps, total: steps.reduce(0) { $0 + $1.bytes })
        steps.removeFirst(k)
        return k
    }

    /// How many steps were ever recorded: it moves on every new step, even when the oldest are dropped.
    public var recorded: Int { nextSerial - 1 }

    /// Undoes the last step; false when there is none.
    mutating func undo(_ doc: inout Document) -> Bool {
        guard let step = undoSteps.popLast(), let serial = undoSerials.popLast() else { return false }
        step.undo(&doc)
        redoSteps.append(step)
        redoSerials.append(serial)
        return true
    }

    /// Redoes the last undone step; false when there is none.
    mutating func redo(_ doc: inout Document) -> Bool {
        guard let step = redoSteps.popLast(), let serial = redoSerials.popLast() else { return false }
        step.redo(&doc)
        undoSteps.append(step)
        undoSerials.append(serial)
        return true
    }

    /// Markers held by every step, undo and redo: the history's memory in marker records.
    public var storedMarkers: Int {
        (undoSteps + redoSteps).reduce(0) { $0 + $1.storedMarkers }
    }
}
