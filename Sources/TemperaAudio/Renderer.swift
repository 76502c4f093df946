import Foundation
import TemperaCore

/// The render path: the one mixing code behind live playback and the offline render.
///
/// All state is plain structs in raw memory allocated once (`RenderState.make`); `render` never allocates,
/// locks or waits, holds no class reference and calls no closure, so it is safe on a real-time thread.
/// Only the thread that owns the output (or the offline writer) calls `render`.
struct RenderState {
    static let voiceCapacity = 80

    var shared: UnsafeMutablePointer<EngineShared>
    var snapshot: UnsafeMutablePointer<MixSnapshot>?
    let rate: Double
    var playing = false
    /// The output frame the next rendered sample has.
    var frame: Int64 = 0
    /// The output frame of pass 0, time 0: event frames are `base + schedule.frame(pass:time:)`. While paused it
    /// moves with `frame`, so the musical position stands still.
    var base: Int64 = 0
    var pass = 0
    /// The next event of the current pass.
    var next = 0
    /// The time (in pass) of the last event fired this pass, so a re-anchoring never fires an event twice.
    var lastFired = -Double.infinity
    /// The markers fired this pass, so an edit that moves one from behind the playhead to ahead of it does not
    /// fire it again before the next pass.
    var played: PlayedMarkers
    /// While stopped: frames from `base` to the position where the music stopped (`frame - base` then).
    var stoppedOffset: Int64 = 0
    /// Passes to play before stopping; 0: endless when the loop is on, one pass when it is off.
    var passLimit = 0
    /// The music (seconds at tempo x1 from pass 0's start) where playing last started, for the playhead clock.
    var playStart = 0.0
    var voices: UnsafeMutablePointer<Voice>
    /// Voices sounding at once before the oldest is stolen.
    var polyphony = 64
    var master: Float = 0
    /// A voice sounded at the start of this block or started in it.
    var anyVoiceSounded = false
    var order: UInt64 = 0
    let trackSmoothing: Float
    let masterSmoothing: Float
    let stealFrames: Int

    /// Allocates a render state (editor thread). Free it with `destroy` once no thread renders with it.
    static func make(rate: Double, shared: UnsafeMutablePointer<EngineShared>) -> UnsafeMutablePointer<RenderState> {
        let voices = UnsafeMutablePointer<Voice>.allocate(capacity: voiceCapacity)
        voices.initialize(repeating: Voice(), count: voiceCapacity)
        let p = UnsafeMutablePointer<RenderState>.allocate(capacity: 1)
        p.initialize(to: RenderState(shared: shared, rate: rate, played: .make(), voices: voices,
                                     trackSmoothing: Float(1 - exp(-1 / (0.003 * rate))),
                                     masterSmoothing: Float(1 - exp(-1 / (0.005 * rate))),
                                     stealFrames: max(1, Int(Fades.steal * rate))))
        return p
    }

    static func destroy(_ p: UnsafeMutablePointer<RenderState>) {
        p.pointee.voices.deallocate()
        p.pointee.played.deallocate()
        p.deinitialize(count: 1)
        p.deallocate()
    }

    // MARK: - The render call

    /// Renders `count` frames of interleaved stereo into `out` and advances the clock.
    static func render(_ s: UnsafeMutablePointer<RenderState>, into out: UnsafeMutablePointer<Float>, frames count: Int) {
        out.update(repeating: 0, count: count * 2)
        adoptLatest(s)
        while let c = s.pointee.shared.pointee.receive() { s.pointee.apply(c) }

        // With nothing sounding, a volume change cannot click: the master takes it at once.
        s.pointee.anyVoiceSounded = false
        for v in 0..<voiceCapacity where s.pointee.voices[v].active { s.pointee.anyVoiceSounded = true; break }
        var f = 0
        while f < count {
            let end = s.pointee.fireDueEvents(upTo: count, offset: f)
            s.pointee.mixVoices(into: out + 2 * f, count: end - f, firstFrame: s.pointee.frame + Int64(f))
            f = end
        }
        s.pointee.applyMaster(out, count: count)
        s.pointee.frame += Int64(count)
        // Stopped: the musical position stands still while the clock runs on.
        if !s.pointee.playing { s.pointee.base = s.pointee.frame - s.pointee.stoppedOffset }
        s.pointee.publish()
    }

    /// Takes the newest published snapshot if it is not the current one. Called by `render`, or by the editor
    /// thread when no output renders.
    static func adoptLatest(_ s: UnsafeMutablePointer<RenderState>) {
        let latest = s.pointee.shared.pointee.latest.load(ordering: .acquiring)
        if latest != 0, latest != Int(bitPattern: s.pointee.snapshot) {
            s.pointee.adopt(UnsafeMutablePointer<MixSnapshot>(bitPattern: latest)!)
        }
    }

    // MARK: - Scheduling

    /// Fires every event due at output frame `frame + offset` and returns where the next segment ends: the
    /// next event, the end of the pass, or `count`.
    private mutating func fireDueEvents(upTo count: Int, offset: Int) -> Int {
        guard playing, let snap = snapshot, snap.pointee.span > 0 else { return count }
        let now = frame + Int64(offset)
        while true {
            let sn = snap.pointee
            if next < sn.eventCount {
                let ev = sn.events[next]
                let at = base + sn.frame(pass: pass, time: ev.time, rate: rate)
                if at <= now {
                    // A marker fires once per pass: one that already sounded and was moved ahead by an edit
                    // waits for the next pass. (A pass with more markers than the table holds records only the
                    // first ones; the others play as before, unguarded.)
                    if played.record(PlayedMarkers.key(track: ev.track, marker: ev.marker)) { fire(ev, snap: snap) }
                    lastFired = ev.time
                    next += 1
                    continue
                }
                return offset + Int(min(at - now, Int64(count - offset)))
            }
            let wrap = base + sn.frame(pass: pass + 1, time: 0, rate: rate)
            if wrap <= now {
                pass += 1
                next = 0
                lastFired = -.infinity
                played.clear()
                let limit = passLimit > 0 ? passLimit : (sn.looping ? Int.max : 1)
                if pass >= limit {
                    // The end: stop and return to the start; sounding voices ring out.
                    playing = false
                    pass = 0
                    base = now
                    stoppedOffset = 0
                    shared.pointee.finished.store(true, ordering: .releasing)
                    return count
                }
                continue
            }
            return offset + Int(min(wrap - now, Int64(count - offset)))
        }
    }

    private mutating func fire(_ ev: MixEvent, snap: UnsafeMutablePointer<MixSnapshot>) {
        if ev.isCut {
            for v in 0..<Self.voiceCapacity where voices[v].active && voices[v].track == ev.track {
                voices[v].release(over: voices[v].releaseFrames)
            }
            return
        }
        let sn = snap.pointee
        let clip = ev.clip != 0 ? Int(ev.clip)
            : Schedule.randomClip(seed: sn.seed, pool: sn.randomPool, key: ev.randomKey, pass: pass)
        guard (1...16).contains(clip) else { return }
        let slot = sn.slots[clip - 1]
        guard let data = slot.data, slot.frames > 0 else { return }
        let targetGain = Int(ev.track) < sn.trackCount ? sn.trackGains[Int(ev.track)] : 0
        guard targetGain > 0, ev.amp > 0, slot.gain > 0 else { return }

        let v = allocateVoice()
        anyVoiceSounded = true
        order &+= 1
        voices[v] = Voice(
            active: true, stolen: false, track: ev.track, slot: Int8(clip - 1), data: data, frames: slot.frames, position: 0,
            gain: ev.amp * slot.gain, trackGain: targetGain, level: 0, stage: .attack,
            attackStep: 1 / Float(slot.attackFrames), decayStep: slot.decayFrames > 0 ? 1 / Float(slot.decayFrames) : 0,
            releaseFrames: slot.releaseFrames, releaseStep: 0,
            releaseAt: slot.gate ? base + sn.frame(pass: pass, time: ev.gateEnd, rate: rate) : Int64.max,
            gatePass: pass, gateTime: ev.gateEnd, seq: sn.seq, order: order)
    }

    /// A free voice; at the polyphony limit the oldest sounding voice is stolen (it fades out in a few ms).
    private mutating func allocateVoice() -> Int {
        var live = 0, oldest = -1, free = -1
        for v in 0..<Self.voiceCapacity {
            if voices[v].active {
                if !voices[v].stolen {
                    live += 1
                    if oldest < 0 || voices[v].order < voices[oldest].order { oldest = v }
                }
            } else if free < 0 {
                free = v
            }
        }
        if live >= polyphony, oldest >= 0 {
            voices[oldest].stolen = true
            voices[oldest].release(over: stealFrames)
        }
        if free >= 0 { return free }
        // Every slot busy: reuse the quietest of the fading (stolen) voices, never one still sounding.
        var quietest = -1
        for v in 0..<Self.voiceCapacity
            where voices[v].stolen && (quietest < 0 || voices[v].level < voices[quietest].level) {
            quietest = v
        }
        return quietest >= 0 ? quietest : max(oldest, 0)
    }

    /// Adopts a newly published snapshot between two blocks. The musical position is kept; when the tempo or the
    /// region changed, the clock is re-anchored so onsets from here on land on the new tempo's frames.
    private mutating func adopt(_ new: UnsafeMutablePointer<MixSnapshot>) {
        guard let old = snapshot else {
            snapshot = new
            base = frame
            stoppedOffset = 0
            return
        }
        let o = old.pointee, n = new.pointee
        snapshot = new
        guard o.tempo != n.tempo || o.start != n.start || o.end != n.end else {
            next = nextIndex(in: new)
            return
        }
        let position = Double(frame - base) / rate * o.tempo
        var inPass = o.span > 0 ? position - Double(pass) * o.span : 0
        if o.start != n.start || o.end != n.end {
            let docTime = o.start + inPass
            if docTime >= n.start && docTime < n.end {
                inPass = docTime - n.start
                lastFired = lastFired.isFinite ? lastFired + o.start - n.start : lastFired
            } else {
                inPass = 0
                lastFired = -.infinity
            }
            // A new region is a new pass as far as markers go: everything in it may sound once from here.
            played.clear()
        }
        base = frame - Int64(((Double(pass) * n.span + inPass) / n.tempo * rate).rounded())
        stoppedOffset = frame - base
        next = nextIndex(in: new)
        // Open gates close where the music now puts their end (never before the present).
        let shift = o.start - n.start
        for v in 0..<Self.voiceCapacity where voices[v].active && voices[v].stage != .release
            && voices[v].releaseAt != Int64.max {
            let at = base + n.frame(pass: voices[v].gatePass, time: voices[v].gateTime + shift, rate: rate)
            voices[v].gateTime += shift
            voices[v].releaseAt = max(at, frame)
        }
    }

    /// The first event of the current pass still to come: at or after the current frame and after the last fired.
    private func nextIndex(in snap: UnsafeMutablePointer<MixSnapshot>) -> Int {
        let sn = snap.pointee
        var lo = 0, hi = sn.eventCount
        while lo < hi {
            let mid = (lo + hi) / 2
            let e = sn.events[mid]
            if base + sn.frame(pass: pass, time: e.time, rate: rate) < frame || e.time <= lastFired {
                lo = mid + 1
            } else {
                hi = mid
            }
        }
        return lo
    }

    /// Carries out a transport command (the audio thread, or the editor thread when no output renders).
    mutating func apply(_ c: TransportCommand) {
        switch c.kind {
        case .play:
            passLimit = Int(c.value)
            shared.pointee.finished.store(false, ordering: .releasing)
            if !playing { playStart = music }
            playing = true
        case .pause, .silence:
            if playing { stoppedOffset = frame - base }
            playing = false
            // A pause stops the music; pads ring on (they are not the music's). Silence stops everything.
            releaseAll(pads: c.kind == .silence)
        case .rewind:
            pass = 0
            next = 0
            lastFired = -.infinity
            played.clear()
            base = frame
            stoppedOffset = 0
            playStart = 0
        case .pad:
            startPad(slot: Int(c.value), velocity: c.level)
        }
    }

    private mutating func releaseAll(pads: Bool) {
        for v in 0..<Self.voiceCapacity where voices[v].active && (pads || voices[v].track >= 0) {
            voices[v].release(over: min(voices[v].releaseFrames, stealFrames * 4))
        }
    }

    /// A pad hit: the slot's sample from its first frame, at the start of the block being rendered, at
    /// `velocity` times the slot's gain. It plays through no track (unit gain; no `-` cuts it) and to its end
    /// whatever the slot's mode, since a key has no release to close a gate with.
    private mutating func startPad(slot: Int, velocity: Float) {
        guard let snap = snapshot, (0..<EngineShared.slotCount).contains(slot), velocity > 0 else { return }
        let sn = snap.pointee
        let s = sn.slots[slot]
        guard let data = s.data, s.frames > 0, s.gain > 0 else { return }
        let v = allocateVoice()
        anyVoiceSounded = true
        order &+= 1
        voices[v] = Voice(
            active: true, stolen: false, track: -1, slot: Int8(slot), data: data, frames: s.frames, position: 0,
            gain: min(velocity, 1) * s.gain, trackGain: 1, level: 0, stage: .attack,
            attackStep: 1 / Float(s.attackFrames), decayStep: s.decayFrames > 0 ? 1 / Float(s.decayFrames) : 0,
            releaseFrames: s.releaseFrames, releaseStep: 0, releaseAt: Int64.max, gatePass: 0, gateTime: 0,
            seq: sn.seq, order: order)
    }

    /// The music rendered so far: seconds at tempo x1 from the start of pass 0, unwrapped across passes.
    var music: Double {
        guard let snap = snapshot else { return 0 }
        return Double(frame - base) / rate * snap.pointee.tempo
    }

    /// Stamps the playhead clock once a block has reached the output, with the latency the output reports then
    /// (the output's thread, after its write).
    static func stampClock(_ s: UnsafeMutablePointer<RenderState>, latencyMicros: Int) {
        let st = s.pointee
        let sn = st.snapshot?.pointee
        st.shared.pointee.stampClock(PlayheadClock(
            nanos: MonotonicClock.nanos(), music: st.music, latency: Double(latencyMicros) / 1_000_000,
            tempo: sn?.tempo ?? 1, start: sn?.start ?? 0, span: sn?.span ?? 0, playStart: st.playStart,
            playing: st.playing))
    }

    // MARK: - Mixing

    private mutating func mixVoices(into out: UnsafeMutablePointer<Float>, count: Int, firstFrame: Int64) {
        guard count > 0 else { return }
        let snap = snapshot
        for v in 0..<Self.voiceCapacity where voices[v].active {
            let t = Int(voices[v].track)
            var target: Float = t < 0 ? 1 : 0
            if let snap, t >= 0, t < snap.pointee.trackCount { target = snap.pointee.trackGains[t] }
            voices[v].mix(into: out, count: count, firstFrame: firstFrame, targetTrackGain: target,
                          smoothing: trackSmoothing)
        }
    }

    private mutating func applyMaster(_ out: UnsafeMutablePointer<Float>, count: Int) {
        let target = snapshot?.pointee.volume ?? 0
        if !anyVoiceSounded { master = target }
        var m = master
        let k = masterSmoothing
        for i in 0..<count {
            m += (target - m) * k
            // Land exactly on the target, so a settled gain is the same number as the offline render's.
            if abs(target - m) <= 1e-4 { m = target }
            out[2 * i] = Self.softClip(out[2 * i] * m)
            out[2 * i + 1] = Self.softClip(out[2 * i + 1] * m)
        }
        master = m
    }

    /// Where the master's soft clip starts: below it the mix passes untouched.
    static let clipKnee: Float = 0.8

    /// A safety on the master bus: transparent up to the knee, then a tanh curve that approaches full scale
    /// without ever reaching it, so coinciding hits round off instead of clipping hard in the converter.
    @inline(__always)
    static func softClip(_ x: Float) -> Float {
        let a = abs(x)
        if a <= clipKnee { return x }
        let room = 1 - clipKnee
        let y = clipKnee + room * tanhf((a - clipKnee) / room)
        return x < 0 ? -y : y
    }

    /// Publishes the playhead, the voices sounding, and the oldest snapshot still read (after every block, or
    /// from the editor thread after it changed the state while no output renders).
    func publish() {
        var oldest = snapshot?.pointee.seq ?? 0
        var sounding = 0
        for v in 0..<Self.voiceCapacity where voices[v].active {
            sounding += 1
            oldest = min(oldest, voices[v].seq)
        }
        let sh = shared
        sh.pointee.oldestInUse.store(oldest, ordering: .releasing)
        sh.pointee.activeVoices.store(sounding, ordering: .relaxed)
        sh.pointee.playing.store(playing, ordering: .relaxed)
        sh.pointee.renderedFrames.store(Int(frame), ordering: .relaxed)
        var seconds = 0.0
        if let snap = snapshot, snap.pointee.span > 0 {
            let sn = snap.pointee
            let position = Double(frame - base) / rate * sn.tempo
            var inPass = position - Double(pass) * sn.span
            if inPass < 0 { inPass = 0 }
            if inPass >= sn.span { inPass = inPass.truncatingRemainder(dividingBy: sn.span) }
            seconds = sn.start + inPass
        }
        sh.pointee.positionBits.store(seconds.bitPattern, ordering: .relaxed)
        publishSlots()
    }

    /// Per slot, the voice with the most left to play: its sample's length and the frames left (see
    /// `EngineShared.slotSound`).
    private func publishSlots() {
        for s in 0..<EngineShared.slotCount {
            var best: UInt64 = 0
            for v in 0..<Self.voiceCapacity where voices[v].active && Int(voices[v].slot) == s {
                let length = UInt64(min(voices[v].frames, Int(UInt32.max)))
                let left = UInt64(min(voices[v].remainingFrames(now: frame), Int(UInt32.max)))
                if left > best & 0xFFFF_FFFF { best = length << 32 | min(left, length) }
            }
            shared.pointee.slotSound[s].store(best, ordering: .relaxed)
        }
    }
}
