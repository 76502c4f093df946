import CJack
import TemperaCore

/// JACK transport (`--transport`): follow its rolling state and position, or lead it as timebase master with
/// bars and beats as heard, through the tempo map and the meters.
public enum JackTransportMode: UInt8, Sendable {
    case follow = 1
    case lead = 2
}

extension RenderState {
    /// Puts the music at `songFrames` frames of output from the start of pass 0 (the loop's; the song's first
    /// section's, song pass 0), as a relocation does: the loop's pass there, or the song's section, pass and song
    /// pass there (`MixSnapshot.place`); the events from there on, none fired twice, none skipped in a burst.
    mutating func relocate(songFrames: Int64) {
        base = frame - songFrames
        stoppedOffset = songFrames
        guard let snap = snapshot, snap.pointee.sectionCount > 0 else { return }
        let sn = snap.pointee
        if sn.song {
            if let p = sn.place(songTime: Double(songFrames) / rate) {
                songPass = p.songPass
                section = p.section
                pass = p.pass
            } else {
                // Past the end of a song that does not loop: nothing left to play there.
                songPass = songPassLimit(snap)
                section = 0
                pass = 0
            }
        } else {
            section = 0
            songPass = 0
            let sec = sn.sections[0]
            let m = max(0, music(at: frame))
            pass = sec.span > 0 ? Int((m / sec.span).rounded(.down)) : 0
        }
        lastFired = -.infinity
        played.clear()
        next = nextIndex(in: snap)
        clickNext = firstClick(in: snap)
        resetCycles(skipPast: true)
        if playing { markPlayStart() }
    }

    /// Whether the music has ended where it stands: past the last pass of a song without song loop, or of a loop
    /// that is off (or played its passes). A transport rolling there plays nothing.
    var pastTheEnd: Bool {
        guard let snap = snapshot, snap.pointee.sectionCount > 0 else { return false }
        if snap.pointee.song { return songPass >= songPassLimit(snap) }
        return pass >= (passLimit > 0 ? passLimit : (snap.pointee.looping ? Int.max : 1))
    }

    /// Following JACK's transport, at the start of a block: rolling plays, stopped pauses, and the music stands
    /// where the transport's frame says (moved there when it differs, by a relocation). While both roll, a
    /// difference of at most `jitter` frames is the server's frame time wavering, not a move: the music follows
    /// it without a relocation, so clock followers are not sent Stop, Song Position and Continue for it.
    mutating func followTransport(rolling: Bool, frame transportFrame: Int64, jitter: Int = 0) {
        let off = transportFrame - (frame - base)
        if off != 0 {
            if rolling && playing && abs(off) <= Int64(jitter) {
                base -= off
            } else {
                relocate(songFrames: transportFrame)
            }
        }
        if rolling && !playing && !pastTheEnd {
            countingIn = false
            playing = true
            markPlayStart()
        } else if !rolling && playing {
            apply(TransportCommand(.pause))
            // The music stands where the transport stopped.
            relocate(songFrames: transportFrame)
        }
    }

    /// Leading JACK's transport: the bar, beat and tick of the next period, from where the music will be then
    /// (the music's own position, not the transport's frame: JACK starts rolling a couple of periods after it is
    /// asked, and the bars must be the music's), as heard: the section, pass and time there through the tempo
    /// map and ramps (`MixSnapshot.place`, the sections' clocks), bars of the section's own meter (counted from
    /// its region's first pulse) or the document's (counted from time 0), a beat being the meter's pulse (an
    /// eighth in 7/8), and the BPM the pulses per minute heard there. Bars are counted through every pass and
    /// section before (a pass holds whole bars: one that ends inside a bar ends that bar).
    func describe(_ pos: UnsafeMutablePointer<jack_position_t>) {
        guard let snap = snapshot, snap.pointee.sectionCount > 0 else { return }
        let sn = snap.pointee
        let songTime = Double(max(0, frame - base)) / rate
        var at = SongTiming.Place(songPass: 0, section: 0, pass: 0, time: 0)
        if sn.song {
            guard let p = sn.place(songTime: songTime) else { return }
            // The place's time is on the timeline; here it counts from the region's start.
            at = p
            at.time = max(0, p.time - sn.sections[p.section].start)
        } else {
            let sec = sn.sections[0]
            guard sec.span > 0 else { return }
            let m = max(0, sn.music(section: 0, atPlay: songTime))
            at.pass = Int((m / sec.span).rounded(.down))
            at.time = min(max(0, m - Double(at.pass) * sec.span), sec.span)
        }
        let sec = sn.sections[at.section]
        let grid = Self.barGrid(sec, sn)
        // Bars before this pass: every earlier song pass, section and pass of this one.
        var bars = 0
        if sn.song {
            var perSongPass = 0, before = 0
            for j in 0..<sn.sectionCount {
                let n = Self.barsPerPass(sn.sections[j], sn) * max(0, sn.sections[j].repeats)
                perSongPass += n
                if j < at.section { before += n }
            }
            bars = at.songPass * perSongPass + before
        }
        bars += at.pass * Self.barsPerPass(sec, sn)
        let u = (sec.start + at.time) / grid.pulse - grid.origin
        let first = Self.barIndex(sec.start / grid.pulse - grid.origin, grid.count)
        let inBar = Self.barIndex(u, grid.count)
        let whole = u.rounded(.down)
        let ticksPerBeat = 1920.0
        let bar = bars + inBar - first
        pos.pointee.valid = JackPositionBBT
        pos.pointee.bar = Int32(clamping: bar + 1)
        pos.pointee.beat = Int32(clamping: Int(whole) - inBar * grid.count + 1)
        pos.pointee.tick = Int32(min(ticksPerBeat - 1, ((u - whole) * ticksPerBeat).rounded(.down)))
        pos.pointee.bar_start_tick = Double(bar * grid.count) * ticksPerBeat
        pos.pointee.beats_per_bar = Float(grid.count)
        pos.pointee.beat_type = Float(grid.unit)
        pos.pointee.ticks_per_beat = ticksPerBeat
        let heard = sn.tempo(section: at.section, atMusic: Double(at.pass) * sec.span + at.time)
        pos.pointee.beats_per_minute = 60 * heard / grid.pulse
    }

    /// The bars of section `sec`: its pulse (seconds at x1), pulses a bar, the note a pulse is, and the pulse
    /// (from the timeline's 0) the bars count from: the section's own meter from its region's first pulse, else
    /// the document's from time 0 (as the click accents them).
    static func barGrid(_ sec: MixSection, _ sn: MixSnapshot) -> (pulse: Double, count: Int, unit: Int, origin: Double) {
        if sec.meter > 0 && sec.pulse > 0 {
            let first = MixClick.beats(start: sec.start, end: sec.start + sec.span, beat: sec.pulse).first
            return (sec.pulse, sec.meter, sec.unit > 0 ? sec.unit : 4, Double(first))
        }
        let unit = max(1, sn.meterUnit)
        return (sn.beat * 4 / Double(unit), max(1, sn.meter), unit, 0)
    }

    /// The bar (from 0, negative before the origin) pulse position `u` is in, bars of `count` pulses; a position
    /// within a billionth of a pulse of a bar line is on it.
    static func barIndex(_ u: Double, _ count: Int) -> Int {
        let b = u / Double(count)
        let near = b.rounded()
        return Int(abs(b - near) < 1e-9 ? near : b.rounded(.down))
    }

    /// The bars one pass of `sec` counts: from the one its region starts in to the one it ends in (a bar line on
    /// its end belongs to the next pass).
    static func barsPerPass(_ sec: MixSection, _ sn: MixSnapshot) -> Int {
        let grid = barGrid(sec, sn)
        guard grid.pulse > 0, sec.span > 0 else { return 0 }
        let first = barIndex(sec.start / grid.pulse - grid.origin, grid.count)
        let end = (sec.start + sec.span) / grid.pulse - grid.origin
        let last = barIndex(end, grid.count)
        let onLine = abs(end / Double(grid.count) - Double(last)) < 1e-9
        return max(1, (onLine ? last : last + 1) - first)
    }
}

/// The timebase callback (JACK's process thread): bar, beat and tick of the position asked.
func jackTimebase(_ state: jack_transport_state_t, _ nframes: jack_nframes_t, _ pos: UnsafeMutablePointer<jack_position_t>?,
                  _ newPosition: Int32, _ arg: UnsafeMutableRawPointer?) {
    guard let arg, let pos else { return }
    let l = arg.assumingMemoryBound(to: JackLink.self)
    l.pointee.render.pointee.describe(pos)
}
