import Foundation
import TemperaCore

/// The sequencer: what the schedule, the metronome and the pads put in each block, frame by frame.
extension RenderState {
    // MARK: - Scheduling

    /// Fires every event due at output frame `frame + offset` and returns where the next segment ends: the
    /// next event, the end of the pass, or `count`.
    mutating func fireDueEvents(upTo count: Int, offset: Int) -> Int {
        if countingIn {
            let now = frame + Int64(offset)
            while countInNext < countInBeats {
                let at = countInStart + Int64((Double(countInNext) * countInBeatFrames).rounded())
                if at > now { break }
                if due.isFull { return offset }
                if let snap = snapshot {
                    queueClick(accent: Meter.accent(position: countInNext % countInMeter, groupMask: countInGroups),
                               snap.pointee.click, seq: snap.pointee.seq, at: offset)
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
            let pulse = sec.clickPulse(sn.click)
            if sn.click.on && clickNext < MixClick.beats(start: sec.start, end: sec.start + sec.span, beat: pulse).end {
                let at = base + sn.frame(songPass: songPass, section: section, pass: pass,
                                         time: MixClick.time(clickNext, pulse: pulse, start: sec.start), rate: rate)
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

    /// How pulse `k` of the timeline clicks: a bar's first (by the metronome's meter from time 0, or in a section
    /// with its own meter counted from the first pulse of its region), a group's first, or another.
    @inline(__always)
    func accent(_ k: Int, _ sec: MixSection, _ click: MixClick) -> Meter.Accent {
        guard sec.meter > 0 else { return Meter.accent(position: k % click.meter, groupMask: click.groups) }
        let first = MixClick.beats(start: sec.start, end: sec.start + sec.span, beat: sec.clickPulse(click)).first
        return Meter.accent(position: (k - first) % sec.meter, groupMask: sec.groups)
    }

    /// The track number click voices carry: no track's, so no track gain, mute or cut reaches them.
    static let clickTrack: Int32 = -1
    /// The previewed sample's voice: outside every track too.
    static let previewTrack: Int32 = -2
    /// The track number pad voices carry: no track's either, and a pause does not stop them.
    static let padTrack: Int32 = -3

    /// The region of musical position (from the start of the loop's playing or of the section) the current pass
    /// covers: [k·span, (k+1)·span), cut at the section's end.
    func passWindow(_ sn: MixSnapshot, _ sec: MixSection) -> (from: Double, to: Double) {
        let from = Double(pass) * sec.span
        return (from, sn.song ? min(from + sec.span, Double(sec.repeats) * sec.span) : from + sec.span)
    }

    /// The next event of cycle track `c` (its cursor's) in the current pass, times after the pass's start; nil
    /// when none is left in this pass.
    @inline(__always)
    func cycleEvent(_ c: Int, _ cy: MixCycle, from: Double, to: Double) -> MixEvent? {
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
    func nextCycleEvent(_ sn: MixSnapshot, _ sec: MixSection) -> (event: MixEvent, index: Int)? {
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
    mutating func advanceCycle(_ c: Int, _ cy: MixCycle) {
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
    mutating func resetClick() {
        resetCycles(skipPast: false)
        guard let snap = snapshot, section < snap.pointee.sectionCount else { clickNext = 0; return }
        let sec = snap.pointee.sections[section]
        clickNext = MixClick.beats(start: sec.start, end: sec.start + sec.span, beat: sec.clickPulse(snap.pointee.click)).first
    }

    /// The metronome's first beat of the current pass whose frame is at or after the current frame.
    func firstClick(in snap: UnsafeMutablePointer<MixSnapshot>) -> Int {
        let sn = snap.pointee
        guard section < sn.sectionCount else { return 0 }
        let sec = sn.sections[section]
        let pulse = sec.clickPulse(sn.click)
        var (lo, hi) = MixClick.beats(start: sec.start, end: sec.start + sec.span, beat: pulse)
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            let at = base + sn.frame(songPass: songPass, section: section, pass: pass,
                                     time: MixClick.time(mid, pulse: pulse, start: sec.start), rate: rate)
            if at < frame { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Song passes to play: the limit asked for, else endless with song loop on, one pass without.
    func songPassLimit(_ snap: UnsafeMutablePointer<MixSnapshot>) -> Int {
        passLimit > 0 ? passLimit : (snap.pointee.looping ? Int.max : 1)
    }

    /// The end: stop and return to the start; sounding voices ring out.
    mutating func stop(at now: Int64, count: Int) -> Int {
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
    mutating func queue(_ ev: MixEvent, snap: UnsafeMutablePointer<MixSnapshot>, at offset: Int) {
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
        e.to = ev.to
        due.append(e)
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
}
