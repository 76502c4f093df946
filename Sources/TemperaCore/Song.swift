/// The song: an ordered list of sections, each a region of the timeline played a number of times
/// at its own tempo. Regions may repeat and overlap (A B A C), so an edit to a region is heard wherever it is
/// used. Kept with the document; empty and off by default, so a document without one plays its loop.
public struct Song: Hashable, Sendable {
    /// One section: the region [start, end) of the timeline (seconds at tempo x1), played `repeats` times.
    public struct Section: Hashable, Sendable {
        public var name: String
        public var start: Double
        public var end: Double
        /// At least 1.
        public var repeats: Int
        /// The section's tempo scale; nil follows the document's tempo (its tempo map over the region).
        public var tempo: Double?
        /// With `tempo`: a ramp from `tempo` to this over the section's whole duration, all its repeats;
        /// nil holds `tempo`.
        public var tempoEnd: Double? = nil
        /// How the ramp goes (`linear` or `exp`).
        public var shape: TempoMap.Shape = .linear
        /// The section's own time signature; nil: the document's meter.
        public var meter: Meter? = nil
        /// The tracks (from 0, in order) that sound in the section; nil: every track.
        public var tracks: [Int]? = nil
        /// Tracks that play a group through the section instead of their own markers: track (from 0) to group.
        public var plays: [Int: Int] = [:]

        /// What the section chooses to play, when it chooses (nil: every track plays its own markers).
        public var choice: Choice? {
            tracks == nil && plays.isEmpty ? nil : Choice(tracks: tracks, plays: plays)
        }

        public init(name: String, start: Double, end: Double, repeats: Int = 1, tempo: Double? = nil) {
            self.name = name
            self.start = start
            self.end = end
            self.repeats = repeats
            self.tempo = tempo
        }

        /// B - A: the length of one pass at tempo x1.
        @inlinable public var span: Double { end - start }
    }

    /// A section's choice of what plays: which tracks sound, and which play a group.
    public struct Choice: Hashable, Sendable {
        public var tracks: [Int]?
        public var plays: [Int: Int]
    }

    public var sections: [Section]
    /// Play the song instead of the loop.
    public var on: Bool
    /// At the song's end, start it again (else playback stops).
    public var loop: Bool

    public init(sections: [Section] = [], on: Bool = false, loop: Bool = false) {
        self.sections = sections
        self.on = on
        self.loop = loop
    }

    /// True when playback follows the song: it is on and has a section.
    public var plays: Bool { on && !sections.isEmpty }

    /// The most sections a song holds.
    public static let maxSections = 10_000
    /// Linked instances of groups placed on the timeline (`GroupInstance`), by start time: the arrangement's
    /// patterns, played wherever they stand, in the loop as in every section.
    public var instances: [GroupInstance] = []
    /// The group open as the timeline (`group edit`), with the timeline kept aside; nil when none is.
    public var editing: GroupEdit? = nil
    /// The most instances a song holds.
    public static let maxInstances = 10_000
    /// The most repeats of one section.
    public static let maxRepeats = 1_000_000

    /// The name `section add` gives when none is given: A, B, ... Z, then S27, S28, ...
    public static func defaultName(_ index: Int) -> String {
        index < 26 ? String(UnicodeScalar(UInt8(65 + index))) : "S\(index + 1)"
    }
}

/// The arithmetic of song time, from plain numbers. Pass k of section j plays a marker at t at
/// `T = Σ_{i<j} D_i + (k·(B_j − A_j) + (t − A_j)) / τ_j`, with `D_i = R_i·(B_i − A_i) / τ_i`; pass m of a
/// looping song adds `m·Σ D_i`; `frame = round(T · rate)`. The sums are computed once from the sections, and
/// every instant from (m, j, k, t): nothing is accumulated while playing, so nothing drifts.
public struct SongTiming: Sendable, Equatable {
    public struct Section: Sendable, Equatable {
        /// A_j, B_j - A_j and τ_j (for a section that ramps or follows a tempo map, the tempo at its start).
        public var start: Double
        public var span: Double
        public var tempo: Double
        public var repeats: Int
        /// Σ_{i<j} D_i: where the section starts in song time (seconds).
        public var offset: Double
        /// Σ_{i<j} R_i: the passes played before this section in one pass of the song.
        public var passesBefore: Int
        /// D_j = R_j·(B_j − A_j)/τ_j, or the integral of 1/τ over the section.
        public var duration: Double
        /// How a pass and a time become play time inside the section (its pieces in `SongTiming.pieces`).
        public var clock: SectionClock
    }

    public var sections: [Section]
    /// Σ D_i: one pass of the whole song, in seconds.
    public var total: Double
    /// Σ R_i.
    public var totalPasses: Int
    /// The tempo pieces the sections' clocks read: the document's map (from 0), then each ramp's own.
    public var pieces: [TempoPiece]

    /// The timing of `song`, whose sections without a tempo play at `tempo`, or follow `map` when it has points.
    public init(song: Song, tempo: Double, map: TempoMap = TempoMap()) {
        var sections: [Section] = []
        sections.reserveCapacity(song.sections.count)
        var pieces = map.isEmpty ? [] : map.pieces(base: tempo)
        let docCount = pieces.count
        var offset = 0.0, passes = 0
        for s in song.sections {
            let clock: SectionClock
            if let x = s.tempo, let y = s.tempoEnd, y != x {
                clock = SongTiming.rampClock(from: x, to: y, shape: s.shape, length: Double(s.repeats) * s.span,
                                             span: s.span, pieces: &pieces)
            } else if let x = s.tempo {
                clock = SectionClock(tempo: x, span: s.span)
            } else if docCount > 0 {
                clock = SongTiming.regionClock(start: s.start, end: s.end, first: 0, count: docCount, pieces: pieces)
            } else {
                clock = SectionClock(tempo: tempo, span: s.span)
            }
            let d = pieces.withUnsafeBufferPointer { clock.duration(repeats: s.repeats, pieces: $0.baseAddress) }
            sections.append(Section(start: s.start, span: s.span, tempo: clock.tempo, repeats: s.repeats, offset: offset,
                                    passesBefore: passes, duration: d, clock: clock))
            offset += d
            passes += s.repeats
        }
        self.sections = sections
        self.pieces = pieces
        total = offset
        totalPasses = passes
    }

    /// The clock of a region [start, end) that follows the tempo curve `pieces[first ..< first + count]`.
    public static func regionClock(start: Double, end: Double, first: Int, count: Int, pieces: [TempoPiece]) -> SectionClock {
        pieces.withUnsafeBufferPointer { b in
            let ps = b.baseAddress! + first
            return SectionClock(tempo: TempoCurve.tempo(at: start, ps: ps, count: count), span: end - start, first: first,
                                count: count, ramp: false, origin: start,
                                passPlay: TempoCurve.play(from: start, to: end, ps: ps, count: count))
        }
    }

    /// The clock of a ramp from tempo `x` to `y` over `length` seconds of musical position (all the passes),
    /// appending its two pieces to `pieces`.
    public static func rampClock(from x: Double, to y: Double, shape: TempoMap.Shape, length: Double, span: Double,
                                 pieces: inout [TempoPiece]) -> SectionClock {
        let first = pieces.count
        let curve = TempoMap([TempoMap.Point(time: 0, tempo: x, shape: shape == .step ? .linear : shape),
                              TempoMap.Point(time: length, tempo: y)]).pieces(base: x)
        pieces.append(contentsOf: curve)
        return SectionClock(tempo: x, span: span, first: first, count: curve.count, ramp: true, origin: 0, passPlay: 0)
    }

    /// Song time of `time` (after the region's start) in pass k of section j, song pass m: `(m·total + offset_j)`
    /// plus the section's own play time of (k, time).
    @inlinable
    public func time(songPass m: Int, section j: Int, pass k: Int, time t: Double) -> Double {
        let s = sections[j]
        if s.clock.isConstant {
            return SongTiming.time(songPass: m, total: total, offset: s.offset, pass: k, time: t, span: s.span, tempo: s.tempo)
        }
        return pieces.withUnsafeBufferPointer {
            SongTiming.time(songPass: m, total: total, offset: s.offset, pass: k, time: t, clock: s.clock,
                            pieces: $0.baseAddress)
        }
    }

    /// The same from plain numbers and a clock: `(m·total + offset) + clock.time(k, t)`; for a constant clock
    /// exactly `time(songPass:total:offset:pass:time:span:tempo:)`.
    @inlinable
    public static func time(songPass m: Int, total: Double, offset: Double, pass k: Int, time t: Double,
                            clock: SectionClock, pieces: UnsafePointer<TempoPiece>?) -> Double {
        (Double(m) * total + offset) + clock.time(pass: k, time: t, pieces: pieces)
    }

    /// The tempo heard at `time` (after the region's start) in pass k of section j.
    public func tempo(section j: Int, pass k: Int, time t: Double) -> Double {
        let s = sections[j]
        return pieces.withUnsafeBufferPointer {
            s.clock.tempo(atMusic: Double(k) * s.span + t, pieces: $0.baseAddress)
        }
    }

    /// D = R·(B − A)/τ.
    @inlinable
    public static func duration(repeats: Int, span: Double, tempo: Double) -> Double {
        Double(repeats) * span / tempo
    }

    /// Song time T of an instant `time` (seconds at tempo x1 after the section's region start) in pass `pass` of
    /// a section starting at `offset`, in pass `songPass` of the whole song (`total` long):
    /// `(m·total + offset) + (k·span + time)/tempo`. With m = 0 and offset 0 this is exactly the loop's
    /// `(k·span + time)/tempo` (docs/decisions/timing.md), so a loop is a one-section song and shares its frames.
    @inlinable
    public static func time(songPass m: Int, total: Double, offset: Double, pass k: Int, time t: Double,
                            span: Double, tempo: Double) -> Double {
        (Double(m) * total + offset) + (Double(k) * span + t) / tempo
    }

    /// `round(T · rate)` for the same arguments.
    @inlinable
    public static func frame(songPass m: Int, total: Double, offset: Double, pass k: Int, time t: Double,
                             span: Double, tempo: Double, sampleRate: Double) -> Int64 {
        Int64((time(songPass: m, total: total, offset: offset, pass: k, time: t, span: span, tempo: tempo)
            * sampleRate).rounded())
    }

    /// The pass number a `?` marker draws its clip with in pass k of section j, song pass m: the passes played
    /// since the song started, so every pass of every section draws afresh and `events` and playback agree.
    @inlinable
    public func drawPass(songPass m: Int, section j: Int, pass k: Int) -> Int {
        m &* totalPasses &+ sections[j].passesBefore &+ k
    }
}
