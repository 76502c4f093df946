/// Song time back to the timeline: the inverse of `SongTiming.time`, for a recording that must put a hit heard
/// at song time T where it was heard, inside the region that was sounding then.
extension SongTiming {
    /// Where an instant of the song is: the pass of the whole song, the section (from 0), the section's pass,
    /// and the time on the document's timeline inside the section's region, A_j ≤ time < B_j.
    public struct Place: Equatable, Sendable {
        public var songPass: Int
        public var section: Int
        public var pass: Int
        public var time: Double

        public init(songPass: Int, section: Int, pass: Int, time: Double) {
            self.songPass = songPass
            self.section = section
            self.pass = pass
            self.time = time
        }
    }

    /// The place of song time `t` (seconds from the start of song pass 0, at the sections' own tempos): pass m of
    /// the song is `⌊t / total⌋`, the section the last one starting at or before the rest, its pass and time from
    /// what is left at its tempo. An instant on a boundary belongs to what starts there (the next section, pass or
    /// song pass), as playback fires it. Nil when the song has no length, `t` is not a number, or `t` is at or past
    /// the song's end and the song does not loop. A negative `t` (a hit heard just before the song began) belongs to
    /// the song's end, song pass -1, as a loop recorder wraps it: nothing is clamped.
    public func place(at t: Double, looping: Bool) -> Place? {
        pieces.withUnsafeBufferPointer {
            SongTiming.place(at: t, in: sections, total: total, looping: looping, pieces: $0.baseAddress)
        }
    }

    /// The rules of `place(at:looping:)` over any list of sections: the core's, and the audio thread's own copy
    /// of the sections (a buffer, read without allocating).
    @inlinable
    public static func place<Sections: RandomAccessCollection>(
        at t: Double, in sections: Sections, total: Double, looping: Bool, pieces: UnsafePointer<TempoPiece>?
    ) -> Place? where Sections.Element: PlaceableSection, Sections.Index == Int {
        let count = sections.count
        guard count > 0, total > 0, total.isFinite, t.isFinite else { return nil }
        var m = Int((t / total).rounded(.down))
        var u = t - Double(m) * total
        if u < 0 { u = 0 }
        if u >= total {
            m += 1
            u = 0
        }
        if m > 0 && !looping { return nil }
        // The last section starting at or before u (a section of no length starts where the next does: skipped).
        var lo = 0, hi = count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if sections[mid].offset <= u { lo = mid } else { hi = mid - 1 }
        }
        var j = lo
        while j + 1 < count && sections[j + 1].offset <= sections[j].offset { j += 1 }
        let s = sections[j]
        let v = s.clock.music(atPlay: u - s.offset, pieces: pieces)
        var k = s.span > 0 ? Int((v / s.span).rounded(.down)) : 0
        var inPass = v - Double(k) * s.span
        if inPass < 0 { inPass = 0 }
        if inPass >= s.span {
            k += 1
            inPass = 0
        }
        if k >= s.repeats {
            // Rounding put u at the section's very end: what starts there.
            if j + 1 < count { return Place(songPass: m, section: j + 1, pass: 0, time: sections[j + 1].start) }
            if !looping { return nil }
            return Place(songPass: m + 1, section: 0, pass: 0, time: sections[0].start)
        }
        return Place(songPass: m, section: j, pass: k, time: s.start + inPass)
    }
}

/// What placing song time reads of a section: where it starts in song time and on the timeline, its span,
/// repeats and clock.
public protocol PlaceableSection {
    var start: Double { get }
    var span: Double { get }
    var repeats: Int { get }
    var offset: Double { get }
    var clock: SectionClock { get }
}

extension SongTiming.Section: PlaceableSection {}
