/// One sounding sample: where it reads, how loud, and its envelope. A plain struct in a preallocated pool.
struct Voice {
    enum Stage: UInt8 { case attack, sustain, decay, release }

    var active = false
    /// Taken for a newer voice (polyphony limit): fading out, no longer counted.
    var stolen = false
    /// The track whose gain it follows and whose `-` cuts it; negative for a click or a pad, which play at unit
    /// gain and no `-` cuts (`RenderState.clickTrack`, `padTrack`).
    var track: Int32 = 0
    /// The slot (1...16) it plays, and that slot's choke group (0: none).
    var slot: Int32 = 0
    var choke: Int32 = 0
    var data: UnsafePointer<Float>?
    var frames = 0
    var position = 0
    /// Marker amplitude times slot gain.
    var gain: Float = 0
    /// The slot's pan, as the gains of the left and right channels (1 and 1 at the centre).
    var panLeft: Float = 1
    var panRight: Float = 1
    /// The track's gain, smoothed so mute, solo and gain changes never click.
    var trackGain: Float = 0
    var level: Float = 0
    var stage = Stage.attack
    var attackStep: Float = 1
    var decayStep: Float = 0
    var releaseFrames = 1
    var releaseStep: Float = 0
    /// The output frame where a gate closes (Int64.max: never).
    var releaseAt = Int64.max
    /// Where the gate closes in musical terms (pass, seconds after the region's start), so a tempo change while
    /// the gate is open moves its end with the music.
    var gatePass = 0
    var gateTime = 0.0
    /// The section and song pass of the gate's pass (0 for the loop).
    var gateSection = 0
    var gateSongPass = 0
    /// The snapshot whose sample this voice reads: kept alive while the voice sounds.
    var seq = 0
    /// Start order, for stealing the oldest.
    var order: UInt64 = 0

    /// Begins the release from the current level over `frames` frames.
    @inline(__always)
    mutating func release(over frames: Int) {
        if stage == .release && releaseStep >= level / Float(max(frames, 1)) { return }
        stage = .release
        releaseStep = max(level / Float(max(frames, 1)), 1e-9)
        releaseAt = Int64.max
    }

    /// Frames until it falls silent, as things stand after output frame `now` - 1: the rest of the sample, or
    /// less when a release, a decay or a gate's close ends it first.
    func remainingFrames(now: Int64) -> Int {
        guard active else { return 0 }
        var left = max(0, frames - position)
        switch stage {
        case .release: left = min(left, Int((level / max(releaseStep, 1e-9)).rounded(.up)))
        case .decay where decayStep > 0: left = min(left, Int((level / decayStep).rounded(.up)))
        default: break
        }
        if stage != .release && releaseAt != Int64.max {
            left = min(left, Int(max(0, releaseAt - now)) + releaseFrames)
        }
        return left
    }

    /// Adds `count` frames into `out` (interleaved stereo), the first of them being output frame `firstFrame`.
    @inline(__always)
    mutating func mix(into out: UnsafeMutablePointer<Float>, count: Int, firstFrame: Int64, targetTrackGain: Float,
                      smoothing: Float) {
        guard let data else { active = false; return }
        var i = 0
        var pos = position
        var lvl = level
        var tg = trackGain
        while i < count {
            if pos >= frames { active = false; break }
            if stage == .sustain && tg == targetTrackGain {
                // The common case, at full level and a settled track gain: a plain multiply-add run up to the
                // sample's end or the gate's close. Same arithmetic as the general path below.
                var run = min(count - i, frames - pos)
                if releaseAt != Int64.max {
                    let untilRelease = releaseAt - (firstFrame + Int64(i))
                    if untilRelease < Int64(run) { run = max(0, Int(untilRelease)) }
                }
                if run > 0 {
                    let g = lvl * gain * tg
                    let gl = g * panLeft, gr = g * panRight
                    let src = data + 2 * pos
                    let dst = out + 2 * i
                    for j in 0..<run {
                        dst[2 * j] += src[2 * j] * gl
                        dst[2 * j + 1] += src[2 * j + 1] * gr
                    }
                    pos += run
                    i += run
                    continue
                }
            }
            if stage != .release && firstFrame + Int64(i) >= releaseAt {
                level = lvl
                release(over: releaseFrames)
            }
            switch stage {
            case .attack:
                lvl += attackStep
                if lvl >= 1 { lvl = 1; stage = decayStep > 0 ? .decay : .sustain }
            case .sustain:
                break
            case .decay:
                lvl -= decayStep
                if lvl <= 0 { lvl = 0; active = false }
            case .release:
                lvl -= releaseStep
                if lvl <= 0 { lvl = 0; active = false }
            }
            if !active { break }
            tg += (targetTrackGain - tg) * smoothing
            // Land exactly on the target (the fast path needs equality; the last step is inaudible).
            if abs(targetTrackGain - tg) <= 1e-5 { tg = targetTrackGain }
            let g = lvl * gain * tg
            out[2 * i] += data[2 * pos] * (g * panLeft)
            out[2 * i + 1] += data[2 * pos + 1] * (g * panRight)
            pos += 1
            i += 1
        }
        position = pos
        level = lvl
        trackGain = tg
        if tg < 1e-6 && targetTrackGain == 0 { active = false }
    }
}
