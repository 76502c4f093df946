import TemperaCore
import TemperaPlayback

/// The Pads tab's keys and clicks, and recording. A pad goes to the audio thread through the engine's transport
/// ring (`Player.hitPad`), so it sounds from the next block whatever the loop does. While a take runs, the hit
/// becomes a `record take` command at the time it was heard (the playhead when the key arrived, minus the output
/// latency), inside the take's transaction: heard from the next pass, and one undo step when the take ends.
extension Dispatcher {
    /// Plays pad `slot` at `velocity` and records it when a take runs.
    func pad(_ slot: Int, velocity: Double) throws {
        // The key's arrival: stamped before anything else is done with it.
        let arrival = MonotonicClock.nanos()
        guard let player else { return say("no audio output in this session") }
        syncTake()
        let hit = player.hitPad(slot: slot, velocity: velocity, arrival: arrival)
        try took(hit)
    }

    /// Shows a pad hit (a key's, a click's, or one MIDI in played) and records it when a take runs.
    func took(_ hit: PadHit) throws {
        guard let player else { return }
        let slot = hit.slot
        view.lastPad = ViewState.LastPad(slot: slot, velocity: hit.velocity)
        let name = session.document.slot(slot).name
        var message = (hit.midiNote.map { "midi \($0): " } ?? "") + "pad \(slot)" + (name.isEmpty ? "" : " " + name)
            + " " + PadsTab.percent(hit.velocity)
        if session.document.slot(slot).isEmpty { message += " (an empty slot: nothing sounds)" }
        if session.takeOpen, hit.velocity > 0, player.state.isCountingIn {
            // The music has not started: nothing is heard to place the hit in.
            message += " (count-in: not recorded)"
        } else if session.takeOpen, hit.velocity > 0, let (_, time) = hit.timeline {
            try command(.recordTake([RecordedHit(time: time, slot: slot, velocity: hit.velocity)]))
            view.takeHits += 1
            message += " recorded at " + Dispatcher.format(time) + " s"
        }
        say(message)
    }

    /// The note-ons MIDI in played since the last look (they sounded on their frames already): shown on the Pads
    /// tab and recorded as pads are. True when there were any.
    @discardableResult
    func takeMidiHits() -> Bool {
        guard let hits = player?.takeMidiHits(), !hits.isEmpty else { return false }
        syncTake()
        for hit in hits {
            do { try took(hit) } catch { say("\(error)", error: true) }
        }
        return true
    }

    /// The pad velocity a tenth up or down (0.1...1).
    func padVelocity(_ d: Direction) {
        view.padVelocity = Dispatcher.clamp(((view.padVelocity + d.sign * 0.1) * 10).rounded() / 10, 0.1...1)
        say("pad velocity \(PadsTab.percent(view.padVelocity))")
    }

    /// Arms recording, or disarms it (a running take ends and becomes its undo step).
    func toggleRecord() throws {
        try command(.recordArm(!session.recordArmed))
        syncTake()
    }

    /// Keeps the take in step with the transport: a take runs while recording is armed and the transport plays
    /// (it opens when the transport starts armed, or when recording is armed while it plays) and ends when the
    /// transport stops or recording is disarmed; its hits are then one undo step, and recording is disarmed.
    /// An edit that opens a transaction of its own (a drag) or an undo closes the take early; the next one opens
    /// once that edit is over, so recording goes on.
    func syncTake() {
        let s = session
        let playing = player?.isPlaying == true
        if s.takeOpen {
            guard !playing || !s.recordArmed else { return }
            let added = s.endTake()
            view.takeHits = 0
            let lost = max(0, (player?.droppedMidiHits ?? 0) - view.takeDroppedFrom)
            say((added == 0 ? "take ended: nothing recorded"
                : "take: \(added) hit\(added == 1 ? "" : "s") recorded, one undo step"
                    + (view.key("undo").map { " (\($0) undoes)" } ?? ""))
                + (lost > 0 ? "; \(lost) MIDI note\(lost == 1 ? "" : "s") dropped (they came faster than they could be kept)" : ""),
                error: lost > 0)
        } else if playing, s.recordArmed, !drags.isActive {
            // A take that an edit closed (an undo, a drag) goes on as a new one: the edit's own message stays.
            let reopening = view.takeHits > 0
            s.beginTake()
            view.takeHits = 0
            view.takeDroppedFrom = player?.droppedMidiHits ?? 0
            if !reopening { say("recording: the pads played now become markers where they are heard") }
        }
    }
}
