/// What a shared document needs from a session: several participants' own cursors and selections on one
/// document and one history, changes that arrive from elsewhere, and undoing one participant's step out of
/// order when nothing it touched has changed since.
extension Session {
    /// One participant's own state: everything a command reads besides the document (the session keeps its
    /// own in `own`; `session.cursor`, `session.selection`... are its fields).
    public struct View: Sendable {
        /// The cursor's time in seconds (tempo x1).
        public var cursor: Double = 0
        /// 0-based index of the current track.
        public var currentTrack = 0
        /// Selected markers, per 0-based track index.
        public var selection: [Int: Set<MarkerID>] = [:]
        /// Tools act on clips (the markers holding content) instead of grid markers.
        public var clipMode = false
        /// Clips go onto existing markers (on), or a clip and its marker are placed together anywhere (off).
        public var snap = true
        /// What drawing places.
        public var chosenClip: Content = .clip(1)
        /// The n that `subdivide` uses when the UI runs it (the command carries its own).
        public var subdivision = 1
        /// Random choices made while editing (pattern select's `?`); seeded from the document so a script
        /// selects the same markers every time. Replace it to inject another seed.
        public var random: SeededRandom
        /// What `copy` and `cut` took and `paste` puts down: a group keeping its span. Session state, not part
        /// of the document (and not an undo step).
        public var clipboard: Group?
        /// What the last stamp, paste or duplicate placed (the selection it left) and the span it was placed
        /// with: taking that selection again keeps the span, so a copy of a bar duplicates as a bar.
        var lastStamp: (selection: [Int: Set<MarkerID>], span: Double)?

        public init(random: SeededRandom) { self.random = random }
    }

    /// The participant state in force; set it to run a command as another participant (the selection then
    /// drops markers that are gone).
    public var view: View {
        get { own }
        set {
            own = newValue
            pruneSelection()
        }
    }

    /// The most recent step in the history (what the last command recorded, when the step count grew).
    public var lastStep: History.Step? { history.undoSteps.last }

    /// Applies a change made elsewhere (a shared document's host). It is not a step of this session's history:
    /// the host keeps the history. The selection drops markers that are gone.
    public func apply(_ delta: DocumentDelta) throws {
        try delta.apply(to: &document)
        afterDocumentMoved()
    }

    /// Takes `document` as this session's, with an empty history (a participant joining a shared document).
    public func adopt(_ document: Document) {
        self.document = document
        history = History()
        afterDocumentMoved()
    }

    /// Undoes an earlier `step` of this history out of order, as a new step named `name`: what the step
    /// touched goes back to its state before the step. Throws `History.Conflict` when something it touched is
    /// no longer as the step left it (see `History.Step.difference`); nothing changes then.
    public func revert(_ step: History.Step, as name: String) throws {
        if let part = step.difference(from: document, side: .after) { throw History.Conflict(part: part) }
        try perform(name) { edit in edit.restore(step, side: .before) }
    }

    /// Applies an undone `step` again, as a new step named `name`, when what it touched is still as the step
    /// found it; else throws `History.Conflict`.
    public func reapply(_ step: History.Step, as name: String) throws {
        if let part = step.difference(from: document, side: .before) { throw History.Conflict(part: part) }
        try perform(name) { edit in edit.restore(step, side: .after) }
    }
}

extension History {
    /// A part of the document a step touched.
    public enum Part: Hashable, Sendable {
        case marker(MarkerID)
        /// A clip slot, counted from 1.
        case slot(Int)
        /// A group slot, counted from 1.
        case group(Int)
        /// A track's name, gain, mute or solo (counted from 0).
        case trackSettings(Int)
        /// The list of tracks itself (tracks added, deleted, moved).
        case tracks
        case transport
        case song
        case designer
        case pattern
    }

    /// Why a step cannot be undone or redone out of order: a part it touched has changed since.
    public struct Conflict: Error, Sendable {
        public var part: Part
    }

    /// Which state of a step: before it ran, or after.
    public enum Side: Sendable { case before, after }
}

extension History.Step {
    /// Every part of the document the step touched.
    public var parts: [History.Part] {
        var out: [History.Part] = []
        for change in markers {
            for m in change.before { out.append(.marker(m.id)) }
            for m in change.after { out.append(.marker(m.id)) }
        }
        if !addedTracks.isEmpty || tracks != nil { out.append(.tracks) }
        for track in addedTracks { for m in track.markers { out.append(.marker(m.id)) } }
        out += slots.map { .slot($0.index) }
        out += groups.map { .group($0.index) }
        out += trackSettings.map { .trackSettings($0.index) }
        if transport != nil { out.append(.transport) }
        if song != nil { out.append(.song) }
        if designer != nil { out.append(.designer) }
        if pattern != nil { out.append(.pattern) }
        return out
    }

    /// The first part the step touched that is not, in `document`, as the step had it on `side`; nil when
    /// everything it touched is.
    public func difference(from document: Document, side: History.Side) -> History.Part? {
        let atEnd = side == .after
        if let tracks, document.tracks != (atEnd ? tracks.after : tracks.before) { return .tracks }
        for change in markers {
            guard change.track < document.tracks.count else {
                return (change.after.first ?? change.before.first).map { .marker($0.id) } ?? .tracks
            }
            let list = document.tracks[change.track].markers
            let expected = atEnd ? change.after : change.before
            let gone = atEnd ? change.before : change.after
            for m in expected where list.marker(id: m.id) != m { return .marker(m.id) }
            let kept = Set(expected.map(\.id))
            for m in gone where !kept.contains(m.id) && list.contains(id: m.id) { return .marker(m.id) }
        }
        if !addedTracks.isEmpty {
            let expectedCount = atEnd ? tracksBefore + addedTracks.count : tracksBefore
            if document.tracks.count != expectedCount { return .tracks }
            if atEnd {
                for (k, track) in addedTracks.enumerated() where document.tracks[tracksBefore + k] != track {
                    let now = document.tracks[tracksBefore + k]
                    if TrackSettings(now) != TrackSettings(track) { return .trackSettings(tracksBefore + k) }
                    for m in track.markers where now.markers.marker(id: m.id) != m { return .marker(m.id) }
                    for m in now.markers where !track.markers.contains(id: m.id) { return .marker(m.id) }
                    return .tracks
                }
            }
        }
        for s in slots where s.index - 1 < document.slots.count && document.slots[s.index - 1] != (atEnd ? s.after : s.before) {
            return .slot(s.index)
        }
        for g in groups where document.groups[g.index] != (atEnd ? g.after : g.before) { return .group(g.index) }
        for t in trackSettings {
            guard t.index < document.tracks.count else { return .tracks }
            if TrackSettings(document.tracks[t.index]) != (atEnd ? t.after : t.before) { return .trackSettings(t.index) }
        }
        // Settings of the transport are separate parts: one participant's tempo and another's volume do not clash.
        if let transport {
            let expected = atEnd ? transport.after : transport.before
            for f in Transport.fields where f.differs(transport.before, transport.after) && f.differs(document.transport, expected) {
                return .transport
            }
        }
        if let song, document.song != (atEnd ? song.after : song.before) { return .song }
        if let designer, document.designer != (atEnd ? designer.after : designer.before) { return .designer }
        if let pattern, document.pattern != (atEnd ? pattern.after : pattern.before) { return .pattern }
        return nil
    }
}

extension Edit {
    /// Puts a marker back under its own id (inserting it, or replacing the marker with that id): undoing a
    /// step out of order restores markers as they were, ids included, so later steps still find them.
    mutating func put(_ marker: Marker, track: Int) {
        let old = document.tracks[track].markers.marker(id: marker.id)
        guard old != marker else { return }
        record.touch(id: marker.id, track: track, before: old)
        document.tracks[track].markers.update(marker)
    }

    /// Sets what `step` touched to its state on `side`. Marker ids are never handed out twice, so the next
    /// marker id is left as it is.
    mutating func restore(_ step: History.Step, side: History.Side) {
        let back = side == .before
        // A change to the list of tracks comes first: it must be the edit's first change to tracks.
        if let tracks = step.tracks {
            setTracks(back ? tracks.before : tracks.after)
        } else if !step.addedTracks.isEmpty {
            if back {
                setTracks(Array(document.tracks.prefix(step.tracksBefore)))
            } else {
                for track in step.addedTracks { appendTrack(track) }
            }
        }
        for change in step.markers {
            let target = back ? change.before : change.after
            let other = back ? change.after : change.before
            let kept = Set(target.map(\.id))
            for m in other where !kept.contains(m.id) { remove(id: m.id, track: change.track) }
            for m in target { put(m, track: change.track) }
        }
        for s in step.slots { setSlot(s.index, back ? s.before : s.after) }
        for g in step.groups { setGroup(g.index, back ? g.before : g.after) }
        for t in step.trackSettings {
            let s = back ? t.before : t.after
            setTrack(t.index, name: s.name, gain: s.gain, mute: s.mute, solo: s.solo)
            setTrackTime(t.index, cycle: s.cycle, ratio: s.ratioText.map { ($0, s.ratio) })
        }
        if let t = step.transport {
            var merged = document.transport
            for f in Transport.fields where f.differs(t.before, t.after) { f.copy(&merged, back ? t.before : t.after) }
            setTransport(merged)
        }
        if let s = step.song { setSong(back ? s.before : s.after) }
        if let d = step.designer { setDesigner(back ? d.before : d.after) }
        if let p = step.pattern { setPattern(back ? p.before : p.after) }
    }

    /// Appends a track keeping its markers' ids (a track put back by redo).
    mutating func appendTrack(_ track: Track) {
        document.tracks.append(track)
    }
}

extension Transport {
    /// One setting of the transport, to compare and copy on its own.
    public struct Field: Sendable {
        public let name: String
        public let differs: @Sendable (Transport, Transport) -> Bool
        public let copy: @Sendable (inout Transport, Transport) -> Void

        static func of<V: Equatable & Sendable>(_ name: String, _ path: WritableKeyPath<Transport, V> & Sendable) -> Field {
            Field(name: name, differs: { $0[keyPath: path] != $1[keyPath: path] },
                  copy: { $0[keyPath: path] = $1[keyPath: path] })
        }
    }

    /// Every stored setting (a test checks the list against the type, so a new setting is not forgotten).
    public static let fields: [Field] = [
        .of("tempo", \.tempo), .of("tempoMap", \.tempoMap), .of("volume", \.volume), .of("loopStart", \.loopStart), .of("loopEnd", \.loopEnd),
        .of("loopOn", \.loopOn), .of("length", \.length), .of("beat", \.beat), .of("meter", \.meter), .of("meterUnit", \.meterUnit), .of("meterGroups", \.meterGroups),
        .of("grid", \.grid), .of("click", \.click), .of("clickLevel", \.clickLevel), .of("countIn", \.countIn),
    ]
}
