/// Recording pad hits: arming, the take (one undo step from the transport's start to its stop), and the hits
/// themselves as markers.
extension Session {
    func runRecordArm(_ on: Bool?) -> String? {
        recordArmed = on ?? !recordArmed
        return recordArmed ? "record armed: starting the transport starts the take" : "record off"
    }

    /// Opens a take (the transport started while armed): every hit recorded until `endTake` is one undo step,
    /// heard on the next pass already. A transaction still open is committed first.
    public func beginTake() {
        beginTransaction("record")
        takeOpen = true
    }

    /// Closes the take (the transport stopped): its hits become one undo step, and recording is disarmed.
    /// Returns how many markers the take added.
    @discardableResult
    public func endTake() -> Int {
        let before = history.recorded
        if takeOpen { commitTransaction() }
        takeOpen = false
        recordArmed = false
        guard history.recorded > before, let step = history.undoSteps.last else { return 0 }
        return step.markers.reduce(0) { $0 + $1.after.count - $1.before.count }
            + step.addedTracks.reduce(0) { $0 + $1.markers.count }
    }

    /// The track a hit of `slot` goes onto: the current track if it holds the slot, else the first track that
    /// does; nil when no track holds it (the hit then starts a track of its own, named after the slot).
    public func recordingTrack(slot: Int) -> Int? {
        func holds(_ t: Int) -> Bool { document.tracks[t].markers.contains { $0.content == .clip(slot) } }
        if document.tracks.indices.contains(own.currentTrack), holds(own.currentTrack) { return own.currentTrack }
        return document.tracks.indices.first(where: holds)
    }

    /// The name of the track a take starts for `slot`: the slot's name, else `slot N`.
    public func recordingTrackName(slot: Int) -> String {
        let name = document.slot(slot).name
        return name.isEmpty ? "slot \(slot)" : name
    }

    func runRecordTake(_ hits: [RecordedHit]) throws -> String? {
        guard !hits.isEmpty else { throw CommandError("a take needs at least one hit") }
        var plan: [(slot: Int, marker: Marker)] = []
        var tracks: [Int: Int] = [:]
        for h in hits {
            guard (1...ClipSlot.count).contains(h.slot) else { throw CommandError("slot \(h.slot) is not 1-16") }
            try checkTime(h.time, "hit time")
            try checkAmp(h.velocity)
            if tracks[h.slot] == nil, let t = recordingTrack(slot: h.slot) { tracks[h.slot] = t }
            plan.append((h.slot, Marker(id: 0, time: h.time, amp: h.velocity, content: .clip(h.slot))))
        }
        // Read before the edit: inside it the session's document is parked.
        let names = Dictionary(uniqueKeysWithValues: Set(plan.map(\.slot)).map { ($0, recordingTrackName(slot: $0)) })
        var started: [String] = []
        try perform("record") { edit in
            for (slot, m) in plan {
                let t: Int
                if let held = tracks[slot] {
                    t = held
                } else {
                    // No track holds the slot: a track of its own, named after it, that its later hits join.
                    let name = names[slot]!
                    t = edit.addTrack(Track(name: name))
                    tracks[slot] = t
                    started.append(name)
                }
                edit.insert(m, track: t)
            }
        }
        var parts: [String] = []
        if hits.count > 1 { parts.append("recorded \(hits.count) hits") }
        if !started.isEmpty {
            parts.append("new track" + (started.count == 1 ? " " : "s ") + started.map { "'\($0)'" }.joined(separator: ", "))
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
