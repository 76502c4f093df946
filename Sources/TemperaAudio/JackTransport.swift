import CJack
import TemperaCore

/// JACK transport (`--transport`): follow its rolling state and position, or lead it as timebase master with
/// bars and beats from the document's beat and meter.
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
    /// where the transport's frame says (moved there when it differs, by a relocation).
    mutating func followTransport(rolling: Bool, frame transportFrame: Int64) {
        let songFrames = frame - base
        if songFrames != transportFrame { relocate(songFrames: transportFrame) }
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
    /// asked, and the bars must be the music's) with the music's beat and meter (the loop's tempo; bars of
    /// `meter` beats from the start of pass 0).
    func describe(_ pos: UnsafeMutablePointer<jack_position_t>) {
        guard let snap = snapshot, snap.pointee.sectionCount > 0 else { return }
        let sn = snap.pointee
        let tempo = sn.sections[min(section, sn.sectionCount - 1)].tempo
        let meter = max(1, sn.meter)
        let ticksPerBeat = 1920.0
        let beats = Double(max(0, frame - base)) / rate * tempo / sn.beat
        let whole = beats.rounded(.down)
        pos.pointee.valid = JackPositionBBT
        pos.pointee.bar = Int32(Int(whole) / meter + 1)
        pos.pointee.beat = Int32(Int(whole) % meter + 1)
        pos.pointee.tick = Int32(((beats - whole) * ticksPerBeat).rounded(.down))
        pos.pointee.bar_start_tick = Double(Int(whole) / meter * meter) * ticksPerBeat
        pos.pointee.beats_per_bar = Float(meter)
        pos.pointee.beat_type = 4
        pos.pointee.ticks_per_beat = ticksPerBeat
        pos.pointee.beats_per_minute = Transport.bpm(tempo: tempo, beat: sn.beat)
    }
}

/// The timebase callback (JACK's process thread): bar, beat and tick of the position asked.
func jackTimebase(_ state: jack_transport_state_t, _ nframes: jack_nframes_t, _ pos: UnsafeMutablePointer<jack_position_t>?,
                  _ newPosition: Int32, _ arg: UnsafeMutableRawPointer?) {
    guard let arg, let pos else { return }
    let l = arg.assumingMemoryBound(to: JackLink.self)
    l.pointee.render.pointee.describe(pos)
}
