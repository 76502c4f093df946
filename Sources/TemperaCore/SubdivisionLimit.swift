#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A marker's "subdivision limit": the simplest division of the beat it sits on, within the timing JND.
///
/// For a marker at t with beat b and tempo x: p = t / b beats. For each n in 1...9, k_n = round(p * n) and
/// the deviation d_n = (p - k_n / n) * b / x seconds of playback. The limit is the smallest n with
/// |d_n| <= 6 ms (the just-noticeable timing difference of Friberg and Sundberg), else the n with the
/// smallest |d_n| (ties to the smaller n).
///
/// Pure value; any thread.
public struct SubdivisionLimit: Hashable, Sendable {
    /// The largest division looked at.
    public static let maxDivision = 9
    /// The just-noticeable difference: a marker this close to a simple subdivision is "on the grid".
    public static let jnd = 0.006

    /// The bar, counted from 1.
    public var bar: Int
    /// The beat inside the bar, counted from 1.
    public var beat: Int
    /// The division of the beat: 1 the beat itself, 2 an eighth of a quarter beat, 3 a triplet...
    public var n: Int
    /// The position inside the beat, k / n, 0 <= k < n (a marker rounding to the next beat is its k = 0).
    public var k: Int
    /// Seconds of playback the marker lies after (positive) or before (negative) k / n of its beat.
    public var deviation: Double
    /// |deviation| within the JND.
    public var onGrid: Bool

    public init(bar: Int, beat: Int, n: Int, k: Int, deviation: Double, onGrid: Bool) {
        self.bar = bar
        self.beat = beat
        self.n = n
        self.k = k
        self.deviation = deviation
        self.onGrid = onGrid
    }

    /// The limit of a marker at `time` (seconds at x1) under a transport's beat, meter and tempo.
    /// With a tempo map the deviation is play time: P(k_n·b/n, t), the map's integral from the grid to the marker.
    public init(time: Double, transport: Transport, pieces: [TempoPiece]? = nil) {
        let ps = pieces ?? (transport.tempoMap.isEmpty ? [] : transport.tempoMap.pieces(base: transport.tempo))
        self.init(time: time, beat: transport.beat, meter: transport.meter, tempo: transport.tempo, pieces: ps)
    }

    /// The limit of a marker at `time` (seconds at x1) with `beat` seconds a beat at x1, `meter` beats a bar,
    /// played at `tempo`.
    public init(time: Double, beat b: Double, meter: Int, tempo: Double, pieces: [TempoPiece] = []) {
        let p = time / b
        var best: (n: Int, k: Int, d: Double)?
        for n in 1...Self.maxDivision {
            let k = (p * Double(n)).rounded()
            let d = pieces.isEmpty ? (p - k / Double(n)) * b / tempo
                : pieces.withUnsafeBufferPointer { TempoCurve.play(from: k / Double(n) * b, to: time, ps: $0.baseAddress!, count: $0.count) }
            // A hair of tolerance: 6 ms written as a time must count as within 6 ms.
            if abs(d) <= Self.jnd + 1e-12 {
                best = (n, Int(k), d)
                break
            }
            if best == nil || abs(d) < abs(best!.d) - 1e-15 { best = (n, Int(k), d) }
        }
        let (n, total, d) = best!
        // k counts from the beat's start; rounding up to the next beat is that beat's k = 0.
        let whole = total >= 0 ? total / n : (total - n + 1) / n
        let inBeat = total - whole * n
        let beatIndex = max(0, whole)
        self.init(bar: beatIndex / meter + 1, beat: beatIndex % meter + 1, n: n, k: inBeat,
                  deviation: d == 0 ? 0 : d, onGrid: abs(d) <= Self.jnd + 1e-12)
    }

    /// The deviation in milliseconds rounded to a tenth (never -0.0).
    public var deviationMs: Double {
        let v = (deviation * 10_000).rounded() / 10
        return v == 0 ? 0 : v
    }

    /// What the editor shows for the marker under the cursor: `beat 3 + 2/3 (−1.2 ms)`, `beat 1 (0.0 ms)`;
    /// late is `+`, early `−` (a minus sign).
    public var label: String {
        let position = k == 0 ? "beat \(beat)" : "beat \(beat) + \(k)/\(n)"
        return "\(position) (\(Self.milliseconds(deviationMs)))"
    }

    /// `+1.2 ms`, `−1.2 ms`, `0.0 ms`.
    static func milliseconds(_ ms: Double) -> String {
        let tenths = Int((abs(ms) * 10).rounded())
        let text = "\(tenths / 10).\(tenths % 10) ms"
        return tenths == 0 ? text : (ms > 0 ? "+" : "\u{2212}") + text
    }

    /// One line of `tempera analyse`:
    /// `{"track":1,"t":0.333333,"bar":1,"beat":1,"n":3,"k":2,"dev_ms":0.0,"on_grid":true}` (t to six
    /// decimals, the deviation to a tenth of a millisecond).
    public func json(track: Int, time: Double) -> String {
        "{\"track\":\(track),\"t\":\(Self.fixed(time, 6)),\"bar\":\(bar),\"beat\":\(beat),\"n\":\(n),\"k\":\(k),"
            + "\"dev_ms\":\(Self.fixed(deviationMs, 1)),\"on_grid\":\(onGrid)}"
    }

    /// `v` with exactly `places` decimals, no exponent, never `-0`.
    static func fixed(_ v: Double, _ places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        let negative = v < 0 && scaled != 0
        // Exact for every time a document holds (up to 1e7 s at six places is below 2^53).
        let whole = UInt64(scaled)
        let p = UInt64(scale)
        var frac = String(whole % p)
        while frac.count < places { frac = "0" + frac }
        return (negative ? "-" : "") + "\(whole / p)" + (places > 0 ? "." + frac : "")
    }
}
