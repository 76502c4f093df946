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
        let before = history.undoSteps.count
        if takeOpen { commitTransaction() }
        takeOpen = false
        recordArmed = false
        guard history.undoSteps.count > before, let step = history.undoSteps.last else { return 0 }
        return step.markers.reduce(0) { $0 + $1.after.count - $1.before.count }
    }

    /// The track a hit of `slot` goes onto: the current track if it holds the slot, else the first track that
    /// does, else the current track.
    public func recordingTrack(slot: Int) throws -> Int {
        let current = try requireTrack()
        func holds(_ t: Int) -> Bool { document.tracks[t].markers.contains { $0.content == .clip(slot) } }
        if holds(current) { return current }
        return document.tracks.indices.first(where: holds) ?? current
    }

    func runRecordTake(_ hits: [RecordedHit]) throws -> String? {
        guard !hits.isEmpty else { throw CommandError("a take needs at least one hit") }
        var plan: [(track: Int, marker: Marker)] = []
        var tracks: [Int: Int] = [:]
        for h in hits {
            guard (1...ClipSlot.count).contains(h.slot) else { throw CommandError("slot \(h.slot) is not 1-16") }
            try checkTime(h.time, "hit time")
            try checkAmp(h.velocity)
            if tracks[h.slot] == nil { tracks[h.slot] = try recordingTrack(slot: h.slot) }
            plan.append((tracks[h.slot]!, Marker(id: 0, time: h.time, amp: h.velocity, content: .clip(h.slot))))
        }
        try perform("record") { edit in
            for (t, m) in plan { edit.insert(m, track: t) }
        }
        return hits.count == 1 ? nil : "recorded \(hits.count) hits"
    }
}
