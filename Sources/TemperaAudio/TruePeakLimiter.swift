import Foundation

/// A look-ahead limiter on the true peak (the peak between samples, as a converter reconstructs it), for renders:
/// it holds the signal's 4x-oversampled peak at or below a ceiling, and passes everything bit for bit where the
/// true peak stays below it. Offline only (it allocates); the output lags the input by `delay` frames, which
/// `flush` returns at the end, so a render keeps its length.
///
/// The oversampling is ITU-R BS.1770-4's (annex 2: a 48-tap, 4-phase interpolator). Each frame's needed gain
/// (ceiling over its true peak) is held as a minimum over the look-ahead and the interpolator's reach, released
/// exponentially, and averaged over the look-ahead: the gain falls smoothly to the needed one before the peak
/// (no step, which would itself make new peaks between samples) and is at or below it wherever the interpolator
/// sees the peak.
struct TruePeakLimiter {
    let ceiling: Float
    /// Frames of look-ahead: the gain's fall before a peak (about 1.5 ms).
    let lookahead: Int
    /// How much of the way back to 1 the gain goes each frame (a 50 ms time constant).
    let release: Float
    /// Frames between a frame entering and leaving.
    var delay: Int { lookahead + 2 * Self.reach }

    /// The interpolator's 12 taps reach 6 frames each side of the point it estimates.
    static let reach = 6
    static let taps = 12
    /// The four phases of the interpolator, 12 taps each (ITU-R BS.1770-4, annex 2).
    static let phases: [[Float]] = [
        [0.0017089843750, 0.0109863281250, -0.0196533203125, 0.0332031250000, -0.0594482421875, 0.1373291015625,
         0.9721679687500, -0.1022949218750, 0.0476074218750, -0.0266113281250, 0.0148925781250, -0.0083007812500],
        [-0.0291748046875, 0.0292968750000, -0.0517578125000, 0.0891113281250, -0.1665039062500, 0.4650878906250,
         0.7797851562500, -0.2003173828125, 0.1015625000000, -0.0582275390625, 0.0330810546875, -0.0189208984375],
        [-0.0189208984375, 0.0330810546875, -0.0582275390625, 0.1015625000000, -0.2003173828125, 0.7797851562500,
         0.4650878906250, -0.1665039062500, 0.0891113281250, -0.0517578125000, 0.0292968750000, -0.0291748046875],
        [-0.0083007812500, 0.0148925781250, -0.0266113281250, 0.0476074218750, -0.1022949218750, 0.9721679687500,
         0.1373291015625, -0.0594482421875, 0.0332031250000, -0.0196533203125, 0.0109863281250, 0.0017089843750],
    ]

    /// The input, interleaved stereo, from frame `first` on (frames before `first` are dropped as they leave).
    private var input: [Float] = []
    private var first = 0
    /// Frames taken in, and the needed gain of each frame whose true peak is known (`needed[k - neededFirst]`).
    private var received = 0
    private var needed: [Float] = []
    private var neededFirst = 0
    /// Frames handed out, the released gain of the last, the running sum of the last `lookahead` released gains.
    private var emitted = 0
    private var released: Float = 1
    private var window: [Float]
    private var windowSum: Double
    private var windowAt = 0
    /// How many of the window's gains are below 1.
    private var below = 0
    /// The last frame whose needed gain is below 1 (the hold can skip the search when none is in reach).
    private var lastLimited = Int.min / 2

    init(ceiling: Float, sampleRate: Double) {
        self.ceiling = ceiling
        lookahead = max(8, Int(0.0015 * sampleRate))
        release = Float(1 - exp(-1 / (0.050 * sampleRate)))
        window = [Float](repeating: 1, count: lookahead)
        windowSum = Double(lookahead)
    }

    /// The true peak at frame `k` of `samples` (interleaved stereo, zeros outside): the largest of the frame and
    /// the three points the interpolator puts between it and the next, on either side.
    static func truePeak(of samples: [Float], at k: Int) -> Float {
        samples.withUnsafeBufferPointer { truePeak($0, first: 0, frames: samples.count / 2, at: k) }
    }

    /// The true peak at frame `k` of `x`, which holds frames `first..<first + frames` (zeros outside).
    static func truePeak(_ x: UnsafeBufferPointer<Float>, first: Int, frames: Int, at k: Int) -> Float {
        var peak: Float = 0
        for p in 0..<4 {
            var l: Float = 0, r: Float = 0
            // Phase p's taps, centred between frame k and k + 1.
            for t in 0..<taps {
                let f = k + reach - t - first
                guard f >= 0, f < frames else { continue }
                let c = phases[p][t]
                l += c * x[2 * f]
                r += c * x[2 * f + 1]
            }
            peak = max(peak, abs(l), abs(r))
        }
        let f = k - first
        guard f >= 0, f < frames else { return peak }
        return max(peak, abs(x[2 * f]), abs(x[2 * f + 1]))
    }

    /// Takes the frames of `samples` (interleaved stereo) and appends to `out` those that are ready: all but the
    /// last `delay` taken so far.
    mutating func process(_ samples: UnsafeBufferPointer<Float>, into out: inout [Float]) {
        input.append(contentsOf: samples)
        received += samples.count / 2
        settle(known: received, emitUpTo: .max, into: &out)
    }

    /// Appends the frames still held, as if silence followed (the render's end).
    mutating func flush(into out: inout [Float]) {
        settle(known: received + delay, emitUpTo: received, into: &out)
    }

    private mutating func settle(known: Int, emitUpTo last: Int, into out: inout [Float]) {
        let reach = Self.reach
        // Needed gains of the frames whose interpolator reach is in.
        input.withUnsafeBufferPointer { x in
            while neededFirst + needed.count + reach < known {
                let k = neededFirst + needed.count
                let tp = Self.truePeak(x, first: first, frames: received - first, at: k)
                let g: Float = tp > ceiling ? ceiling / tp : 1
                if g < 1 { lastLimited = k }
                needed.append(g)
            }
        }
        // Frame j goes out once the needed gains through j + lookahead + reach are known.
        while emitted + lookahead + reach < neededFirst + needed.count && emitted < last {
            let j = emitted
            // The hold: the least needed gain from j - reach to j + lookahead + reach. Averaged over the last
            // `lookahead` frames, every gain within `reach` of a peak is at most what that peak needs.
            var hold: Float = 1
            if lastLimited >= j - reach {
                for m in (j - reach)...(j + lookahead + reach) where m >= neededFirst {
                    hold = min(hold, needed[m - neededFirst])
                }
            }
            released = min(hold, released + (1 - released) * release)
            // Back to exactly 1 once within a hundredth of a dB, so unlimited material passes bit for bit again.
            if released >= 0.999 && hold == 1 { released = 1 }
            if window[windowAt] < 1 { below -= 1 }
            if released < 1 { below += 1 }
            windowSum += Double(released) - Double(window[windowAt])
            window[windowAt] = released
            windowAt = (windowAt + 1) % lookahead
            if below == 0 { windowSum = Double(lookahead) }
            let gain: Float = below == 0 ? 1 : min(1, Float(windowSum / Double(lookahead)))
            let f = 2 * (j - first)
            let l = f < input.count ? input[f] : 0, r = f < input.count ? input[f + 1] : 0
            out.append(gain * l)
            out.append(gain * r)
            emitted += 1
        }
        // Drop what no later frame reads: the input before the next frame out and the interpolator's reach back,
        // the needed gains before the next hold's start.
        let inputKeep = min(emitted, neededFirst + needed.count - reach - 1)
        if inputKeep - first > 16_384 {
            input.removeFirst(2 * (inputKeep - first))
            first = inputKeep
        }
        let neededKeep = emitted - reach
        if neededKeep - neededFirst > 16_384 {
            needed.removeFirst(neededKeep - neededFirst)
            neededFirst = neededKeep
        }
    }
}
