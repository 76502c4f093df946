/// A track with its own cycle or ratio, as playback reads it: one cycle's events, repeated end to end
/// from the start of loop playback (or of each section), R times as fast. Its marker at t on cycle m sits at the
/// musical position `x = (m·L + (t − c)) / R` from that start (L = d − c, its region [c, d)); it sounds in the
/// pass whose span holds x, at `x − k·span` into pass k, so a cycle of 3/4 s against a 1 s loop runs across the
/// passes (its fourth cycle starts 2.25 s into the playing).
public struct CycleTrack: Sendable, Equatable {
    /// 0-based track index.
    public var track: Int
    /// L = d − c: one cycle's length on the timeline.
    public var length: Double
    /// R: how many times as fast the track plays.
    public var ratio: Double
    /// One cycle's events, times (and gate ends) after the cycle's start, sorted.
    public var events: [Schedule.Event]

    /// The cycle track of `track` (index `ti`) played over the region [a, b); nil when it has nothing to play.
    public init?(_ track: Track, index ti: Int, start a: Double, end b: Double) {
        let c = track.cycle?.start ?? a, d = track.cycle?.end ?? b
        guard d > c, track.ratio > 0, track.ratio.isFinite else { return nil }
        let events = Schedule.regionEvents(of: track, index: ti, start: c, end: d)
        guard !events.isEmpty else { return nil }
        self.track = ti
        length = d - c
        ratio = track.ratio
        self.events = events
    }

    /// The musical position of an instant `time` (after the cycle's start) of cycle m: (m·L + time) / R.
    @inlinable
    public static func position(cycle m: Int, time: Double, length: Double, ratio: Double) -> Double {
        (Double(m) * length + time) / ratio
    }

    /// The first cycle that may hold a position at or after x (positions are not before x0 in any later cycle).
    @inlinable
    public static func firstCycle(atOrAfter x: Double, length: Double, ratio: Double) -> Int {
        guard x > 0 else { return 0 }
        let m = (x * ratio / length).rounded(.down)
        return m >= 0x1p52 ? Int(0x1p52) : max(0, Int(m) - 1)
    }

    /// The events of pass k (span long) of a playing that lasts `limit` of musical position (the loop: infinity),
    /// each with its time after the pass's start, its cycle, and its gate end after the pass's start; sorted.
    public func events(pass k: Int, span: Double, limit: Double = .infinity) -> [Schedule.Event] {
        let from = Double(k) * span, to = min(Double(k + 1) * span, limit)
        guard to > from else { return [] }
        var out: [Schedule.Event] = []
        var m = CycleTrack.firstCycle(atOrAfter: from, length: length, ratio: ratio)
        while CycleTrack.position(cycle: m, time: 0, length: length, ratio: ratio) < to {
            for e in events {
                let x = CycleTrack.position(cycle: m, time: e.time, length: length, ratio: ratio)
                if x < from { continue }
                if x >= to { break }
                var placed = e
                placed.time = x - from
                placed.gateEnd = CycleTrack.position(cycle: m, time: e.gateEnd, length: length, ratio: ratio) - from
                placed.cycle = m
                if m > 0 { placed.randomKey ^= CycleTrack.cycleKey(m) }
                out.append(placed)
            }
            m += 1
        }
        return out
    }

    /// What a `?` draw of cycle m mixes into its key, so each cycle draws afresh (cycle 0 draws as the marker would).
    @inlinable
    public static func cycleKey(_ m: Int) -> UInt64 { UInt64(truncatingIfNeeded: m) &* 0xA24B_AED4_963E_E407 }

    /// The cycle tracks of `tracks` over [a, b): the audible tracks with a cycle or a ratio.
    public static func of(_ tracks: [Track], gains: [Double], start a: Double, end b: Double) -> [CycleTrack] {
        tracks.indices.compactMap { ti in
            gains[ti] > 0 && !tracks[ti].followsRegion ? CycleTrack(tracks[ti], index: ti, start: a, end: b) : nil
        }
    }

    /// Pass k's events of every cycle track and the region's `events`, merged in schedule order.
    public static func merged(_ events: [Schedule.Event], _ cycles: [CycleTrack], pass k: Int, span: Double,
                              limit: Double = .infinity) -> [Schedule.Event] {
        guard !cycles.isEmpty else { return events }
        var all = events
        for c in cycles { all.append(contentsOf: c.events(pass: k, span: span, limit: limit)) }
        all.sort(by: Schedule.precedes)
        return all
    }
}
