import Foundation
import TemperaCore

/// Transport commands and snapshot changes: where the music stands, and the playhead clock.
extension RenderState {
    /// Adopts a newly published snapshot between two blocks. The musical position is kept; when the tempo or the
    /// region changed, the clock is re-anchored so onsets from here on land on the new tempo's frames. Switching
    /// between the loop and the song starts the new one from its beginning.
    mutating func adopt(_ new: UnsafeMutablePointer<MixSnapshot>) {
        if new.pointee.previewSerial != previewSerial {
            previewSerial = new.pointee.previewSerial
            startPreview(new)
        }
        guard let old = snapshot else {
            snapshot = new
            base = frame
            stoppedOffset = 0
            resetClick()
            return
        }
        let o = old.pointee, n = new.pointee
        snapshot = new
        if o.song != n.song || n.sectionCount == 0 || o.sectionCount == 0 {
            restart()
            if n.song && pendingJump >= 0 { jump(to: pendingJump, new) }
            pendingJump = -1
            return
        }
        if n.sameTiming(as: o) {
            next = nextIndex(in: new)
            clickNext = firstClick(in: new)
            resetCycles(skipPast: true)
            return
        }
        let oldBase = base
        let os = o.sections[min(section, o.sectionCount - 1)]
        // Seconds at x1 into the current pass, on the old clock.
        let position = Double(frame - base) / rate
        var inPass = o.music(section: min(section, o.sectionCount - 1),
                             atPlay: position - (Double(songPass) * o.total + os.offset)) - Double(pass) * os.span
        if !(inPass > 0) { inPass = 0 }
        if section >= n.sectionCount {
            // The section playing is gone: the song goes on with its next pass.
            nextSongPass()
            inPass = 0
        } else {
            let ns = n.sections[section]
            if os.start != ns.start || os.span != ns.span {
                let docTime = os.start + inPass
                if docTime >= ns.start && docTime < ns.start + ns.span {
                    inPass = docTime - ns.start
                    lastFired = lastFired.isFinite ? lastFired + os.start - ns.start : lastFired
                } else {
                    inPass = 0
                    lastFired = -.infinity
                }
                // A new region is a new pass as far as markers go: everything in it may sound once from here.
                played.clear()
            }
            if pass >= ns.repeats {
                // Fewer repeats than already played: on to the next section.
                pass = 0
                section += 1
                if section >= n.sectionCount { nextSongPass() }
                inPass = 0
                lastFired = -.infinity
                played.clear()
            }
        }
        let ns = n.sections[section]
        base = frame - n.frame(songPass: songPass, section: section, pass: pass, time: inPass, rate: rate)
        stoppedOffset = frame - base
        songShiftFrames += oldBase - base
        // Where playing started was counted in the old sections: in the new count it is no later than here.
        playStartSong = min(playStartSong, Double(stoppedOffset) / rate)
        next = nextIndex(in: new)
        clickNext = firstClick(in: new)
        resetCycles(skipPast: true)
        // Open gates close where the music now puts their end (never before the present).
        let shift = os.start - ns.start
        for v in 0..<Self.voiceCapacity where voices[v].active && voices[v].stage != .release
            && voices[v].releaseAt != Int64.max {
            if n.song && voices[v].gateSection >= n.sectionCount {
                voices[v].releaseAt = max(voices[v].releaseAt + base - oldBase, frame)
                continue
            }
            voices[v].gateTime += voices[v].gateSection == section ? shift : 0
            let at = base + n.frame(songPass: voices[v].gateSongPass, section: voices[v].gateSection,
                                    pass: voices[v].gatePass, time: voices[v].gateTime, rate: rate)
            voices[v].releaseAt = max(at, frame)
        }
    }

    /// On to the first section of the next pass of the song.
    mutating func nextSongPass() {
        section = 0
        pass = 0
        songPass += 1
        lastFired = -.infinity
        played.clear()
        resetClick()
    }

    /// From the beginning: the loop's start, or the song's first section.
    mutating func restart() {
        pass = 0
        section = 0
        songPass = 0
        next = 0
        lastFired = -.infinity
        played.clear()
        base = frame
        songShiftFrames = 0
        stoppedOffset = 0
        resetClick()
        markPlayStart()
    }

    /// Notes where the music starts playing, for the playhead clock.
    mutating func markPlayStart(at: Int64? = nil) {
        playStart = music(at: at ?? frame)
        playStartSection = section
        playStartSongPass = songPass
        playStartSong = Double((at ?? frame) - base) / rate
        clock.started(at: at ?? frame)
    }

    /// Carries out a transport command (the audio thread, or the editor thread when no output renders).
    mutating func apply(_ c: TransportCommand) {
        switch c.kind {
        case .play:
            passLimit = Int(c.value)
            shared.pointee.finished.store(false, ordering: .releasing)
            guard !playing && !countingIn else { return }
            if waitForLinkBar() { return }
            if let snap = snapshot, snap.pointee.click.on, snap.pointee.click.countIn > 0, snap.pointee.sectionCount > 0 {
                // Count-in bars of click first, at the tempo playback starts with; the music stays where it
                // stands until they end.
                let ck = snap.pointee.click
                // The tempo heard where the music stands (a ramp's or a tempo map's there).
                let j = min(section, snap.pointee.sectionCount - 1)
                let tempo = snap.pointee.tempo(section: j, atMusic: j == section ? music : 0)
                countingIn = true
                countInStart = frame
                let own = snap.pointee.sections[j]
                countInMeter = own.meter > 0 ? own.meter : ck.meter
                countInGroups = own.meter > 0 ? own.groups : ck.groups
                countInBeats = ck.countIn * countInMeter
                countInBeatFrames = own.clickPulse(ck) / tempo * rate
                countInNext = 0
                countInEnd = frame + Int64((Double(countInBeats) * countInBeatFrames).rounded())
            } else {
                markPlayStart()
                playing = true
            }
        case .pause, .silence:
            startAt = 0
            if playing { stoppedOffset = frame - base }
            playing = false
            countingIn = false
            // A pause stops the music; pads ring on (they are not the music's). Silence stops everything.
            releaseAll(pads: c.kind == .silence)
            // Notes sent to MIDI end with it.
            midi.endAll = true
        case .rewind:
            restart()
        case .playAt:
            passLimit = Int(c.value)
            shared.pointee.finished.store(false, ordering: .releasing)
            if playing { stoppedOffset = frame - base }
            playing = false
            releaseAll(pads: false)
            restart()
            // A count-in of no beats ending on the frame asked: the music starts on that very frame.
            countingIn = true
            countInStart = frame
            countInMeter = 1
            countInBeats = 0
            countInBeatFrames = 0
            countInNext = 0
            aim(c.frame)
            startAt = c.nanos
        case .nudge:
            if playing {
                base += c.frame
            } else if countingIn && startAt == 0 {
                countInEnd = max(frame, countInEnd + c.frame)
            }
        case .jump:
            // A jump sent with the edit that turns the song on may come before the song's snapshot: it waits
            // for it (the next song snapshot adopted), and a later loop snapshot forgets it.
            guard let snap = snapshot, snap.pointee.song, snap.pointee.sectionCount > 0 else {
                pendingJump = Int(c.value)
                return
            }
            jump(to: Int(c.value), snap)
        case .pad:
            queuePad(slot: Int(c.value), velocity: c.level)
        case .locate:
            guard let snap = snapshot, !snap.pointee.song, snap.pointee.sectionCount > 0 else { return }
            locate(to: c.time - snap.pointee.sections[0].start, snap)
        }
    }

    /// The loop's pass 0 from `time` seconds into its region, from this block on (playing or not): the events
    /// before it do not sound, the first at or after it does.
    mutating func locate(to time: Double, _ snap: UnsafeMutablePointer<MixSnapshot>) {
        let sn = snap.pointee
        section = 0
        pass = 0
        lastFired = -.infinity
        played.clear()
        base = frame - sn.frame(songPass: songPass, section: 0, pass: 0, time: max(0, time), rate: rate)
        stoppedOffset = frame - base
        next = nextIndex(in: snap)
        clickNext = firstClick(in: snap)
        resetCycles(skipPast: true)
        markPlayStart()
    }

    /// Section `n` (from 0) from its first pass, from this block on; the song pass stays.
    mutating func jump(to n: Int, _ snap: UnsafeMutablePointer<MixSnapshot>) {
        pendingJump = -1
        let sn = snap.pointee
        section = min(max(n, 0), sn.sectionCount - 1)
        pass = 0
        next = 0
        lastFired = -.infinity
        played.clear()
        let oldBase = base
        base = frame - sn.frame(songPass: songPass, section: section, pass: 0, time: 0, rate: rate)
        songShiftFrames += oldBase - base
        stoppedOffset = frame - base
        resetClick()
        markPlayStart()
    }

    /// The music rendered so far in the current section: seconds on its timeline (tempo x1) from the start of
    /// its pass 0, unwrapped across its passes. (Without a song the one section is the loop region.)
    var music: Double { music(at: frame) }

    /// The music at output frame `at` (see `music`).
    func music(at: Int64) -> Double {
        guard let snap = snapshot, section < snap.pointee.sectionCount else { return 0 }
        let sn = snap.pointee
        let sec = sn.sections[section]
        return sn.music(section: section, atPlay: Double(at - base) / rate - (Double(songPass) * sn.total + sec.offset))
    }

    /// Stamps the playhead clock once a block has reached the output, with the latency the output reports then
    /// (the output's thread, after its write).
    static func stampClock(_ s: UnsafeMutablePointer<RenderState>, latencyMicros: Int) {
        let st = s.pointee
        let now = MonotonicClock.nanos()
        // The next block's first frame is heard after what is queued now.
        s.pointee.link.heardNanos = now &+ UInt64(max(0, latencyMicros)) &* 1000
        var tempo = 1.0, start = 0.0, span = 0.0
        if let sn = st.snapshot?.pointee, st.section < sn.sectionCount {
            let sec = sn.sections[st.section]
            tempo = sn.tempo(section: st.section, atMusic: st.music)
            start = sec.start
            span = sec.span
        }
        // Music heard before the current section began is not this section's: its start is the earliest.
        let sameSection = st.section == st.playStartSection && st.songPass == st.playStartSongPass
        st.shared.pointee.stampClock(PlayheadClock(
            nanos: now, music: st.music, latency: Double(latencyMicros) / 1_000_000,
            tempo: tempo, start: start, span: span, playStart: sameSection ? st.playStart : 0, playing: st.playing,
            frame: st.frame, song: Double(st.frame - st.base) / st.rate, songPlayStart: st.playStartSong,
            snapshot: st.snapshot?.pointee.seq ?? 0, songShift: Double(st.songShiftFrames) / st.rate))
    }
}
