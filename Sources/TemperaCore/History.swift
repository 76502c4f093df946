/// Unlimited undo and redo as a list of named steps, each holding the before and after state of only what it
/// touched: a track's changed markers, a slot, a group, the transport, the designer, the pattern text, the
/// tracks it added and the next marker id. Memory grows with the edits made, never with the document's size.
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

    public init() {}

    /// The serial of the state the document is in (0: the state it was loaded in).
    public var currentSerial: Int { undoSerials.last ?? 0 }

    /// Records a new step; whatever could be redone is dropped.
    mutating func push(_ step: Step) {
        undoSteps.append(step)
        undoSerials.append(nextSerial)
        nextSerial += 1
        redoSteps.removeAll()
        redoSerials.removeAll()
    }

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
