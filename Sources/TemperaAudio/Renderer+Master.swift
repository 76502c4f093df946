import Foundation
import TemperaCore

/// The master bus (volume, limiter, last guard) and what each block publishes.
extension RenderState {
    mutating func applyMaster(_ out: UnsafeMutablePointer<Float>, count: Int) {
        let target = snapshot?.pointee.volume ?? 0
        if !anyVoiceSounded { master = target }
        var m = master
        let k = masterSmoothing
        // The output's own pan (a player's, to tell players apart): the far side fades, the near one stays.
        let pan = Float(shared.pointee.outputPan.load(ordering: .relaxed)) / 1000
        let left: Float = pan > 0 ? 1 - pan : 1, right: Float = pan < 0 ? 1 + pan : 1
        let limit = Self.limit
        // Settled (the volume reached, the limiter's gain at 1, no output pan) and below the ceiling: the common
        // case, one multiply a sample, the very numbers the frame-by-frame path below gives (it changes nothing
        // there). A NaN or a frame over the ceiling takes the full path.
        if m == target && limiterGain == 1 && left == 1 && right == 1 {
            var fits = true
            for i in 0..<(2 * count) where !(abs(out[i] * m) <= limit) {
                fits = false
                break
            }
            if fits {
                if m != 1 { for i in 0..<(2 * count) { out[i] *= m } }
                return
            }
        }
        var finite = true
        var g = limiterGain
        let release = limiterRelease
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

    /// The master's ceiling, -0.3 dBFS (0.9661): the limiter keeps every frame at or below it, and below it,
    /// with the limiter's gain back at 1, the mix passes bit for bit (the master is a safety net, not an effect:
    /// a clip peaking at 0.95 comes out exactly as it went in).
    static let limit: Float = 0.966_050_9
    /// Where the master's soft clip starts: the ceiling, so the limiter keeps the mix from ever reaching it (it
    /// stays as the last guard).
    static let clipKnee: Float = limit
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
    func publishSlots() {
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
