/// The primitive edits one undo step is made of. A `Session` hands an `Edit` to the body of `perform(_:_:)`;
/// every change goes through these methods, which remember the state of what they touch the first time they
/// touch it. That record (a few markers, a slot, a group...) is what undo keeps, never a copy of the document.
///
/// Inside the body read the document through `edit.document`: the session's own `document` is parked while
/// the body runs.
///
/// - Warning: main (editor) thread only, inside `Session.perform`.
public struct Edit {
    /// The document as edited so far.
    public internal(set) var document: Document
    var record: EditRecord
    /// The first limit (see `Limits`) a change broke, as a message to follow the command's name; the change was
    /// not made, and `Session.perform` reverts the whole edit and throws it.
    var violation: String?
    /// Markers inserted so far (the document's size is checked against `Limits.maxMarkers` after the body).
    var inserted = 0

    /// Moves the document out of `source` (leaving a small placeholder), so the edit mutates it in place
    /// instead of copying the chunks it touches.
    init(taking source: inout Document) {
        var taken = Document.parked
        swap(&taken, &source)
        record = EditRecord(document: taken)
        document = taken
    }

    /// Adds a marker under a fresh id (the id the marker carries is ignored) and returns that id.
    @discardableResult
    public mutating func insert(_ marker: Marker, track: Int) -> MarkerID {
        guard admit(marker) else { return MarkerID.max }
        guard document.nextMarkerID < MarkerID.max else {
            violation = "ran out of marker ids (save the document and open it again)"
            return MarkerID.max
        }
        inserted += 1
        var m = marker
        m.id = document.makeMarkerID()
        record.touch(id: m.id, track: track, before: nil)
        document.tracks[track].markers.insert(m)
        return m.id
    }

    /// Removes a marker; nothing happens when the track does not hold it.
    public mutating func remove(id: MarkerID, track: Int) {
        guard let old = document.tracks[track].markers.marker(id: id) else { return }
        record.touch(id: id, track: track, before: old)
        document.tracks[track].markers.remove(id: id)
    }

    /// Gives a marker a new time, amplitude or content (same id); nothing happens when the track does not
    /// hold it.
    public mutating func replace(_ marker: Marker, track: Int) {
        guard admit(marker) else { return }
        guard let old = document.tracks[track].markers.marker(id: marker.id) else { return }
        guard old != marker else { return }
        record.touch(id: marker.id, track: track, before: old)
        document.tracks[track].markers.update(marker)
    }

    /// Replaces many markers of one track at once (same ids, new times, amplitudes or contents), in any
    /// order; markers the track does not hold are skipped. They are applied in the order that replaces a run
    /// moved together in place (see `MarkerList.updateOrder`); a large batch rebuilds the track in one sort.
    public mutating func replace(contentsOf markers: [Marker], track: Int) {
        var changed: [(old: Marker, new: Marker)] = []
        changed.reserveCapacity(markers.count)
        let current = document.tracks[track].markers.markers(ids: markers.map(\.id))
        for m in markers {
            guard admit(m) else { return }
            guard let old = current[m.id], old != m else { continue }
            record.touch(id: m.id, track: track, before: old)
            changed.append((old, m))
        }
        document.tracks[track].markers.apply(removing: [], upserting: MarkerList.updateOrder(changed))
    }

    /// True when a marker keeps the limits (time 0...`Limits.maxTime`, amplitude 0...1) and no earlier change
    /// broke one; otherwise records the violation.
    private mutating func admit(_ m: Marker) -> Bool {
        guard violation == nil else { return false }
        if m.time >= 0, m.time <= Limits.maxTime, m.amp >= 0, m.amp <= 1 { return true }
        if !(m.amp >= 0 && m.amp <= 1) {
            violation = "would give a marker the amplitude \(Limits.seconds(m.amp)) (amplitudes are 0 to 1)"
        } else if m.time < 0 {
            violation = "would put a marker at \(Limits.seconds(m.time)) s, before 0"
        } else {
            violation = "would put a marker at \(Limits.seconds(m.time)) s, past the time limit "
                + "(\(Limits.seconds(Limits.maxTime)) s)"
        }
        return false
    }

    /// Sets the content of a marker (nil clears it).
    public mutating func setContent(_ content: Content?, id: MarkerID, track: Int) {
        guard var m = document.tracks[track].markers.marker(id: id) else { return }
        m.content = content
        replace(m, track: track)
    }

    /// The rhythm designer's state.
    public mutating func setDesigner(_ t: Temperament) {
        guard violation == nil else { return }
        if !(t.span > 0 && t.span <= Limits.maxTime) {
            violation = "would make the designer's span \(Limits.seconds(t.span)) s (it must be above 0 and at most "
                + "\(Limits.seconds(Limits.maxTime)) s)"
            return
        }
        if !(t.slider >= Limits.sliderRange.lowerBound && t.slider <= Limits.sliderRange.upperBound) {
            violation = "would set the slider to \(Limits.seconds(t.slider)) (it must be from "
                + "\(Limits.seconds(Limits.sliderRange.lowerBound)) to \(Limits.seconds(Limits.sliderRange.upperBound)))"
            return
        }
        if record.designer == nil { record.designer = document.designer }
        document.designer = t
    }

    /// Group slot `n`, counted from 1.
    public mutating func setGroup(_ n: Int, _ g: Group) {
        guard violation == nil else { return }
        if let problem = Limits.groupProblem(g) {
            violation = problem
            return
        }
        if record.groups[n] == nil { record.groups[n] = document.groups[n] }
        document.groups[n] = g
    }

    /// Clip slot `n`, counted from 1.
    public mutating func setSlot(_ n: Int, _ s: ClipSlot) {
        if record.slots[n] == nil { record.slots[n] = document.slots[n - 1] }
        document.slots[n - 1] = s
    }

    /// Tempo, volume, loop region and length.
    public mutating func setTransport(_ t: Transport) {
        guard violation == nil else { return }
        let ends = [t.length, t.loopStart, t.loopEnd]
        guard ends.allSatisfy({ $0 >= 0 && $0 <= Limits.maxTime }) else {
            violation = "would put the length or the loop past the time limit (\(Limits.seconds(Limits.maxTime)) s)"
            return
        }
        if record.transport == nil { record.transport = document.transport }
        document.transport = t
    }

    /// The song: its sections and its on and loop settings.
    public mutating func setSong(_ song: Song) {
        if record.song == nil { record.song = document.song }
        document.song = song
    }

    /// The pattern code shown in the pattern area.
    public mutating func setPattern(_ code: String) {
        if record.pattern == nil { record.pattern = document.pattern }
        document.pattern = code
    }

    /// Changes a track's name, gain, mute or solo (nil leaves a setting as it is).
    public mutating func setTrack(_ track: Int, name: String? = nil, gain: Double? = nil, mute: Bool? = nil,
                                  solo: Bool? = nil) {
        if track < record.tracksBefore, record.trackSettings[track] == nil {
            record.trackSettings[track] = TrackSettings(document.tracks[track])
        }
        if let name { document.tracks[track].name = name }
        if let gain { document.tracks[track].gain = gain }
        if let mute { document.tracks[track].mute = mute }
        if let solo { document.tracks[track].solo = solo }
    }

    /// Changes a track's own cycle and ratio: `cycle` nil plays the region again; `ratio` nil is 1.
    public mutating func setTrackTime(_ track: Int, cycle: Track.Cycle?, ratio: (text: String, value: Double)?) {
        if track < record.tracksBefore, record.trackSettings[track] == nil {
            record.trackSettings[track] = TrackSettings(document.tracks[track])
        }
        document.tracks[track].cycle = cycle
        document.tracks[track].ratioText = ratio?.text
        document.tracks[track].ratio = ratio?.value ?? 1
    }

    /// Appends a track and returns its 0-based index.
    @discardableResult
    public mutating func addTrack(_ track: Track) -> Int {
        // Ids inside the new track are renumbered so they stay unique in the document.
        var t = track
        t.markers = MarkerList(track.markers.map { m in
            var m = m
            m.id = document.makeMarkerID()
            return m
        })
        document.tracks.append(t)
        return document.tracks.count - 1
    }

    /// Replaces the whole list of tracks (deleting, moving or duplicating a track). The list before is kept
    /// whole (tracks share their marker storage, so this costs little). It must be the step's only change to
    /// tracks: marker and track-setting records name tracks by index, which this change reorders.
    public mutating func setTracks(_ tracks: [Track]) {
        precondition(record.markers.isEmpty && record.trackSettings.isEmpty && document.tracks.count == record.tracksBefore,
                     "setTracks must be the only change to tracks in its step")
        if record.tracks == nil { record.tracks = document.tracks }
        document.tracks = tracks
    }

    /// After `setTracks`: the song's instances and sections' choices follow their tracks (`Song.remappingTracks`).
    /// While a group is open as the timeline, they name the timeline's tracks kept aside, which do not change.
    public mutating func followTracks(_ map: (Int) -> Int?, copies: [Int: Int] = [:]) {
        guard document.song.editing == nil else { return }
        let song = document.song.remappingTracks(map, copies: copies)
        if song != document.song { setSong(song) }
    }

    /// `track` with every marker under a fresh id, so a copy of it can join the document.
    public mutating func renumbered(_ track: Track) -> Track {
        var t = track
        t.markers = MarkerList(track.markers.map { m in
            var m = m
            m.id = document.makeMarkerID()
            return m
        })
        return t
    }

    /// Undoes everything recorded so far, restoring the document exactly as it was.
    mutating func revert() {
        record.revert(&document)
        record = EditRecord(document: document)
        violation = nil
        inserted = 0
    }
}

/// The state, before an edit, of everything the edit touched: the first-touch value of each marker (nil when
/// the marker did not exist), slot, group, transport, designer and pattern, and the track count and next
/// marker id. Records merge (earliest state wins), which is how a drag of many commands becomes one step.
struct EditRecord {
    /// Per track (existing before the edit), per marker id: the marker before the edit, or nil if absent.
    /// Markers the edit made (ids from `nextMarkerID` on) are in `inserted` instead.
    var markers: [Int: [MarkerID: Marker?]] = [:]
    /// Per track, the ids of the markers the edit made: absent before it, whatever became of them. Four bytes
    /// a marker, where `markers` would take a dictionary entry, so a command that adds a million stays lean.
    var inserted: [Int: [MarkerID]] = [:]
    var slots: [Int: ClipSlot] = [:]
    var groups: [Int: Group] = [:]
    var trackSettings: [Int: TrackSettings] = [:]
    var transport: Transport?
    var song: Song?
    var designer: Temperament?
    var pattern: String?
    /// Every track before a `setTracks` (which then is the step's only change to tracks).
    var tracks: [Track]?
    let tracksBefore: Int
    let nextMarkerID: MarkerID

    init(document: Document) {
        tracksBefore = document.tracks.count
        nextMarkerID = document.nextMarkerID
    }

    /// Remembers a marker's state unless this record already holds an earlier one. Tracks added by the edit
    /// are kept whole at the end, so their markers need no record.
    mutating func touch(id: MarkerID, track: Int, before: Marker?) {
        guard track < tracksBefore else { return }
        if id >= nextMarkerID {
            // Made by this edit (ids are handed out once): first touched as it is inserted.
            if before == nil { inserted[track, default: []].append(id) }
            return
        }
        if markers[track, default: [:]].index(forKey: id) == nil {
            markers[track, default: [:]][id] = .some(before)
        }
    }

    /// Folds a later record of the same document into this one.
    mutating func absorb(_ later: EditRecord) {
        for (track, ids) in later.inserted where track < tracksBefore { inserted[track, default: []] += ids }
        for (track, touched) in later.markers where track < tracksBefore {
            // A marker this record saw made (an id from its `nextMarkerID` on) was absent before it.
            for (id, before) in touched where id < nextMarkerID && markers[track, default: [:]].index(forKey: id) == nil {
                markers[track, default: [:]][id] = .some(before)
            }
        }
        for (n, s) in later.slots where slots[n] == nil { slots[n] = s }
        for (t, s) in later.trackSettings where t < tracksBefore && trackSettings[t] == nil { trackSettings[t] = s }
        for (n, g) in later.groups where groups[n] == nil { groups[n] = g }
        if transport == nil { transport = later.transport }
        if song == nil { song = later.song }
        if designer == nil { designer = later.designer }
        if pattern == nil { pattern = later.pattern }
        if tracks == nil { tracks = later.tracks }
    }

    /// True when nothing was recorded and the document's shape did not change.
    func isEmpty(_ document: Document) -> Bool {
        markers.isEmpty && inserted.isEmpty && slots.isEmpty && groups.isEmpty && trackSettings.isEmpty && transport == nil && song == nil && designer == nil && pattern == nil
            && tracks == nil && document.tracks.count == tracksBefore && document.nextMarkerID == nextMarkerID
    }

    /// Puts the document back as it was when the record started.
    func revert(_ document: inout Document) {
        for track in Set(markers.keys).union(inserted.keys) {
            let touched = markers[track] ?? [:]
            var current = Array(document.tracks[track].markers.markers(ids: touched.keys).values)
            current += made(on: track, in: document)
            History.move(&document.tracks[track].markers, from: current, to: touched.values.compactMap { $0 })
        }
        if let tracks { document.tracks = tracks }
        if document.tracks.count > tracksBefore { document.tracks.removeLast(document.tracks.count - tracksBefore) }
        for (n, s) in slots { document.slots[n - 1] = s }
        for (n, g) in groups { document.groups[n] = g }
        for (t, s) in trackSettings { s.apply(to: &document.tracks[t]) }
        if let transport { document.transport = transport }
        if let song { document.song = song }
        if let designer { document.designer = designer }
        if let pattern { document.pattern = pattern }
        document.nextMarkerID = nextMarkerID
    }

    /// The markers of a track that the edit made and that are still there, each once: found by id when few,
    /// by one pass over the track (every marker with an id from `nextMarkerID` on) when many.
    func made(on track: Int, in document: Document) -> [Marker] {
        guard let ids = inserted[track], !ids.isEmpty, track < document.tracks.count else { return [] }
        let list = document.tracks[track].markers
        if ids.count > Swift.max(64, list.count / 8) {
            // Sized once: an undo step keeps this array, so it should not keep a doubled capacity too.
            var found: [Marker] = []
            found.reserveCapacity(ids.count)
            for m in list where m.id >= nextMarkerID { found.append(m) }
            return found
        }
        var seen = Set<MarkerID>(minimumCapacity: ids.count)
        return ids.compactMap { id in seen.insert(id).inserted ? list.marker(id: id) : nil }
    }

    /// The before/after step this record describes, given the document after the edit; nil when the edit
    /// changed nothing.
    func step(named name: String, after document: Document) -> History.Step? {
        var tracks: [History.TrackChange] = []
        for track in Set(markers.keys).union(inserted.keys).sorted() {
            let touched = markers[track] ?? [:]
            // Sized once: the step keeps these lists for as long as it is in the history.
            var before: [Marker] = [], after: [Marker] = []
            before.reserveCapacity(touched.count)
            after.reserveCapacity(touched.count)
            let now = document.tracks[track].markers.markers(ids: touched.keys)
            for (id, old) in touched {
                let new = now[id]
                if old == new { continue }
                if let old { before.append(old) }
                if let new { after.append(new) }
            }
            let fresh = made(on: track, in: document)
            if after.isEmpty {
                after = fresh
            } else if !fresh.isEmpty {
                after.reserveCapacity(after.count + fresh.count)
                after += fresh
            }
            if !before.isEmpty || !after.isEmpty { tracks.append(.init(track: track, before: before, after: after)) }
        }
        var step = History.Step(name: name, tracksBefore: tracksBefore, nextMarkerID: (nextMarkerID, document.nextMarkerID))
        if let before = self.tracks {
            if before != document.tracks { step.tracks = (before, document.tracks) }
        } else {
            step.markers = tracks
            step.addedTracks = Array(document.tracks[tracksBefore...])
        }
        step.slots = slots.sorted { $0.key < $1.key }.compactMap { n, s in
            s == document.slots[n - 1] ? nil : .init(index: n, before: s, after: document.slots[n - 1])
        }
        step.groups = groups.sorted { $0.key < $1.key }.compactMap { n, g in
            g == document.groups[n] ? nil : .init(index: n, before: g, after: document.groups[n])
        }
        step.trackSettings = trackSettings.sorted { $0.key < $1.key }.compactMap { t, s in
            let now = TrackSettings(document.tracks[t])
            return s == now ? nil : .init(index: t, before: s, after: now)
        }
        if let transport, transport != document.transport { step.transport = (transport, document.transport) }
        if let song, song != document.song { step.song = (song, document.song) }
        if let designer, designer != document.designer { step.designer = (designer, document.designer) }
        if let pattern, pattern != document.pattern { step.pattern = (pattern, document.pattern) }
        guard step.changesDocument else { return nil }
        step.bytes = step.measuredBytes
        return step
    }
}

extension Document {
    /// What a session holds while an `Edit` has its document.
    static let parked = Document(tracks: [], slots: [])
}

