import Foundation

/// MIDI clock out's state on the audio thread: 24 clocks per beat of the tempo heard, each on the frame of its
/// music, with Start (or Song Position and Continue) where playing starts and Stop where it stops.
struct ClockOut {
    /// Sending at all (set before the output starts).
    var on = false
    /// Playing, as the clock last said.
    var running = false
    /// The output frame where the music last started (or was moved: a rewind, a jump).
    var startFrame: Int64 = 0
    /// A start (or a move) not yet announced.
    var startPending = false
    /// The next clock: clock n falls on music position n·beat/24 of the current section (from its pass 0).
    var next = 0
    /// The section and song pass the clocks are counted in.
    var section = 0
    var songPass = 0

    mutating func started(at frame: Int64) {
        startFrame = frame
        startPending = true
    }

    /// MIDI's system real-time and common messages.
    static let tick: UInt8 = 0xF8, start: UInt8 = 0xFA, continueMessage: UInt8 = 0xFB, stop: UInt8 = 0xFC
    static let songPosition: UInt8 = 0xF2
}

extension RenderState {
    /// The frame of clock `n`: music position n·beat/24 of the current section, through the same frame arithmetic
    /// as every onset (so a tempo change, or a ramp, moves the clocks as it moves the music).
    func clockFrame(_ n: Int, _ sn: MixSnapshot) -> Int64 {
        let sec = sn.sections[section]
        let m = Double(n) * sn.beat / 24
        guard sec.span > 0 else { return Int64.max }
        let pass = Int((m / sec.span).rounded(.down))
        return base + sn.frame(songPass: songPass, section: section, pass: pass, time: m - Double(pass) * sec.span,
                               rate: rate)
    }

    /// MIDI clock out for the block just sequenced (`count` frames from `frame`): Start or Song Position and
    /// Continue on the frame playing started, the clocks falling in the block, Stop at the block where playing
    /// stopped. Appended to `midi`, which sorts the block's messages by frame.
    mutating func sendClock(count: Int) {
        guard clock.on else { return }
        let end = frame + Int64(count)
        if !playing {
            if clock.running {
                clock.running = false
                midi.emit(0, ClockOut.stop, size: 1)
            }
            clock.startPending = false
            return
        }
        guard let snap = snapshot, section < snap.pointee.sectionCount else { return }
        let sn = snap.pointee
        let tickLength = sn.beat / 24
        if clock.startPending || clock.section != section || clock.songPass != songPass {
            let at = min(max(clock.startPending ? clock.startFrame : frame, frame), end - 1)
            let m = max(0, music(at: at))
            if clock.startPending && clock.running {
                // Moved while playing (a rewind, a jump): stop, then go on from the new place.
                midi.emit(Int(at - frame), ClockOut.stop, size: 1)
            }
            if clock.startPending {
                if m < tickLength / 2 {
                    midi.emit(Int(at - frame), ClockOut.start, size: 1)
                    clock.next = 0
                } else {
                    // Song Position counts sixteenths (6 clocks); the clocks go on from the next one.
                    let sixteenths = Int((m / (tickLength * 6)).rounded(.up))
                    midi.emit(Int(at - frame), ClockOut.songPosition, UInt8(sixteenths & 0x7F),
                              UInt8((sixteenths >> 7) & 0x7F))
                    midi.emit(Int(at - frame), ClockOut.continueMessage, size: 1)
                    clock.next = sixteenths * 6
                }
            } else {
                // A new section of the song: its clocks from its start.
                clock.next = Int((m / tickLength).rounded(.up))
            }
            clock.startPending = false
            clock.running = true
            clock.section = section
            clock.songPass = songPass
        }
        while true {
            let f = clockFrame(clock.next, sn)
            guard f < end else { break }
            midi.emit(Int(max(f, frame) - frame), ClockOut.tick, size: 1)
            clock.next += 1
        }
    }
}
