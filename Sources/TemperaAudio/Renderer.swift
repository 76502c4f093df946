import Foundation
import TemperaCore

/// The render path: the one mixing code behind live playback and the offline render.
///
/// All state is plain structs in raw memory allocated once (`RenderState.make`); `render` never allocates,
/// locks or waits, holds no class reference and calls no closure, so it is safe on a real-time thread.
/// Only the thread that owns the output (or the offline writer) calls `render`.
struct RenderState {
    static let voiceCapacity = 80
    /// Events one pass of the sequencer lists before they are played (more in a block: it goes on after them).
    static let dueCapacity = 256
    /// Pads waiting for the next block.
    static let incomingCapacity = 128

    var shared: UnsafeMutablePointer<EngineShared>
    var snapshot: UnsafeMutablePointer<MixSnapshot>?
    let rate: Double
    var playing = false
    /// The output frame the next rendered sample has.
    var frame: Int64 = 0
    /// The output frame of pass 0, time 0 (of section 1, song pass 0): event frames are
    /// `base + snapshot.frame(songPass:section:pass:time:)`. While paused it moves with `frame`, so the musical
    /// position stands still.
    var base: Int64 = 0
    /// The pass of the current section (the loop's pass).
    var pass = 0
    /// The section playing, from 0 (always 0 for the loop).
    var section = 0
    /// The pass of the whole song (always 0 for the loop).
    var songPass = 0
    /// A jump to this section (from 0) waits for the song's snapshot; -1: none.
    var pendingJump = -1
    /// The next event of the current pass, counted within the section's events.
    var next = 0
    /// The time (in pass) of the last event fired this pass, so a re-anchoring never fires an event twice.
    var lastFired = -Double.infinity
    /// The markers fired this pass, so an edit that moves one from behind the playhead to ahead of it does not
    /// fire it again before the next pass.
    var played: PlayedMarkers
    /// While stopped: frames from `base` to the position where the music stopped (`frame - base` then).
    var stoppedOffset: Int64 = 0
    /// Passes to play before stopping (of the loop, or of the whole song); 0: endless when the loop (song loop)
    /// is on, one pass when it is off.
    var passLimit = 0
    /// The music (see `music`) where playing last started, and in which section and song pass: the playhead clock.
    var playStart = 0.0
    var playStartSection = 0
    var playStartSongPass = 0
    /// The song time (seconds of output from song pass 0's start) where playing last started.
    var playStartSong = 0.0
    /// Output frames the song time was moved by since the start, by re-anchoring (an edit of the song's timing, a
    /// jump), not by nudges: see `PlayheadClock.songShift`.
    var songShiftFrames: Int64 = 0
    /// The metronome's next beat of the timeline in this pass (see `MixClick`).
    var clickNext = 0
    /// A count-in is sounding: clicks from `countInStart`, one every `countInBeatFrames`, `countInBeats` of them
    /// (accent every `countInMeter`); the music starts at output frame `countInEnd`.
    var countingIn = false
    var countInStart: Int64 = 0
    var countInEnd: Int64 = 0
    var countInBeatFrames = 0.0
    var countInBeats = 0
    var countInMeter = 1
    var countInNext = 0
    /// A start aimed at a moment (`MonotonicClock` nanoseconds; 0: none): while it waits, each block sets
    /// `countInEnd` to the frame heard then, from the clock and the latency the output last reported.
    var startAt: UInt64 = 0
    /// The output reports its latency as it plays (PulseAudio), so a start can be aimed at a moment at each
    /// block; without it (the null output) the frame the editor computed stands.
    var aimsByClock = false
    var voices: UnsafeMutablePointer<Voice>
    /// Room for `publishSlots` to gather each slot's figure in one pass over the voices.
    let slotScratch: UnsafeMutablePointer<UInt64>
    /// Voices sounding at once before the oldest is stolen.
    var polyphony = 64
    var master: Float = 0
    /// The master limiter's gain (1: not limiting), and how much of the way back to 1 it goes each frame.
    var limiterGain: Float = 1
    var limiterRelease: Float = 0
    /// A voice sounded at the start of this block or started in it.
    var anyVoiceSounded = false
    var order: UInt64 = 0
    /// The preview last started (`MixSnapshot.previewSerial`).
    var previewSerial = 0
    let trackSmoothing: Float
    let masterSmoothing: Float
    let stealFrames: Int
    /// Following an Ableton Link session (see `LinkFollow`).
    var link = LinkFollow()
    /// Per cycle track of the current section (`MixCycle`), the next event to fire: its cycle (-1: none left in
    /// this pass) and its index in the cycle's events.
    let cycleM: UnsafeMutablePointer<Int>
    let cycleI: UnsafeMutablePointer<Int>
    /// The sequencer's list of what is due in the block being rendered, played by the sampler and the MIDI output.
    var due: DueEvents
    /// Pads played for the next block (from the transport ring, at its start; from MIDI in, on their frames),
    /// in the order of their offsets: the sequencer merges them into `due`.
    var incoming: DueEvents
    /// The MIDI output: what the block sends, and the note-offs still to come.
    var midi: MidiOut
    /// MIDI clock out (`--clock out`): where it stands.
    var clock = ClockOut()
    /// MIDI clock in (`--clock in`): the line through its clocks.
    var clockIn: ClockIn

    /// Allocates a render state (editor thread). Free it with `destroy` once no thread renders with it.
    static func make(rate: Double, shared: UnsafeMutablePointer<EngineShared>) -> UnsafeMutablePointer<RenderState> {
        let voices = UnsafeMutablePointer<Voice>.allocate(capacity: voiceCapacity)
        voices.initialize(repeating: Voice(), count: voiceCapacity)
        let p = UnsafeMutablePointer<RenderState>.allocate(capacity: 1)
        let scratch = UnsafeMutablePointer<UInt64>.allocate(capacity: EngineShared.slotCount)
        scratch.initialize(repeating: 0, count: EngineShared.slotCount)
        let cycleM = UnsafeMutablePointer<Int>.allocate(capacity: MixCycle.capacity)
        cycleM.initialize(repeating: -1, count: MixCycle.capacity)
        let cycleI = UnsafeMutablePointer<Int>.allocate(capacity: MixCycle.capacity)
        cycleI.initialize(repeating: 0, count: MixCycle.capacity)
        p.initialize(to: RenderState(shared: shared, rate: rate, played: .make(), voices: voices, slotScratch: scratch,
                                     trackSmoothing: Float(1 - exp(-1 / (0.003 * rate))),
                                     masterSmoothing: Float(1 - exp(-1 / (0.005 * rate))),
                                     stealFrames: max(1, Int(Fades.steal * rate)),
                                     cycleM: cycleM, cycleI: cycleI,
                                     due: .make(capacity: dueCapacity), incoming: .make(capacity: incomingCapacity),
                                     midi: .make(), clockIn: .make()))
        p.pointee.limiterRelease = Float(1 - exp(-1 / (limiterReleaseSeconds * rate)))
        return p
    }

    static func destroy(_ p: UnsafeMutablePointer<RenderState>) {
        p.pointee.voices.deallocate()
        p.pointee.slotScratch.deallocate()
        p.pointee.cycleM.deallocate()
        p.pointee.cycleI.deallocate()
        p.pointee.played.deallocate()
        p.pointee.due.deallocate()
        p.pointee.incoming.deallocate()
        p.pointee.midi.deallocate()
        p.pointee.clockIn.deallocate()
        p.deinitialize(count: 1)
        p.deallocate()
    }

    // MARK: - The render call

    /// Renders `count` frames of interleaved stereo into `out` and advances the clock.
    static func render(_ s: UnsafeMutablePointer<RenderState>, into out: UnsafeMutablePointer<Float>, frames count: Int) {
        out.update(repeating: 0, count: count * 2)
        s.pointee.linkBeforeBlock()
        adoptLatest(s)
        while let c = s.pointee.shared.pointee.receive() { s.pointee.apply(c) }
        s.pointee.followLink()
        s.pointee.followClockIn()
        if s.pointee.startAt != 0, s.pointee.countingIn, s.pointee.aimsByClock { s.pointee.aimStart() }

        // With nothing sounding, a volume change cannot click: the master takes it at once.
        s.pointee.anyVoiceSounded = false
        for v in 0..<voiceCapacity where s.pointee.voices[v].active { s.pointee.anyVoiceSounded = true; break }
        s.pointee.midi.beginBlock(frame: s.pointee.frame, count: count)
        var f = 0
        while f < count {
            // The sequencer lists what is due (up to the list's capacity); the sampler and the MIDI output play it.
            let end = s.pointee.sequence(from: f, upTo: count)
            s.pointee.playDue(into: out, from: f, to: end)
            s.pointee.midi.play(s.pointee.due, snapshot: s.pointee.snapshot, rate: s.pointee.rate)
            s.pointee.due.clear()
            f = end
        }
        s.pointee.sendClock(count: count)
        s.pointee.midi.endBlock()
        // Pads listed for frames beyond this block keep their place in the next one.
        s.pointee.incoming.shift(by: count)
        s.pointee.applyMaster(out, count: count)
        s.pointee.frame += Int64(count)
        // Stopped: the musical position stands still while the clock runs on.
        if !s.pointee.playing { s.pointee.base = s.pointee.frame - s.pointee.stoppedOffset }
        s.pointee.publish()
    }

    /// Sets the frame a timed start waits for to the one heard at `startAt`. This block follows the last one
    /// written, which is heard the latency measured after that write from then (the playhead clock's rule);
    /// after a stall (an idle server's stream waits at first) that stamp is stale, and the block is heard the
    /// latency from now.
    private mutating func aimStart() {
        let now = MonotonicClock.nanos()
        let sh = shared
        var from = now
        var latency = Double(sh.pointee.latencyMicros.load(ordering: .relaxed)) / 1_000_000
        let stamped = sh.pointee.clockNanos.load(ordering: .relaxed)
        if stamped <= now, now - stamped < Self.staleStampNanos, sh.pointee.clockFrame.load(ordering: .relaxed) == frame {
            from = stamped
            latency = Double(sh.pointee.clockLatencyMicros.load(ordering: .relaxed)) / 1_000_000
        }
        let until = startAt >= from ? Double(startAt - from) / 1e9 : -Double(from - startAt) / 1e9
        let ahead = ((until - latency) * rate).rounded()
        aim(frame + Int64(ahead))
    }

    /// A playhead stamp older than this is not how the next block will be heard (the output stalled).
    static let staleStampNanos: UInt64 = 50_000_000

    /// Sets a timed start's frame: `target`, where pass 0 starts; when that is past, the first pass start after
    /// it that is not (a player coming in late joins the others at a pass's start, as that pass).
    private mutating func aim(_ target: Int64) {
        var k = 0
        if target < frame, let snap = snapshot, !snap.pointee.song, snap.pointee.sectionCount > 0 {
            let sn = snap.pointee
            let zero = sn.passEnd(songPass: 0, section: 0, pass: -1, rate: rate)
            let one = sn.passEnd(songPass: 0, section: 0, pass: 0, rate: rate) - zero
            if one > 0 { k = Int((frame - target + one - 1) / one) }
            while k > 0, target + sn.passEnd(songPass: 0, section: 0, pass: k - 1, rate: rate) - zero < frame { k += 1 }
            if k > 0 {
                // The music stands at pass k's start until then, and the pass count says k.
                pass = k
                stoppedOffset = sn.passEnd(songPass: 0, section: 0, pass: k - 1, rate: rate) - zero
                countInEnd = target + stoppedOffset
                return
            }
        }
        pass = 0
        stoppedOffset = 0
        countInEnd = max(frame, target)
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
        if countingIn {
            let now = frame + Int64(offset)
            while countInNext < countInBeats {
                let at = countInStart + Int64((Double(countInNext) * countInBeatFrames).rounded())
                if at > now { break }
                if due.isFull { return offset }
                if let snap = snapshot {
                    queueClick(accent: countInNext % countInMeter == 0, snap.pointee.click, seq: snap.pointee.seq, at: offset)
                }
                countInNext += 1
            }
            guard now >= countInEnd else {
                let nextAt = countInNext < countInBeats
                    ? countInStart + Int64((Double(countInNext) * countInBeatFrames).rounded()) : countInEnd
                return offset + Int(min(min(nextAt, countInEnd) - now, Int64(count - offset)))
            }
            // The count-in is over: the music starts on this very frame, from where it stood.
            countingIn = false
            startAt = 0
            playing = true
            base = countInEnd - stoppedOffset
            markPlayStart(at: countInEnd)
        }
        guard playing, let snap = snapshot, snap.pointee.sectionCount > 0 else { return count }
        let now = frame + Int64(offset)
        if section >= snap.pointee.sectionCount || (snap.pointee.song && songPass >= songPassLimit(snap)) {
            return stop(at: now, count: count)
        }
        while true {
            let sn = snap.pointee
            let sec = sn.sections[section]
            guard sec.span > 0 else { return count }
            // The metronome's next beat, merged with the events by frame.
            var clickAt = Int64.max
            if sn.click.on && clickNext < MixClick.beats(start: sec.start, end: sec.start + sec.span, beat: sn.click.beat).end {
                let at = base + sn.frame(songPass: songPass, section: section, pass: pass,
                                         time: sn.click.time(clickNext, start: sec.start), rate: rate)
                if at <= now {
                    if due.isFull { return offset }
                    queueClick(accent: accent(clickNext, sec, sn.click), sn.click, seq: sn.seq, at: offset)
                    clickNext += 1
                    continue
                }
                clickAt = at
            }
            // The next event: the region's, or a cycle track's, whichever comes first in schedule order.
            var nextEvent: MixEvent? = next < sec.eventCount ? sec.events[next] : nil
            var fromCycle = -1
            if sec.cycleCount > 0, let c = nextCycleEvent(sn, sec),
               nextEvent.map({ EventCompiler.precedes(c.event, $0) }) ?? true {
                nextEvent = c.event
                fromCycle = c.index
            }
            if let ev = nextEvent {
                let at = base + sn.frame(songPass: songPass, section: section, pass: pass, time: ev.time, rate: rate)
                if at <= now {
                    if due.isFull { return offset }
                    // A marker fires once per pass: one that already sounded and was moved ahead by an edit
                    // waits for the next pass. (A pass with more markers than the table holds records only the
                    // first ones; the others play as before, unguarded.)
                    if played.record(PlayedMarkers.key(track: ev.track, marker: ev.marker, cycle: ev.cycle)
                        ^ UInt64(UInt32(bitPattern: ev.hit)) << 56) {
                        queue(ev, snap: snap, at: offset)
                    }
                    lastFired = ev.time
                    if fromCycle >= 0 { advanceCycle(fromCycle, sn.cycles![sec.cycleFirst + fromCycle]) } else { next += 1 }
                    continue
                }
                return offset + Int(min(min(at, clickAt) - now, Int64(count - offset)))
            }
            let wrap = base + sn.passEnd(songPass: songPass, section: section, pass: pass, rate: rate)
            if wrap <= now {
                pass += 1
                next = 0
                lastFired = -.infinity
                played.clear()
                if sn.song {
                    if pass >= sec.repeats {
                        pass = 0
                        section += 1
                        if section >= sn.sectionCount {
                            section = 0
                            songPass += 1
                            if songPass >= songPassLimit(snap) { return stop(at: now, count: count) }
                        }
                    }
                } else if pass >= (passLimit > 0 ? passLimit : (sn.looping ? Int.max : 1)) {
                    return stop(at: now, count: count)
                }
                resetClick()
                continue
            }
            return offset + Int(min(min(wrap, clickAt) - now, Int64(count - offset)))
        }
    }

    /// Whether beat `k` of the timeline is a bar's first: by the metronome's meter from time 0, or in a section
    /// with its own meter, counted from the first beat of its region.
    @inline(__always)
    private func accent(_ k: Int, _ sec: MixSection, _ click: MixClick) -> Bool {
        guard sec.meter > 0 else { return k % click.meter == 0 }
        let first = MixClick.beats(start: sec.start, end: sec.start + sec.span, beat: click.beat).first
        return (k - first) % sec.meter == 0
    }

    /// The track number click voices carry: no track's, so no track gain, mute or cut reaches them.
    static let clickTrack: Int32 = -1
    /// The previewed sample's voice: outside every track too.
    static let previewTrack: Int32 = -2
    /// The track number pad voices carry: no track's either, and a pause does not stop them.
    static let padTrack: Int32 = -3

    /// Lists a metronome click (the accent on a bar's first beat) as due at `offset`.
    private mutating func queueClick(accent: Bool, _ click: MixClick, seq: Int, at offset: Int) {
        guard click.on, click.level > 0 else { return }
        var e = DueEvent(kind: .click, offset: offset, frame: frame + Int64(offset), track: Self.clickTrack, slot: 0, amp: 1)
        e.accent = accent
        e.seq = seq
        due.append(e)
    }

    /// Starts a metronome click (the accent on a bar's first beat) at the metronome's level.
    private mutating func startClick(accent: Bool, _ click: MixClick, seq: Int) {
        guard click.on, click.level > 0, let data = accent ? click.accent : click.normal else { return }
        let frames = accent ? click.accentFrames : click.normalFrames
        guard frames > 0 else { return }
        let v = allocateVoice()
        anyVoiceSounded = true
        order &+= 1
        voices[v] = Voice(
            active: true, stolen: false, track: Self.clickTrack, data: data, frames: frames, position: 0,
            gain: click.level, trackGain: 1, level: 0, stage: .attack,
            attackStep: 1 / Float(max(1, Int(Fades.minimumAttack * rate))), decayStep: 0,
            releaseFrames: stealFrames, releaseStep: 0, releaseAt: Int64.max, gatePass: 0, gateTime: 0,
            gateSection: 0, gateSongPass: 0, seq: seq, order: order)
    }

    /// A previewed sample: outside every track, at full level; the one before it fades out.
    private mutating func startPreview(_ snap: UnsafeMutablePointer<MixSnapshot>) {
        for v in 0..<Self.voiceCapacity where voices[v].active && voices[v].track == Self.previewTrack {
            voices[v].release(over: stealFrames)
        }
        guard let data = snap.pointee.previewData, snap.pointee.previewFrames > 0 else { return }
        let v = allocateVoice()
        anyVoiceSounded = true
        order &+= 1
        voices[v] = Voice(
            active: true, stolen: false, track: Self.previewTrack, data: data, frames: snap.pointee.previewFrames,
            position: 0, gain: 1, trackGain: 1, level: 0, stage: .attack,
            attackStep: 1 / Float(max(1, Int(Fades.minimumAttack * rate))), decayStep: 0,
            releaseFrames: stealFrames, releaseStep: 0, releaseAt: Int64.max, gatePass: 0, gateTime: 0,
            gateSection: 0, gateSongPass: 0, seq: snap.pointee.seq, order: order)
    }

    /// The region of musical position (from the start of the loop's playing or of the section) the current pass
    /// covers: [k·span, (k+1)·span), cut at the section's end.
    private func passWindow(_ sn: MixSnapshot, _ sec: MixSection) -> (from: Double, to: Double) {
        let from = Double(pass) * sec.span
        return (from, sn.song ? min(from + sec.span, Double(sec.repeats) * sec.span) : from + sec.span)
    }

    /// The next event of cycle track `c` (its cursor's) in the current pass, times after the pass's start; nil
    /// when none is left in this pass.
    @inline(__always)
    private func cycleEvent(_ c: Int, _ cy: MixCycle, from: Double, to: Double) -> MixEvent? {
        let m = cycleM[c]
        guard m >= 0, cy.eventCount > 0 else { return nil }
        let e = cy.events[cycleI[c]]
        let x = CycleTrack.position(cycle: m, time: e.time, length: cy.length, ratio: cy.ratio)
        guard x < to else { return nil }
        var placed = e
        placed.time = x - from
        placed.gateEnd = CycleTrack.position(cycle: m, time: e.gateEnd, length: cy.length, ratio: cy.ratio) - from
        placed.cycle = Int32(truncatingIfNeeded: m)
        if m > 0 { placed.randomKey ^= CycleTrack.cycleKey(m) }
        return placed
    }

    /// The first in schedule order of the cycle tracks' next events, and whose it is.
    private func nextCycleEvent(_ sn: MixSnapshot, _ sec: MixSection) -> (event: MixEvent, index: Int)? {
        guard let cycles = sn.cycles else { return nil }
        let (from, to) = passWindow(sn, sec)
        var best: (event: MixEvent, index: Int)? = nil
        for c in 0..<min(sec.cycleCount, MixCycle.capacity) {
            guard let e = cycleEvent(c, cycles[sec.cycleFirst + c], from: from, to: to) else { continue }
            if best.map({ EventCompiler.precedes(e, $0.event) }) ?? true { best = (e, c) }
        }
        return best
    }

    /// Moves cycle track `c`'s cursor to its next event (the next cycle's first after its last).
    @inline(__always)
    private mutating func advanceCycle(_ c: Int, _ cy: MixCycle) {
        cycleI[c] += 1
        if cycleI[c] >= cy.eventCount {
            cycleI[c] = 0
            cycleM[c] += 1
        }
    }

    /// Each cycle track's cursor to its first event of the current pass; with `skipPast`, to its first event still
    /// to come (at or after the current frame and after the last fired), as after a re-anchoring.
    mutating func resetCycles(skipPast: Bool) {
        guard let snap = snapshot, section < snap.pointee.sectionCount else { return }
        let sn = snap.pointee
        let sec = sn.sections[section]
        guard sec.cycleCount > 0, let cycles = sn.cycles, sec.span > 0 else { return }
        let (from, to) = passWindow(sn, sec)
        for c in 0..<min(sec.cycleCount, MixCycle.capacity) {
            let cy = cycles[sec.cycleFirst + c]
            cycleM[c] = CycleTrack.firstCycle(atOrAfter: from, length: cy.length, ratio: cy.ratio)
            cycleI[c] = 0
            while true {
                let e = cy.events[cycleI[c]]
                let x = CycleTrack.position(cycle: cycleM[c], time: e.time, length: cy.length, ratio: cy.ratio)
                if x >= to { break }
                let past = x < from || (skipPast && (x - from <= lastFired
                    || base + sn.frame(songPass: songPass, section: section, pass: pass, time: x - from, rate: rate) < frame))
                if !past { break }
                advanceCycle(c, cy)
            }
        }
    }

    /// The metronome back to the first beat of the current pass.
    private mutating func resetClick() {
        resetCycles(skipPast: false)
        guard let snap = snapshot, section < snap.pointee.sectionCount else { clickNext = 0; return }
        let sec = snap.pointee.sections[section]
        clickNext = MixClick.beats(start: sec.start, end: sec.start + sec.span, beat: snap.pointee.click.beat).first
    }

    /// The metronome's first beat of the current pass whose frame is at or after the current frame.
    func firstClick(in snap: UnsafeMutablePointer<MixSnapshot>) -> Int {
        let sn = snap.pointee
        guard section < sn.sectionCount else { return 0 }
        let sec = sn.sections[section]
        var (lo, hi) = MixClick.beats(start: sec.start, end: sec.start + sec.span, beat: sn.click.beat)
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            let at = base + sn.frame(songPass: songPass, section: section, pass: pass,
                                     time: sn.click.time(mid, start: sec.start), rate: rate)
            if at < frame { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Song passes to play: the limit asked for, else endless with song loop on, one pass without.
    func songPassLimit(_ snap: UnsafeMutablePointer<MixSnapshot>) -> Int {
        passLimit > 0 ? passLimit : (snap.pointee.looping ? Int.max : 1)
    }

    /// The end: stop and return to the start; sounding voices ring out.
    private mutating func stop(at now: Int64, count: Int) -> Int {
        playing = false
        pass = 0
        section = 0
        songPass = 0
        next = 0
        base = now
        stoppedOffset = 0
        resetClick()
        shared.pointee.finished.store(true, ordering: .releasing)
        return count
    }

    /// Lists a schedule event as due at `offset`: the sequencer's half of a marker's onset. Everything that
    /// depends on where the music stands (the `?` drawn for this pass, the layer, a gate's end) is settled here.
    private mutating func queue(_ ev: MixEvent, snap: UnsafeMutablePointer<MixSnapshot>, at offset: Int) {
        let at = frame + Int64(offset)
        if ev.isCut {
            due.append(DueEvent(kind: .cut, offset: offset, frame: at, track: ev.track, slot: 0, amp: 0))
            return
        }
        let sn = snap.pointee
        let draw = songPass &* sn.totalPasses &+ sn.sections[section].passesBefore &+ pass
        // A probability is decided per pass, as a `?` is drawn: the same in every render.
        guard Schedule.sounds(probability: ev.probability, seed: sn.seed, key: ev.randomKey, pass: draw) else { return }
        let clip = ev.clip != 0 ? Int(ev.clip)
            : Schedule.randomClip(seed: sn.seed, pool: sn.randomPool, key: ev.randomKey, pass: draw)
        guard (1...16).contains(clip) else { return }
        let slot = sn.slots[clip - 1]
        var layerIndex = Int(ev.layer)
        if layerIndex < 0 || layerIndex >= slot.layerCount {
            layerIndex = slot.layerCount > 1 ? slot.layer(for: ev.amp, in: sn.layers) : 0
        }
        var e = DueEvent(kind: .onset, offset: offset, frame: at, track: ev.track, slot: Int32(clip), amp: ev.amp,
                         layer: Int32(layerIndex))
        e.gateEndFrame = base + sn.frame(songPass: songPass, section: section, pass: pass, time: ev.gateEnd, rate: rate)
        if slot.gate { e.releaseAt = e.gateEndFrame }
        e.gatePass = pass
        e.gateTime = ev.gateEnd
        e.gateSection = section
        e.gateSongPass = songPass
        e.seq = sn.seq
        e.from = ev.from
        due.append(e)
    }

    /// The sampler's half of an onset: the choke, and a voice for the slot's layer.
    private mutating func startOnset(_ e: DueEvent, snap: UnsafeMutablePointer<MixSnapshot>) {
        let sn = snap.pointee
        let clip = Int(e.slot)
        let slot = sn.slots[clip - 1]
        guard slot.layerCount > 0 else { return }
        let layer = sn.layers[slot.firstLayer + min(Int(e.layer), slot.layerCount - 1)]
        // The choke: this onset fades out the other slots of its group, even when it is itself silent.
        if slot.choke != 0 {
            for v in 0..<Self.voiceCapacity
                where voices[v].active && voices[v].choke == slot.choke && voices[v].slot != Int32(clip) {
                voices[v].release(over: stealFrames)
            }
        }
        guard let data = layer.data, layer.frames > 0 else { return }
        let targetGain = Int(e.track) < sn.trackCount ? sn.trackGains[Int(e.track)] : 0
        guard targetGain > 0, e.amp > 0, slot.gain > 0, layer.gain > 0 else { return }

        let v = allocateVoice()
        anyVoiceSounded = true
        order &+= 1
        // A slot's single file has gain 1, so `* layer.gain` leaves it exactly as before layers existed.
        voices[v] = Voice(
            active: true, stolen: false, track: e.track, slot: Int32(clip), choke: slot.choke, data: data,
            frames: layer.frames, position: e.from > 0 ? min(layer.frames, Int((e.from * rate).rounded())) : 0,
            gain: Float(e.amp) * slot.gain * layer.gain, panLeft: slot.panLeft, panRight: slot.panRight,
            trackGain: targetGain, level: 0, stage: .attack,
            attackStep: 1 / Float(slot.attackFrames), decayStep: slot.decayFrames > 0 ? 1 / Float(slot.decayFrames) : 0,
            releaseFrames: slot.releaseFrames, releaseStep: 0,
            releaseAt: e.releaseAt,
            gatePass: e.gatePass, gateTime: e.gateTime, gateSection: e.gateSection, gateSongPass: e.gateSongPass,
            seq: e.seq, order: order)
    }

    // MARK: - The sequencer and the sampler

    /// The sequencer: lists in `due` what falls in the block from `offset` on (the schedule's onsets and cuts, the
    /// metronome, pads waiting in `incoming`), in the order of their frames, and returns where the listing stopped:
    /// `count`, or earlier when the list is full (the rest is listed once it has been played).
    mutating func sequence(from offset: Int, upTo count: Int) -> Int {
        var g = offset
        while g < count {
            // A pad waiting for a later frame of this block ends the segment there.
            let cap = incoming.count > 0 ? min(count, max(g, incoming[0].offset)) : count
            let next = fireDueEvents(upTo: cap, offset: g)
            if due.isFull { return g }
            // Pads due now, after the schedule's events of the same frame.
            while incoming.count > 0, incoming[0].offset <= g {
                if due.isFull { return g }
                var e = incoming[0]
                e.offset = g
                e.frame = frame + Int64(g)
                due.append(e)
                incoming.removeFirst(1)
            }
            g = next
        }
        return count
    }

    /// The sampler: mixes the voices from `offset` to `end`, starting each listed event's sound on its frame.
    private mutating func playDue(into out: UnsafeMutablePointer<Float>, from offset: Int, to end: Int) {
        var at = offset
        for i in 0..<due.count {
            let e = due[i]
            if e.offset > at {
                mixVoices(into: out + 2 * at, count: e.offset - at, firstFrame: frame + Int64(at))
                at = e.offset
            }
            switch e.kind {
            case .onset:
                if let snap = snapshot { startOnset(e, snap: snap) }
            case .cut:
                for v in 0..<Self.voiceCapacity where voices[v].active && voices[v].track == e.track {
                    voices[v].release(over: voices[v].releaseFrames)
                }
            case .click:
                if let snap = snapshot { startClick(accent: e.accent, snap.pointee.click, seq: e.seq) }
            case .pad:
                startPad(slot: Int(e.slot) - 1, velocity: Float(e.amp))
            }
        }
        if end > at { mixVoices(into: out + 2 * at, count: end - at, firstFrame: frame + Int64(at)) }
    }

    /// Lists a pad hit for the next block, `offset` frames into it (0 for a key: at once).
    mutating func queuePad(slot: Int, velocity: Float, offset: Int = 0) {
        guard (0..<EngineShared.slotCount).contains(slot), velocity > 0 else { return }
        var e = DueEvent(kind: .pad, offset: max(0, offset), frame: 0, track: Self.padTrack, slot: Int32(slot + 1),
                         amp: Double(min(velocity, 1)))
        e.seq = snapshot?.pointee.seq ?? 0
        incoming.append(e)
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
    /// region changed, the clock is re-anchored so onsets from here on land on the new tempo's frames. Switching
    /// between the loop and the song starts the new one from its beginning.
    private mutating func adopt(_ new: UnsafeMutablePointer<MixSnapshot>) {
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
    private mutating func nextSongPass() {
        section = 0
        pass = 0
        songPass += 1
        lastFired = -.infinity
        played.clear()
        resetClick()
    }

    /// From the beginning: the loop's start, or the song's first section.
    private mutating func restart() {
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

    /// The first event of the current pass still to come: at or after the current frame and after the last fired.
    func nextIndex(in snap: UnsafeMutablePointer<MixSnapshot>) -> Int {
        let sn = snap.pointee
        guard section < sn.sectionCount else { return 0 }
        let sec = sn.sections[section]
        var lo = 0, hi = sec.eventCount
        while lo < hi {
            let mid = (lo + hi) / 2
            let e = sec.events[mid]
            if base + sn.frame(songPass: songPass, section: section, pass: pass, time: e.time, rate: rate) < frame
                || e.time <= lastFired {
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
                let own = snap.pointee.sections[j].meter
                countInMeter = own > 0 ? own : ck.meter
                countInBeats = ck.countIn * countInMeter
                countInBeatFrames = ck.beat / tempo * rate
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
    private mutating func locate(to time: Double, _ snap: UnsafeMutablePointer<MixSnapshot>) {
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
    private mutating func jump(to n: Int, _ snap: UnsafeMutablePointer<MixSnapshot>) {
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

    private mutating func releaseAll(pads: Bool) {
        for v in 0..<Self.voiceCapacity where voices[v].active && (pads || voices[v].track != Self.padTrack) {
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
        guard s.layerCount > 0 else { return }
        // The velocity picks the layer as a marker's amplitude does, and chokes the slot's group as an onset does.
        let layer = sn.layers[s.firstLayer + (s.layerCount > 1 ? s.layer(for: Double(velocity), in: sn.layers) : 0)]
        if s.choke != 0 {
            for v in 0..<Self.voiceCapacity
                where voices[v].active && voices[v].choke == s.choke && voices[v].slot != Int32(slot + 1) {
                voices[v].release(over: stealFrames)
            }
        }
        guard let data = layer.data, layer.frames > 0, s.gain > 0, layer.gain > 0 else { return }
        let v = allocateVoice()
        anyVoiceSounded = true
        order &+= 1
        voices[v] = Voice(
            active: true, stolen: false, track: Self.padTrack, slot: Int32(slot + 1), choke: s.choke, data: data,
            frames: layer.frames, position: 0, gain: min(velocity, 1) * s.gain * layer.gain,
            panLeft: s.panLeft, panRight: s.panRight, trackGain: 1, level: 0, stage: .attack,
            attackStep: 1 / Float(s.attackFrames), decayStep: s.decayFrames > 0 ? 1 / Float(s.decayFrames) : 0,
            releaseFrames: s.releaseFrames, releaseStep: 0, releaseAt: Int64.max, gatePass: 0, gateTime: 0,
            gateSection: 0, gateSongPass: 0, seq: sn.seq, order: order)
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

    // MARK: - Mixing

    private mutating func mixVoices(into out: UnsafeMutablePointer<Float>, count: Int, firstFrame: Int64) {
        guard count > 0 else { return }
        let snap = snapshot
        for v in 0..<Self.voiceCapacity where voices[v].active {
            let t = Int(voices[v].track)
            var target: Float = 0
            if t < 0 {
                target = 1
            } else if let snap, t < snap.pointee.trackCount {
                target = snap.pointee.trackGains[t]
            }
            voices[v].mix(into: out, count: count, firstFrame: firstFrame, targetTrackGain: target,
                          smoothing: trackSmoothing)
        }
    }

    private mutating func applyMaster(_ out: UnsafeMutablePointer<Float>, count: Int) {
        let target = snapshot?.pointee.volume ?? 0
        if !anyVoiceSounded { master = target }
        var m = master
        let k = masterSmoothing
        // The output's own pan (a player's, to tell players apart): the far side fades, the near one stays.
        let pan = Float(shared.pointee.outputPan.load(ordering: .relaxed)) / 1000
        let left: Float = pan > 0 ? 1 - pan : 1, right: Float = pan < 0 ? 1 + pan : 1
        var finite = true
        var g = limiterGain
        let release = limiterRelease, limit = Self.limit
        for i in 0..<count {
            m += (target - m) * k
            // Land exactly on the target, so a settled gain is the same number as the offline render's.
            if abs(target - m) <= 1e-4 { m = target }
            var l = out[2 * i] * m, r = out[2 * i + 1] * m
            // The limiter: a frame that would pass `limit` takes the gain that puts it there at once (both sides
            // alike, so the image stays), and the gain returns to 1 over `limiterReleaseSeconds`. Below the limit,
            // with the gain back at 1, the mix passes untouched, bit for bit.
            if g < 1 {
                g += (1 - g) * release
                // Back to exactly 1 once within a hundredth of a dB (nearer, a Float step no longer moves it):
                // then the mix passes untouched again.
                if g >= 0.999 { g = 1 }
            }
            let peak = max(abs(l), abs(r)) * g
            if peak > limit { g *= limit / peak }
            if g < 1 {
                // Rounding may leave a limited frame a step past the limit: held to it.
                l = max(-limit, min(limit, l * g))
                r = max(-limit, min(limit, r * g))
            }
            l = Self.softClip(l)
            r = Self.softClip(r)
            finite = finite && l.isFinite && r.isFinite
            out[2 * i] = l * left
            out[2 * i + 1] = r * right
        }
        master = m
        limiterGain = g.isFinite ? g : 1
        // The last guard: a block that is not all numbers (a NaN from anywhere in the mix) goes out as silence,
        // never as the full-scale burst a NaN becomes in the converter. Counted, for the output to report.
        if !finite {
            out.update(repeating: 0, count: count * 2)
            shared.pointee.silencedBlocks.add(1, ordering: .relaxed)
        }
    }

    /// Where the master's soft clip starts: below it the mix passes untouched.
    static let clipKnee: Float = 0.8

    /// The master limiter's ceiling, the soft clip's knee (-1.94 dBFS): the limiter keeps the mix at or below
    /// it, so the soft clip is never reached and the master never clips (it stays as the last guard).
    static let limit: Float = clipKnee
    /// How long the limiter's gain takes to come back (its time constant), in seconds.
    static let limiterReleaseSeconds = 0.080

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
        sh.pointee.countingIn.store(countingIn, ordering: .relaxed)
        sh.pointee.countInLeft.store(countingIn ? countInBeats - max(countInNext - 1, 0) : 0, ordering: .relaxed)
        sh.pointee.renderedFrames.store(Int(frame), ordering: .relaxed)
        var seconds = 0.0, tempoHeard = 0.0, heardSeconds = Double.nan
        if let snap = snapshot, section < snap.pointee.sectionCount, snap.pointee.sections[section].span > 0 {
            let sn = snap.pointee
            let sec = sn.sections[section]
            let position = Double(frame - base) / rate - (Double(songPass) * sn.total + sec.offset)
            let renderedMusic = sn.music(section: section, atPlay: position)
            var inPass = renderedMusic - Double(pass) * sec.span
            if inPass < 0 { inPass = 0 }
            if inPass >= sec.span { inPass = inPass.truncatingRemainder(dividingBy: sec.span) }
            seconds = sec.start + inPass
            // What is heard is the latency behind: its music through the clock's closed-form inverse at that play
            // time, not the rendered music run back at one tempo.
            let latency = playing ? Double(sh.pointee.latencyMicros.load(ordering: .relaxed)) / 1_000_000 : 0
            let heardMusic = latency > 0 ? sn.music(section: section, atPlay: position - latency) : renderedMusic
            tempoHeard = sn.tempo(section: section, atMusic: max(heardMusic, 0))
            if position - latency >= 0 {
                let k = (heardMusic / sec.span).rounded(.down)
                heardSeconds = sec.start + min(max(heardMusic - k * sec.span, 0), sec.span)
            }
        }
        sh.pointee.section.store(section, ordering: .relaxed)
        sh.pointee.sectionPass.store(pass, ordering: .relaxed)
        sh.pointee.songPass.store(songPass, ordering: .relaxed)
        sh.pointee.positionBits.store(seconds.bitPattern, ordering: .relaxed)
        sh.pointee.heardPositionBits.store(heardSeconds.bitPattern, ordering: .relaxed)
        sh.pointee.tempoBits.store(tempoHeard.bitPattern, ordering: .relaxed)
        publishSlots()
    }

    /// Per slot, the voice with the most left to play: its sample's length and the frames left (see
    /// `EngineShared.slotSound`).
    private func publishSlots() {
        let best = slotScratch
        best.update(repeating: 0, count: EngineShared.slotCount)
        for v in 0..<Self.voiceCapacity
            where voices[v].active && (1...Int32(EngineShared.slotCount)).contains(voices[v].slot) {
            let s = Int(voices[v].slot) - 1
            let length = UInt64(min(voices[v].frames, Int(UInt32.max)))
            let left = UInt64(min(voices[v].remainingFrames(now: frame), Int(UInt32.max)))
            if left > best[s] & 0xFFFF_FFFF { best[s] = length << 32 | min(left, length) }
        }
        for s in 0..<EngineShared.slotCount { shared.pointee.slotSound[s].store(best[s], ordering: .relaxed) }
    }
}
