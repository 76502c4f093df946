#if canImport(Glibc)
import Glibc
#endif
import TemperaCore

extension AudioImport {
    /// The band filters of `split`, run block after block (their state kept between blocks): low, middle, high.
    struct BandFilters {
        struct Stage {
            var f: Biquad
            var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
            mutating func run(_ x: Double) -> Double {
                let y = f.b0 * x + f.b1 * x1 + f.b2 * x2 - f.a1 * y1 - f.a2 * y2
                x2 = x1; x1 = x; y2 = y1; y1 = y
                return y
            }
        }
        var chains: [[Stage]]

        init(rate: Double) {
            let lp = Biquad.lowpass(lowEdge, rate: rate), hpm = Biquad.highpass(middleEdges.0, rate: rate)
            let lpm = Biquad.lowpass(middleEdges.1, rate: rate), hp = Biquad.highpass(highEdge, rate: rate)
            chains = [[lp, lp], [hpm, hpm, lpm], [hp, hp]].map { $0.map { Stage(f: $0) } }
        }

        /// Each band's output for these samples, appended to `into`.
        mutating func run(_ x: UnsafeBufferPointer<Float>, into out: inout [[Float]]) {
            for b in chains.indices {
                out[b].reserveCapacity(out[b].count + x.count)
                for v in x {
                    var y = Double(v)
                    for s in chains[b].indices { y = chains[b][s].run(y) }
                    out[b].append(Float(y))
                }
            }
        }
    }

    /// The energy each band gains over the 30 ms after frame `start` (up to `next`) against the same length
    /// before it, as at 48 kHz and over 30 ms, over `bandScales`. `bands` hold frames from `offset` on.
    static func rise(_ bands: [[Float]], offset: Int, start: Int, next: Int?, rate: Double) -> [Double] {
        let length = max(1, min(Int(0.030 * rate), (next ?? Int.max / 2) - start))
        let perFrame = 48_000 / rate
        return bands.enumerated().map { b, y in
            var after = 0.0, before = 0.0
            let s = start - offset
            for k in max(0, s)..<max(0, min(s + length, y.count)) { after += Double(y[k] * y[k]) }
            for k in max(0, s - length)..<max(0, min(s, y.count)) { before += Double(y[k] * y[k]) }
            return max(0, after - before) * perFrame * (0.030 * rate / Double(length)) / bandScales[b]
        }
    }

    /// Each onset's bands from its band rises (`rise`): explained by least squares as a non-negative mix of the
    /// kick, snare and hat profiles (`bandProfiles`); the strongest, and any at least `bandShare` of it.
    static func classify(_ onsets: [Onset], rises: [[Double]]) -> [Onset] {
        var out = onsets
        for i in out.indices {
            let mix = nonNegativeMix(rises[i])
            let best = mix.indices.max { mix[$0] < mix[$1] }!
            var chosen = [Band(rawValue: best)!]
            for b in mix.indices where b != best && mix[b] >= bandShare * mix[best] && mix[b] > 0 {
                chosen.append(Band(rawValue: b)!)
            }
            out[i].bands = chosen
        }
        return out
    }
}
