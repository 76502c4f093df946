/// The seconds of a MIDI file's ticks, from its Set Tempo events (120 BPM until the first).
///
/// The time of tick n is Σ Δticks · µs-per-quarter over the tempo segments before it, divided by
/// ticks-per-quarter · 10⁶. The sum is kept as an exact integer and divided once, so a time is the correctly
/// rounded Double of the exact rational value, however many tempo changes come before it.
public struct MidiTempoMap: Sendable, Equatable {
    public struct Change: Sendable, Equatable {
        public var tick: Int
        public var microsecondsPerQuarter: Int
        /// Σ Δticks · µs-per-quarter from tick 0 to `tick`.
        var sum: Int
    }

    public let division: Int
    /// Tempo changes in tick order, the first at tick 0.
    public private(set) var changes: [Change]

    /// The map of a file: Set Tempo events from every track (format 1 keeps them in the first; a later event
    /// at the same tick wins).
    public init(file: MidiFile) {
        var tempos: [(tick: Int, us: Int, order: Int)] = []
        for track in file.tracks {
            for e in track {
                if let us = e.microsecondsPerQuarter, us > 0 { tempos.append((e.tick, us, tempos.count)) }
            }
        }
        tempos.sort { $0.tick != $1.tick ? $0.tick < $1.tick : $0.order < $1.order }
        self.init(division: file.division, tempos: tempos.map { ($0.tick, $0.us) })
    }

    /// A map from (tick, µs per quarter) pairs in tick order.
    public init(division: Int, tempos: [(tick: Int, microsecondsPerQuarter: Int)]) {
        self.division = max(division, 1)
        var changes = [Change(tick: 0, microsecondsPerQuarter: 500_000, sum: 0)]
        for (tick, us) in tempos {
            let last = changes[changes.count - 1]
            if tick <= last.tick {
                changes[changes.count - 1].microsecondsPerQuarter = us
            } else {
                let (step, o1) = (tick - last.tick).multipliedReportingOverflow(by: last.microsecondsPerQuarter)
                let (sum, o2) = last.sum.addingReportingOverflow(step)
                changes.append(Change(tick: tick, microsecondsPerQuarter: us, sum: o1 || o2 ? Int.max : sum))
            }
        }
        self.changes = changes
    }

    /// Seconds from the file's start to `tick`.
    public func seconds(atTick tick: Int) -> Double {
        // The last change at or before the tick.
        var lo = 0, hi = changes.count
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if changes[mid].tick <= tick { lo = mid } else { hi = mid }
        }
        let c = changes[lo]
        let (step, o1) = (tick - c.tick).multipliedReportingOverflow(by: c.microsecondsPerQuarter)
        let (sum, o2) = c.sum.addingReportingOverflow(step)
        let denominator = Double(division) * 1_000_000
        if o1 || o2 || c.sum == Int.max || sum >= 1 << 53 {
            // Beyond 2^53 µs·ticks (centuries of music) the Double sum is as close as a Double can be anyway.
            return Double(c.sum) / denominator + Double(tick - c.tick) * Double(c.microsecondsPerQuarter) / denominator
        }
        return Double(sum) / denominator
    }
}
