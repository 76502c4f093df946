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
    var countInGroups: UInt64 = 0
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
    /// Per-track or per-slot outputs, set by the output before it starts (none by default).
    var stems = Stems()

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
        s.pointee.clearStems(count: count)
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
    mutating func aimStart() {
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
    mutating func aim(_ target: Int64) {
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
}
