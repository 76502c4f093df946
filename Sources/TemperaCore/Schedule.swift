/// What playback does, compiled from a document: every onset and cut of one pass over the loop region,
/// sorted, with the arithmetic that puts pass k of an event on its exact sample frame.
///
/// A schedule is immutable and holds no references, so the audio thread can read it while the editor builds
/// the next one.
public struct Schedule: Sendable, Equatable {
    public struct Event: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// A clip starts.
            case onset
            /// A `-`: whatever the track is sounding stops (with a short fade).
            case cut
        }
        public var kind: Kind
        /// Seconds at tempo x1 after the region's start.
        public var time: Double
        /// 0-based track index.
        public var track: Int
        /// 1...16; 0 for a `?` marker, resolved per pass by `clip(of:pass:)`.
        public var clip: Int
        public var amp: Double
        public var marker: MarkerID
        /// For a gate clip: where its gate closes (seconds after the region's start): the next marker of the
        /// track that is not `+`, or the region's end.
        public var gateEnd: Double
        /// What a `?` draw is keyed on besides the seed and the pass: the marker's track and exact time, so a
        /// marker draws the same clips after a save and reload (marker ids are renumbered on load) and edits
        /// elsewhere do not change its draws.
        public var randomKey: UInt64
        /// The chance it sounds in a pass (the marker's `p`), decided by `Schedule.sounds` on `randomKey`.
        public var probability: Double = 1
        /// Seconds into the clip's sound where it starts (the marker's `from`).
        public var from: Double = 0
        /// Seconds into the clip's sound where its slice ends (the marker's `to`; 0: none). `gateEnd` is already
        /// no later than it.
        public var to: Double = 0
        /// Which hit of its marker's ratchet (0 for the first, or a marker without one): with the track and the
        /// marker, the event's identity in a pass.
        public var hit: Int = 0
        /// The cycle of a track with its own cycle the event belongs to, from 0: with the track and
        /// the marker, what makes one sounding of a marker in a pass.
        public var cycle: Int = 0

        public init(kind: Kind, time: Double, track: Int, clip: Int, amp: Double, marker: MarkerID, gateEnd: Double,
                    randomKey: UInt64 = 0) {
            self.kind = kind
            self.time = time
            self.track = track
            self.clip = clip
            self.amp = amp
            self.marker = marker
            self.gateEnd = gateEnd
            self.randomKey = randomKey
        }
    }

    /// One onset as `tempera events` prints it.
    public struct Onset: Sendable, Equatable {
        public var loop: Int
        /// 1-based, as the user counts tracks.
        public var track: Int
        public var clip: Int
        public var amp: Double
        public var time: Double
        public var frame: Int64
    }

    /// The region played, seconds at tempo x1: the loop region when the loop is on, else 0..length.
    public var start: Double
    public var end: Double
    public var looping: Bool
    /// The tempo at the region's start (the tempo throughout without a tempo map).
    public var tempo: Double
    /// How a pass and a time become play time: the tempo, or the document's tempo map over the region.
    public var clock: SectionClock
    /// The tempo map's pieces the clock reads (empty without a map).
    public var pieces: [TempoPiece]
    public var sampleRate: Double
    public var events: [Event]
    /// The tracks with their own cycle or ratio, whose events run across the passes.
    public var cycles: [CycleTrack]
    /// Linear gain of each track (0 for a muted track or one silenced by another's solo).
    public var trackGains: [Double]
    public var seed: UInt64
    /// Bit n-1 set when slot n has something to play: where `?` draws from.
    public var randomPool: UInt16

    /// The region's length in seconds at tempo x1.
    @inlinable public var span: Double { end - start }

    /// Compiles a document. `sampleRate` only affects the frames reported.
    public init(document: Document, sampleRate: Double) {
        let doc = document.expandingInstances()
        (start, end) = Schedule.region(of: doc.transport)
        looping = doc.transport.loopOn
        (clock, pieces) = Schedule.clock(of: doc.transport, start: start, end: end)
        tempo = clock.tempo
        self.sampleRate = sampleRate
        seed = doc.seed
        randomPool = Schedule.randomPool(of: doc.slots)
        trackGains = Schedule.trackGains(of: doc.tracks)
        events = Schedule.events(of: doc.tracks, gains: trackGains, start: start, end: end)
        cycles = CycleTrack.of(doc.tracks, gains: trackGains, start: start, end: end)
    }

    /// The events of every audible track over the region [a, b), in schedule order.
    public static func events(of tracks: [Track], gains: [Double], start a: Double, end b: Double) -> [Event] {
        var events: [Event] = []
        for (ti, track) in tracks.enumerated() where gains[ti] > 0 {
            events.append(contentsOf: Schedule.events(of: track, index: ti, start: a, end: b))
        }
        events.sort(by: Schedule.precedes)
        return events
    }

    /// The loop's clock over [start, end): the tempo, or the tempo map's pieces when it has points.
    public static func clock(of t: Transport, start: Double, end: Double) -> (SectionClock, [TempoPiece]) {
        if t.tempoMap.isEmpty { return (SectionClock(tempo: t.tempo, span: end - start), []) }
        let pieces = t.tempoMap.pieces(base: t.tempo)
        return (SongTiming.regionClock(start: start, end: end, first: 0, count: pieces.count, pieces: pieces), pieces)
    }

    /// The region played, seconds at tempo x1: the loop region when the loop is on, else 0..length.
    public static func region(of t: Transport) -> (start: Double, end: Double) {
        t.loopOn ? (t.loopStart, t.loopEnd) : (0, t.length)
    }

    /// Bit n-1 set when slot n has something to play.
    public static func randomPool(of slots: [ClipSlot]) -> UInt16 {
        var pool: UInt16 = 0
        for (i, slot) in slots.enumerated() where !slot.isEmpty { pool |= 1 << UInt16(i) }
        return pool
    }

    /// Each track's linear gain: 0 when muted or silenced by another track's solo.
    public static func trackGains(of tracks: [Track]) -> [Double] {
        let anySolo = tracks.contains { $0.solo }
        return tracks.map { tr in (tr.mute || (anySolo && !tr.solo)) ? 0 : tr.gain }
    }

    /// The events of one track (index `ti`) over the region [a, b), sorted by `precedes`. The schedule is these
    /// lists merged, so a player can recompile only the tracks an edit touched.
    public static func events(of track: Track, index ti: Int, start a: Double, end b: Double) -> [Event] {
        // A track with its own cycle or ratio runs across passes (`CycleTrack`), not in the region's events.
        track.followsRegion ? regionEvents(of: track, index: ti, start: a, end: b) : []
    }

    /// The events of a track's markers in [a, b), times after a.
    static func regionEvents(of track: Track, index ti: Int, start a: Double, end b: Double) -> [Event] {
        let markers = track.markers
        return regionEvents(of: markers, index: ti, start: a, end: b,
                            positions: markers.lowerBound(time: a)..<markers.lowerBound(time: b))
    }

    /// The events of the markers at `positions` (all in [a, b)), as the whole region's walk makes them: the
    /// markers after them still close their gates and bound their ratchets.
    static func regionEvents(of markers: MarkerList, index ti: Int, start a: Double, end b: Double,
                             positions: Range<Int>) -> [Event] {
        let lo = positions.lowerBound, hi = positions.upperBound
        guard lo < hi else { return [] }
        // Walk backwards so each onset knows the next marker that is not a hold, and a ratchet the next marker.
        var nextNonHold = b - a
        var nextMarker = b - a
        if hi < markers.count, markers[hi].time < b {
            nextMarker = markers[hi].time - a
            var k = hi
            while k < markers.count, markers[k].time < b, markers[k].content == .hold { k += 1 }
            if k < markers.count, markers[k].time < b { nextNonHold = markers[k].time - a }
        }
        var lineEvents: [Event] = []
        for i in stride(from: hi - 1, through: lo, by: -1) {
            let m = markers[i]
            let rel = m.time - a
            switch m.content {
            case .clip?, .random?:
                var e = Event(kind: .onset, time: rel, track: ti, clip: 0, amp: m.amp, marker: m.id, gateEnd: nextNonHold)
                if case .clip(let n)? = m.content { e.clip = n }
                if m.content == .random || m.p != 1 { e.randomKey = randomKey(time: m.time, track: ti) }
                e.probability = m.p
                e.from = m.from
                e.to = m.to
                // A slice's own end closes its gate when the next marker comes later (a single hit only).
                if m.to > m.from, m.rep == 1 { e.gateEnd = min(nextNonHold, rel + (m.to - m.from)) }
                if m.rep > 1 {
                    // A ratchet: rep equal hits over its span, each gate closing at the next hit; hits past the
                    // region's end are left out. Listed last first, as the walk goes backwards.
                    let span = m.repSpan ?? (nextMarker - rel)
                    let step = span / Double(m.rep)
                    for k in stride(from: m.rep - 1, through: 0, by: -1) {
                        let t = rel + Double(k) * step
                        guard t < b - a else { continue }
                        var h = e
                        h.time = t
                        h.hit = k
                        h.gateEnd = k == m.rep - 1 ? max(nextNonHold, t) : rel + Double(k + 1) * step
                        lineEvents.append(h)
                    }
                } else {
                    lineEvents.append(e)
                }
            case .rest?:
                lineEvents.append(Event(kind: .cut, time: rel, track: ti, clip: 0, amp: 0, marker: m.id,
                                        gateEnd: rel))
            case .hold?, nil:
                break
            }
            if m.content != .hold { nextNonHold = rel }
            nextMarker = rel
        }
        lineEvents.reverse()
        // Markers at one instant: cuts first, as across tracks.
        var sorted = true
        for k in lineEvents.indices.dropFirst() where precedes(lineEvents[k], lineEvents[k - 1]) { sorted = false; break }
        if !sorted { lineEvents.sort(by: precedes) }
        return lineEvents
    }

    /// What a `?` draw and a probability are keyed on besides the seed and the pass: the marker's track and exact
    /// time (`Event.randomKey`).
    @inlinable
    public static func randomKey(time: Double, track ti: Int) -> UInt64 {
        time.bitPattern &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(ti) &* 0xC2B2_AE3D_27D4_EB4F
    }

    /// Whether an event of probability `p` sounds in pass `pass`: a uniform number in [0, 1) from a hash of the
    /// seed, the pass and the marker's key (its track and time) is below p. Every render of a document decides
    /// alike; p = 1 always sounds, p = 0 never. No allocation (the audio thread calls it).
    @inlinable
    public static func sounds(probability p: Double, seed: UInt64, key: UInt64, pass: Int) -> Bool {
        if p >= 1 { return true }
        if p <= 0 { return false }
        var z = (seed ^ 0x5DEE_CE66_D1CE_4E5B) &+ UInt64(UInt32(truncatingIfNeeded: pass)) &* 0xD6E8_FEB8_6659_FD93
            &+ key &* 0xA076_1D64_78BD_642F
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) * 0x1p-53 < p
    }

    /// The order of events: by time, then track, cuts before onsets at the same instant.
    @inlinable
    public static func precedes(_ x: Event, _ y: Event) -> Bool {
        if x.time != y.time { return x.time < y.time }
        if x.track != y.track { return x.track < y.track }
        return x.kind == .cut && y.kind == .onset
    }

    /// The sample frame of an instant `time` (seconds at tempo x1 after the region's start) in pass `pass`:
    /// `round((pass * span + time) / tempo * rate)`. Computed from the pass number, never accumulated, so
    /// nothing drifts however long the loop runs.
    @inlinable
    public func frame(pass: Int, time: Double) -> Int64 {
        if clock.isConstant { return Schedule.frame(pass: pass, time: time, span: span, tempo: tempo, sampleRate: sampleRate) }
        return Int64((self.time(pass: pass, time: time) * sampleRate).rounded())
    }

    /// The play time of `time` (after the region's start) in pass `pass`: `(pass·span + time)/tempo`, or with a
    /// tempo map `pass·P(A, B) + P(A, A + time)`.
    public func time(pass: Int, time: Double) -> Double {
        pieces.withUnsafeBufferPointer { clock.time(pass: pass, time: time, pieces: $0.baseAddress) }
    }

    /// The same arithmetic from plain numbers, for code that holds a schedule's fields but not the schedule
    /// (the audio thread reads flat copies, never arrays).
    @inlinable
    public static func frame(pass: Int, time: Double, span: Double, tempo: Double, sampleRate: Double) -> Int64 {
        Int64(((Double(pass) * span + time) / tempo * sampleRate).rounded())
    }

    /// The clip an event plays in pass `pass`; a `?` draws from the filled slots, the same way every time
    /// for the same seed, pass, track and marker time (see `Event.randomKey`).
    @inlinable
    public func clip(of event: Event, pass: Int) -> Int {
        if event.clip != 0 { return event.clip }
        return Schedule.randomClip(seed: seed, pool: randomPool, key: event.randomKey, pass: pass)
    }

    /// The draw behind `clip(of:pass:)` from plain numbers (no allocation: the audio thread calls it).
    @inlinable
    public static func randomClip(seed: UInt64, pool randomPool: UInt16, key: UInt64, pass: Int) -> Int {
        let pool = randomPool == 0 ? UInt16.max : randomPool
        var z = seed &+ UInt64(UInt32(truncatingIfNeeded: pass)) &* 0x9E37_79B9_7F4A_7C15 &+ key &* 0xD1B5_4A32_D192_ED03
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        var pick = Int(z % UInt64(pool.nonzeroBitCount))
        for n in 0..<16 where pool & (1 << UInt16(n)) != 0 {
            if pick == 0 { return n + 1 }
            pick -= 1
        }
        return 1
    }

    /// The onsets of `loops` passes, as `tempera events` lists them.
    public func onsets(loops: Int) -> [Onset] {
        var out: [Onset] = []
        out.reserveCapacity(Swift.min(events.count * Swift.max(loops, 0), 1 << 20))
        for k in 0..<max(loops, 0) { out.append(contentsOf: onsets(pass: k)) }
        return out
    }

    /// The onsets of pass `k` (from 0), in time order: `time = (k * span + t) / tempo` (with a tempo map
    /// `k·P(A, B) + P(A, t)`), `frame = round(time * rate)`.
    public func onsets(pass k: Int) -> [Onset] {
        var out: [Onset] = []
        for e in CycleTrack.merged(events, cycles, pass: k, span: span) where e.kind == .onset
            && Schedule.sounds(probability: e.probability, seed: seed, key: e.randomKey, pass: k) {
            let time = self.time(pass: k, time: e.time)
            out.append(Onset(loop: k, track: e.track + 1, clip: clip(of: e, pass: k), amp: e.amp, time: time,
                             frame: frame(pass: k, time: e.time)))
        }
        return out
    }
}
