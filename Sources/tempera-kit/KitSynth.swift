import CSndfile
import Foundation

/// The synthesis behind the default kit: oscillators, seeded noise, biquad filters and envelopes.
struct KitSynth {
    static let rate = 48_000.0
    /// Every sound is normalised to this peak: -3 dBFS.
    static let peak = 0.7079

    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    private var state: UInt64

    init(seed: UInt64) { state = seed | 1 }

    /// Uniform white noise in -1...1 (xorshift64*, seeded per sound).
    mutating func noise() -> Double {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        let x = state &* 0x2545_F491_4F6C_DD1D
        return Double(x >> 11) / Double(1 << 52) - 1
    }

    func frames(_ seconds: Double) -> Int { Int(seconds * Self.rate) }

    /// An RBJ biquad, run in place.
    struct Biquad {
        var b0 = 0.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
        var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

        enum Kind { case lowPass, highPass, bandPass }

        init(_ kind: Kind, _ freq: Double, q: Double = 0.707) {
            let w = 2 * Double.pi * freq / KitSynth.rate
            let alpha = sin(w) / (2 * q), c = cos(w)
            let a0 = 1 + alpha
            switch kind {
            case .lowPass:
                b0 = (1 - c) / 2; b1 = 1 - c; b2 = (1 - c) / 2
            case .highPass:
                b0 = (1 + c) / 2; b1 = -(1 + c); b2 = (1 + c) / 2
            case .bandPass:
                b0 = alpha; b1 = 0; b2 = -alpha
            }
            a1 = -2 * c; a2 = 1 - alpha
            b0 /= a0; b1 /= a0; b2 /= a0; a1 /= a0; a2 /= a0
        }

        mutating func run(_ x: Double) -> Double {
            let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
            x2 = x1; x1 = x; y2 = y1; y1 = y
            return y
        }

        static func apply(_ kind: Kind, _ freq: Double, q: Double = 0.707, to s: [Double]) -> [Double] {
            var f = Biquad(kind, freq, q: q)
            return s.map { f.run($0) }
        }
    }

    /// Exponential decay reaching -60 dB after `t60` seconds.
    func decay(_ i: Int, _ t60: Double) -> Double { exp(-6.9078 * Double(i) / (t60 * Self.rate)) }

    /// The sum of square waves at the TR-808's inharmonic "metal" frequencies, scaled by `ratio`.
    func metal(_ n: Int, ratio: Double) -> [Double] {
        let freqs = [205.3, 304.4, 369.6, 522.7, 540.0, 800.0].map { $0 * ratio }
        return (0..<n).map { i in
            freqs.reduce(0.0) { acc, f in
                let phase = (Double(i) * f / Self.rate).truncatingRemainder(dividingBy: 1)
                return acc + (phase < 0.5 ? 1 : -1)
            } / Double(freqs.count)
        }
    }

    /// A sine whose pitch falls exponentially from `f0` to `f1` with time constant `tau` seconds.
    func sweep(_ n: Int, from f0: Double, to f1: Double, tau: Double, t60: Double) -> [Double] {
        var phase = 0.0
        return (0..<n).map { i in
            let t = Double(i) / Self.rate
            let f = f1 + (f0 - f1) * exp(-t / tau)
            let s = sin(2 * Double.pi * phase) * decay(i, t60)
            phase += f / Self.rate
            return s
        }
    }

    mutating func noiseBurst(_ n: Int) -> [Double] { (0..<n).map { _ in noise() } }

    static func mix(_ parts: [([Double], Double)]) -> [Double] {
        let n = parts.map { $0.0.count }.max() ?? 0
        var out = [Double](repeating: 0, count: n)
        for (s, g) in parts { for i in s.indices { out[i] += s[i] * g } }
        return out
    }

    mutating func sound(named name: String) -> [Double] {
        switch name {
        case "kick":
            let n = frames(0.7)
            let body = sweep(n, from: 160, to: 48, tau: 0.045, t60: 0.55)
            let click = Biquad.apply(.highPass, 1800, to: noiseBurst(frames(0.006))).enumerated().map { $1 * decay($0, 0.006) }
            return Self.mix([(body, 1), (click, 0.35)])
        case "snare":
            let n = frames(0.35)
            let tone = Self.mix([(sweep(n, from: 200, to: 180, tau: 0.02, t60: 0.12), 1),
                                 (sweep(n, from: 340, to: 330, tau: 0.02, t60: 0.08), 0.6)])
            let rattle = Biquad.apply(.highPass, 1200, to: noiseBurst(n)).enumerated().map { $1 * decay($0, 0.22) }
            return Self.mix([(tone, 0.55), (rattle, 0.8)])
        case "closed-hat":
            let n = frames(0.12)
            let m = Biquad.apply(.highPass, 7000, to: Self.mix([(metal(n, ratio: 1), 1), (noiseBurst(n), 0.6)]))
            return m.enumerated().map { $1 * decay($0, 0.07) }
        case "open-hat":
            let n = frames(0.75)
            let m = Biquad.apply(.highPass, 6500, to: Self.mix([(metal(n, ratio: 1), 1), (noiseBurst(n), 0.5)]))
            return m.enumerated().map { $1 * decay($0, 0.65) }
        case "clap":
            let n = frames(0.35)
            let src = Biquad.apply(.bandPass, 1100, q: 1.2, to: noiseBurst(n))
            let starts = [0.0, 0.011, 0.023, 0.034]
            return src.enumerated().map { i, s in
                let t = Double(i) / Self.rate
                var env = 0.0
                for st in starts where t >= st { env = max(env, exp(-(t - st) / 0.004)) }
                if t >= starts.last! { env = max(env, 0.55 * exp(-(t - starts.last!) / 0.07)) }
                return s * env
            }
        case "rim":
            let n = frames(0.09)
            let tone = Self.mix([(sweep(n, from: 1700, to: 1650, tau: 0.01, t60: 0.045), 1),
                                 (sweep(n, from: 520, to: 500, tau: 0.01, t60: 0.05), 0.5)])
            let click = Biquad.apply(.highPass, 3000, to: noiseBurst(frames(0.004)))
            return Self.mix([(tone, 1), (click, 0.4)])
        case "low-tom":
            return sweep(frames(0.6), from: 120, to: 88, tau: 0.08, t60: 0.5)
        case "mid-tom":
            return sweep(frames(0.5), from: 170, to: 128, tau: 0.07, t60: 0.42)
        case "high-tom":
            return sweep(frames(0.45), from: 240, to: 185, tau: 0.06, t60: 0.36)
        case "cowbell":
            let n = frames(0.4)
            let sq = (0..<n).map { i -> Double in
                let t = Double(i) / Self.rate
                let a = (t * 540).truncatingRemainder(dividingBy: 1) < 0.5 ? 1.0 : -1.0
                let b = (t * 800).truncatingRemainder(dividingBy: 1) < 0.5 ? 1.0 : -1.0
                return (a + b) * (0.6 * decay(i, 0.05) + 0.4 * decay(i, 0.35))
            }
            return Biquad.apply(.bandPass, 900, q: 2.5, to: sq)
        case "shaker":
            let n = frames(0.2)
            let hp = Biquad.apply(.highPass, 5000, to: noiseBurst(n))
            return hp.enumerated().map { i, s in
                let t = Double(i) / Self.rate
                let env = t < 0.025 ? t / 0.025 : exp(-(t - 0.025) / 0.035)
                return s * env * env
            }
        case "ride":
            let n = frames(1.4)
            // Less wash than a crash and a clear bell ping on top, so it reads as a ride pattern.
            let m = Biquad.apply(.highPass, 5000, to: Self.mix([(metal(n, ratio: 1.9), 1), (noiseBurst(n), 0.1)]))
            let ping = Self.mix([(sweep(n, from: 3200, to: 3150, tau: 0.1, t60: 0.7), 1),
                                 (sweep(n, from: 4870, to: 4850, tau: 0.1, t60: 0.45), 0.5)])
            return Self.mix([(m.enumerated().map { $1 * decay($0, 1.2) }, 0.8), (ping, 0.45)])
        case "crash":
            let n = frames(1.45)
            let m = Biquad.apply(.highPass, 3000, to: Self.mix([(metal(n, ratio: 1.4), 0.6), (noiseBurst(n), 1)]))
            return m.enumerated().map { i, s in
                let t = Double(i) / Self.rate
                return s * min(1, t / 0.002) * decay(i, 1.35)
            }
        case "clave":
            return sweep(frames(0.12), from: 2500, to: 2450, tau: 0.01, t60: 0.09)
        case "woodblock":
            let n = frames(0.15)
            return Self.mix([(sweep(n, from: 1050, to: 1000, tau: 0.005, t60: 0.1), 1),
                             (sweep(n, from: 2700, to: 2650, tau: 0.005, t60: 0.04), 0.35)])
        case "conga":
            let n = frames(0.45)
            let slap = Biquad.apply(.bandPass, 2000, q: 1, to: noiseBurst(frames(0.01)))
                .enumerated().map { $1 * decay($0, 0.01) }
            return Self.mix([(sweep(n, from: 380, to: 330, tau: 0.015, t60: 0.35), 1), (slap, 0.3)])
        case "note":
            // A mallet tone on middle C (MIDI 60, 261.63 Hz), what a MIDI-note slot without a file plays: pitched
            // to its note, it sounds that note. Fundamental plus the bar's 4th partial, which dies away quickly.
            let n = frames(1.2)
            return (0..<n).map { i in
                let t = Double(i) / Self.rate
                let f = 261.6256
                return sin(2 * Double.pi * f * t) * decay(i, 1.1) + 0.35 * sin(2 * Double.pi * f * 3.93 * t) * decay(i, 0.15)
            }
        default:
            return []
        }
    }

    /// Trims the silent tail, fades the last 15 % out (so nothing clicks at the end) and normalises to -3 dBFS.
    static func finish(_ s: [Double]) -> [Double] {
        var out = s
        var end = out.count
        while end > 1, abs(out[end - 1]) < 0.0005 { end -= 1 }
        out.removeSubrange(end...)
        let fade = max(1, out.count * 15 / 100)
        for k in 0..<fade {
            let x = Double(k + 1) / Double(fade)
            out[out.count - fade + k] *= 0.5 * (1 + cos(Double.pi * x))
        }
        let m = out.map(abs).max() ?? 0
        if m > 0 { out = out.map { $0 * peak / m } }
        return out
    }

    static func writeWAV(_ s: [Double], to path: String) throws {
        var info = SF_INFO()
        info.samplerate = Int32(rate)
        info.channels = 1
        info.format = Int32(SF_FORMAT_WAV) | Int32(SF_FORMAT_PCM_24)
        guard let f = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw WriteError(description: "cannot write \(path): \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(f) }
        let written = s.withUnsafeBufferPointer { sf_writef_double(f, $0.baseAddress, sf_count_t($0.count)) }
        guard written == s.count else { throw WriteError(description: "short write to \(path)") }
    }
}
