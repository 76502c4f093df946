#if canImport(Glibc)
import Glibc
#endif
import TemperaCore

extension AudioImport {
    /// A recording's tempo and meter: how many beats its loop holds, and where the grid lies.
    public struct Tempo: Sendable, Equatable {
        /// Beats a minute.
        public var bpm: Double
        /// Beats a bar (4 or 3).
        public var meter: Int
        /// Grid steps a beat (4: sixteenths; 3: triplets).
        public var steps: Int
        /// Where the grid's first bar starts, and the loop: whole bars of the grid (seconds).
        public var start: Double
        public var end: Double
        /// Excess of onsets on the grid over chance (0...1): how well the grid explains the onsets.
        public var fit: Double
        /// True when the loop is the whole file (its length was whole bars); false when only the onsets' period
        /// was found.
        public var wholeFile: Bool
        public var beat: Double { 60 / bpm }
    }

    /// The tempo range a beat is counted in: 92 to 184 BPM, an octave, so halving and doubling never give a choice.
    public static let tempoRange = 92.0..<184.0

    /// The tempo of a recording of `duration` seconds with these onsets (times and peaks).
    ///
    /// A loop is whole bars. Each count of 1, 2, 4, 8... bars of 4/4 or 3/4 (or one or two beats) that puts the beat in `tempoRange` is a
    /// candidate; each is scored by how many onsets (weighted by their peaks) lie within 10 ms (or a fifth of a
    /// step) of its grid of sixteenths or triplets anchored at the file's start, less the share a grid of that
    /// density would catch by chance. The best candidate wins (ties go to 4/4 and to sixteenths). When
    /// no candidate explains the onsets well (a fit below 0.6, and the onsets' own period's fit 0.25 higher:
    /// a recording that is not a loop, with silence before the first hit or a tail after the last), the grid is
    /// the onsets' own period (`grid`) from the first onset, and the loop the whole bars it covers. Nothing here depends on the sample rate: only times in seconds are used.
    public static func tempo(duration: Double, onsets: [Onset]) -> Tempo? {
        let times = onsets.map(\.time), weights = onsets.map { max($0.peak, 1e-6) }
        guard times.count >= 2, duration > 0 else { return nil }
        let total = weights.reduce(0, +)

        func fit(beat: Double, steps: Int, anchor: Double) -> Double {
            let step = beat / Double(steps)
            let tolerance = min(0.010, step / 5)
            var on = 0.0
            for (t, w) in zip(times, weights) {
                let x = (t - anchor) / step
                if abs(x - x.rounded()) * step <= tolerance { on += w }
            }
            return on / total - 2 * tolerance / step
        }

        // The beat the onsets on the grid say, the grid anchored at 0 (least squares through the origin of each
        // onset on its grid line): a loop cut a little short or long keeps the tempo it was played at.
        func refined(_ bpm: Double, steps: Int) -> Double {
            let step = 60 / bpm / Double(steps)
            let tolerance = min(0.010, step / 5)
            var skt = 0.0, skk = 0.0
            for t in times {
                let k = (t / step).rounded()
                guard k > 0, abs(t - k * step) <= tolerance else { continue }
                skt += k * t
                skk += k * k
            }
            guard skk > 0 else { return bpm }
            let fitted = 60 / (skt / skk * Double(steps))
            return abs(fitted / bpm - 1) < 0.05 ? fitted : bpm
        }

        var best: Tempo?
        // Whole bars of 4/4 or 3/4, or one or two beats (a loop shorter than a bar).
        let powers = (0...6).map { 1 << $0 }
        let counts = [(1, 4), (2, 4)] + powers.map { ($0 * 4, 4) } + powers.map { ($0 * 3, 3) }
        for (n, meter) in counts {
            do {
                let beats = Double(n)
                let bpm = 60 * beats / duration
                guard tempoRange.contains(bpm) else { continue }
                for steps in [4, 3] {
                    var score = fit(beat: duration / beats, steps: steps, anchor: 0)
                    // The usual shapes win a tie: 4/4, sixteenths, a power of two of bars.
                    if meter == 4 { score += 0.02 }
                    if steps == 4 { score += 0.01 }
                    if best.map({ score > $0.fit }) ?? true {
                        best = Tempo(bpm: refined(bpm, steps: steps), meter: meter, steps: steps, start: 0, end: duration,
                                     fit: score, wholeFile: true)
                    }
                }
            }
        }
        if let b = best, b.fit >= 0.6 { return b }
        // Not a loop of whole bars: the onsets' own period.
        guard let g = grid(times) else { return best }
        var bpm = Transport.bpm(tempo: 1, beat: g.step)
        while bpm >= tempoRange.upperBound { bpm /= 2 }
        while bpm < tempoRange.lowerBound { bpm *= 2 }
        let beat = 60 / bpm
        let start = times[0]
        let bars = max(1, Int(((duration - start) / (4 * beat)).rounded(.down)))
        let free = Tempo(bpm: bpm, meter: 4, steps: 4, start: start, end: start + Double(bars) * 4 * beat,
                         fit: fit(beat: beat, steps: 4, anchor: start), wholeFile: false)
        // The length is the stronger prior: the onsets' own period wins only when it explains them much better.
        if let b = best, b.fit >= free.fit - 0.25 { return b }
        return free
    }

    /// The document's musical time set to a tempo: its beat, meter, a grid of its steps, and (for a loop) the loop.
    public static func apply(_ tempo: Tempo, to doc: inout Document) {
        doc.transport.beat = min(max(tempo.beat, Transport.beatRange.lowerBound), Transport.beatRange.upperBound)
        doc.transport.meter = tempo.meter
        doc.transport.meterUnit = 4
        doc.transport.meterGroups = nil
        doc.transport.grid = tempo.steps
        // A loop's bars are the whole file; a recording that is not a loop keeps the whole file as its loop (the
        // grid starts at 0, where its first onset need not be), so a sliced recording still plays whole.
        if tempo.wholeFile, tempo.end > tempo.start, tempo.end <= doc.transport.length + 1e-9 {
            doc.transport.loopStart = tempo.start
            doc.transport.loopEnd = tempo.end
        }
    }
}
