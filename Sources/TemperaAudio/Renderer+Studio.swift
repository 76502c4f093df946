/// Per-track or per-slot outputs (`JackOptions.Outputs`): beside the mix, each voice's sound is added to its
/// stem, a stereo buffer per track (or slot) the output copies to that track's ports. A stem carries the voice at
/// its track's gain and its slot's pan, before the master's volume and limiter (a mixer's channel takes it from
/// there). Allocated once by the output before it starts; the render call only adds into it.
struct Stems {
    /// `count` stems of `frames` interleaved stereo frames each.
    var buffer: UnsafeMutablePointer<Float>?
    /// One voice's block, added to the mix and to its stem.
    var voice: UnsafeMutablePointer<Float>?
    var count = 0
    /// The stems this block fills (the tracks the snapshot has, or every slot): the others are not cleared.
    var live = 0
    var frames = 0
    /// By slot (1...16: stem slot - 1) rather than by track.
    var bySlot = false

    static func make(count: Int, frames: Int, bySlot: Bool) -> Stems {
        let b = UnsafeMutablePointer<Float>.allocate(capacity: max(1, count) * 2 * frames)
        b.initialize(repeating: 0, count: max(1, count) * 2 * frames)
        let v = UnsafeMutablePointer<Float>.allocate(capacity: 2 * frames)
        v.initialize(repeating: 0, count: 2 * frames)
        return Stems(buffer: b, voice: v, count: count, frames: frames, bySlot: bySlot)
    }

    func deallocate() {
        buffer?.deallocate()
        voice?.deallocate()
    }

    /// The stem a voice of `track` playing `slot` goes to; -1: the mix only (a click, a preview, a pad by track,
    /// a track past the ports).
    @inline(__always)
    func index(track: Int32, slot: Int32) -> Int {
        let k = bySlot ? Int(slot) - 1 : Int(track)
        return k >= 0 && k < live ? k : -1
    }

    /// Stem `k`'s frames (interleaved stereo).
    @inline(__always)
    func stem(_ k: Int) -> UnsafeMutablePointer<Float> { buffer! + k * 2 * frames }
}

extension RenderState {
    /// Silences the stems for a block of `count` frames.
    mutating func clearStems(count: Int) {
        guard stems.buffer != nil else { return }
        stems.live = stems.bySlot ? stems.count : min(stems.count, snapshot?.pointee.trackCount ?? 0)
        for k in 0..<stems.live { stems.stem(k).update(repeating: 0, count: 2 * count) }
    }

    /// Mixes voice `v` into the mix at `out` and into its stem `k`, `at` frames into the block: the voice alone
    /// into the stems' scratch, then added to both (adding it to silence first leaves the mix's sums exactly
    /// those of mixing it in directly).
    mutating func mixVoice(_ v: Int, stem k: Int, into out: UnsafeMutablePointer<Float>, count: Int, at: Int,
                           firstFrame: Int64, target: Float) {
        guard let scratch = stems.voice else { return }
        scratch.update(repeating: 0, count: 2 * count)
        voices[v].mix(into: scratch, count: count, firstFrame: firstFrame, targetTrackGain: target,
                      smoothing: trackSmoothing)
        let dst = stems.stem(k) + 2 * at
        for i in 0..<(2 * count) {
            out[i] += scratch[i]
            dst[i] += scratch[i]
        }
    }

    /// The playhead clock of the music heard at output frame `heard`, stamped `nanos`, with no latency left: a
    /// clock that says exactly that music at that moment (MIDI in places a hit by it, to the frame).
    func clock(heardAt heard: Int64, nanos: UInt64) -> PlayheadClock {
        var tempo = 1.0, start = 0.0, span = 0.0
        if let sn = snapshot?.pointee, section < sn.sectionCount {
            let sec = sn.sections[section]
            tempo = sec.tempo
            start = sec.start
            span = sec.span
        }
        let sameSection = section == playStartSection && songPass == playStartSongPass
        return PlayheadClock(
            nanos: nanos, music: music(at: heard), latency: 0, tempo: tempo, start: start, span: span,
            playStart: sameSection ? playStart : 0, playing: playing && !countingIn, frame: heard,
            song: Double(heard - base) / rate, songPlayStart: playStartSong, snapshot: snapshot?.pointee.seq ?? 0,
            songShift: Double(songShiftFrames) / rate)
    }
}
