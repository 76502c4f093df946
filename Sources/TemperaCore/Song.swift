/// The song (DESIGN §12): an ordered list of sections, each a region of the timeline played a number of times
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
        /// The section's tempo scale; nil follows the document's tempo.
        public var tempo: Double?

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
    /// The most repeats of one section.
    public static let maxRepeats = 1_000_000

    /// The name `section add` gives when none is given: A, B, ... Z, then S27, S28, ...
    public static func defaultName(_ index: Int) -> String {
        index < 26 ? String(UnicodeScalar(UInt8(65 + index))) : "S\(index + 1)"
    }
}

/// The arithmetic of song time (DESIGN §12), from plain numbers. Pass k of section j plays a marker at t at
/// `T = Σ_{i<j} D_i + (k·(B_j − A_j) + (t − A_j)) / τ_j`, with `D_i = R_i·(B_i − A_i) / τ_i`; pass m of a
/// looping song adds `m·Σ D_i`; `frame = round(T · rate)`. The sums are computed once from the sections, and
/// every instant from (m, j, k, t): nothing is accumulated while playing, so nothing drifts.
public struct SongTiming: Sendable, Equatable {
    public struct Section: Sendable, Equatable {
        /// A_j, B_j - A_j and τ_j.
        public var start: Double
        public var span: Double
        public var tempo: Double
        public var repeats: Int
        /// Σ_{i<j} D_i: where the section starts in song time (seconds).
        public var offset: Double
        /// Σ_{i<j} R_i: the passes played before this section in one pass of the song.
        public var passesBefore: Int
        /// D_j = R_j·(B_j − A_j)/τ_j.
        public var duration: Double
    }

    public var sections: [Section]
    /// Σ D_i: one pass of the whole song, in seconds.
    public var total: Double
    /// Σ R_i.
    public var totalPasses: Int

    /// The timing of `song`, whose sections without a tempo play at `tempo`.
    public init(song: Song, tempo: Double) {
        var sections: [Section] = []
        sections.reserveCapacity(song.sections.count)
        var offset = 0.0, passes = 0
        for s in song.sections {
            let tau = s.tempo ?? tempo
            let d = SongTiming.duration(repeats: s.repeats, span: s.span, tempo: tau)
            sections.append(Section(start: s.start, span: s.span, tempo: tau, repeats: s.repeats, offset: offset,
                                    passesBefore: passes, duration: d))
            offset += d
            passes += s.repeats
        }
        self.sections = sections
        total = offset
        totalPasses = passes
    }

    /// D = R·(B − A)/τ.
    @inlinable
    public static func duration(repeats: Int, span: Double, tempo: Double) -> Double {
        Double(repeats) * span / tempo
    }

    /// Song time T of an instant `time` (seconds at tempo x1 after the section's region start) in pass `pass` of
    /// a section starting at `offset`, in pass `songPass` of the whole song (`total` long):
    /// `(m·total + offset) + (k·span + time)/tempo`. With m = 0 and offset 0 this is exactly the loop's
    /// `(k·span + time)/tempo` of DESIGN §8, so a loop is a one-section song and shares its frames.
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
