#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The document's tempo as a function of document time: tempo points (u_i, τ_i, shape_i), the shape
/// saying how the tempo goes from point i to point i+1. Before the first point the tempo is the document's
/// `tempo`; after the last it holds. Document times stay seconds at tempo x1: the map only says how fast they
/// are played. An empty map plays exactly as a document without one.
public struct TempoMap: Hashable, Sendable {
    /// The way from one point to the next.
    public enum Shape: String, Hashable, Sendable, CaseIterable {
        /// The tempo holds until the next point.
        case step
        /// The tempo changes linearly in document time.
        case linear
        /// The tempo changes by a constant ratio per second of document time.
        case exp
    }

    public struct Point: Hashable, Sendable {
        /// Seconds on the document's timeline (at tempo x1), at least 0.
        public var time: Double
        /// The tempo scale there (as the transport's `tempo`).
        public var tempo: Double
        /// How the tempo goes from here to the next point.
        public var shape: Shape

        public init(time: Double, tempo: Double, shape: Shape = .step) {
            self.time = time
            self.tempo = tempo
            self.shape = shape
        }
    }

    /// The points, by time, no two at one time, in runs of at most `chunkLimit`: a change copies one run and
    /// the list of runs, never the whole map, so the undo history's copies of the map share all the rest, and a
    /// point is found by two binary searches.
    private var chunks: [[Point]]
    /// How many points the map holds.
    public private(set) var count: Int

    /// The most points a run holds before it is split in two.
    static let chunkLimit = 128

    /// A map of `points` (sorted; of two at one time the later one given stays): O(n log n).
    public init(_ points: [Point] = []) {
        var sorted = points.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
        // Of equal times the later one given is the last of its run: keep it.
        var kept: [Point] = []
        kept.reserveCapacity(sorted.count)
        for p in sorted {
            if let last = kept.last, last.time == p.time { kept[kept.count - 1] = p } else { kept.append(p) }
        }
        sorted = kept
        let half = TempoMap.chunkLimit / 2
        chunks = stride(from: 0, to: sorted.count, by: half).map { Array(sorted[$0..<min($0 + half, sorted.count)]) }
        count = sorted.count
    }

    public var isEmpty: Bool { count == 0 }

    /// The points, by time: O(n) (for writing the map out, listing it).
    public var points: [Point] { Array(chunks.joined()) }

    /// The most points a map holds.
    public static let maxPoints = 100_000

    /// The run that holds `time` (or would): the last whose first point is at or before it (0 for earlier).
    private func chunk(holding time: Double) -> Int {
        var lo = 0, hi = chunks.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if chunks[mid][0].time <= time { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The index in a run of its first point at or after `time`.
    private static func index(in run: [Point], atOrAfter time: Double) -> Int {
        var lo = 0, hi = run.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if run[mid].time < time { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The point at exactly `time`, if any: O(log n).
    public func point(at time: Double) -> Point? {
        guard !chunks.isEmpty else { return nil }
        let run = chunks[chunk(holding: time)]
        let i = TempoMap.index(in: run, atOrAfter: time)
        return i < run.count && run[i].time == time ? run[i] : nil
    }

    /// The last point at or before `time` and the one after it: O(log n).
    public func points(around time: Double) -> (at: Point?, next: Point?) {
        guard !chunks.isEmpty else { return (nil, nil) }
        let c = chunk(holding: time), run = chunks[c]
        let i = TempoMap.index(in: run, atOrAfter: time)
        let atOrBefore = i < run.count && run[i].time == time ? i : i - 1
        let at = atOrBefore >= 0 ? run[atOrBefore] : nil
        let next = atOrBefore + 1 < run.count ? run[atOrBefore + 1] : (c + 1 < chunks.count ? chunks[c + 1][0] : nil)
        return (at, next)
    }

    /// The first point at or after `time`, if any: O(log n).
    public func point(atOrAfter time: Double) -> Point? {
        guard !chunks.isEmpty else { return nil }
        let c = chunk(holding: time), run = chunks[c]
        let i = TempoMap.index(in: run, atOrAfter: time)
        return i < run.count ? run[i] : (c + 1 < chunks.count ? chunks[c + 1][0] : nil)
    }

    /// Adds `p`, or replaces the point at its time: O(log n + `chunkLimit` + n / `chunkLimit`).
    public mutating func set(_ p: Point) {
        guard !chunks.isEmpty else {
            chunks = [[p]]
            count = 1
            return
        }
        let c = chunk(holding: p.time)
        let i = TempoMap.index(in: chunks[c], atOrAfter: p.time)
        if i < chunks[c].count && chunks[c][i].time == p.time {
            chunks[c][i] = p
            return
        }
        chunks[c].insert(p, at: i)
        count += 1
        if chunks[c].count > TempoMap.chunkLimit {
            let tail = Array(chunks[c][(TempoMap.chunkLimit / 2)...])
            chunks[c].removeLast(tail.count)
            chunks.insert(tail, at: c + 1)
        }
    }

    /// Removes the point at `time`; false when there is none.
    @discardableResult
    public mutating func remove(at time: Double) -> Bool {
        guard !chunks.isEmpty else { return false }
        let c = chunk(holding: time)
        let i = TempoMap.index(in: chunks[c], atOrAfter: time)
        guard i < chunks[c].count, chunks[c][i].time == time else { return false }
        chunks[c].remove(at: i)
        count -= 1
        if chunks[c].isEmpty { chunks.remove(at: c) }
        return true
    }

    /// Throws unless the runs are non-empty, at most `chunkLimit` long, strictly in time order across them, and
    /// hold `count` points (tests call it after every change).
    public func checkInvariants() throws {
        func fail(_ s: String) -> MarkerList.InvariantViolation { MarkerList.InvariantViolation(description: s) }
        var previous: Double?, seen = 0
        for (c, run) in chunks.enumerated() {
            if run.isEmpty { throw fail("run \(c) is empty") }
            if run.count > TempoMap.chunkLimit { throw fail("run \(c) holds \(run.count) > \(TempoMap.chunkLimit)") }
            for p in run {
                if let t = previous, !(t < p.time) { throw fail("point at \(p.time) is not after \(t)") }
                previous = p.time
            }
            seen += run.count
        }
        if seen != count { throw fail("\(seen) points but count \(count)") }
    }

    /// The same points (whatever their runs); runs the two maps share are not compared point by point.
    public static func == (a: TempoMap, b: TempoMap) -> Bool {
        guard a.count == b.count else { return false }
        if a.chunks.count == b.chunks.count, zip(a.chunks, b.chunks).allSatisfy({ $0.count == $1.count }) {
            return a.chunks == b.chunks
        }
        return a.chunks.joined().elementsEqual(b.chunks.joined())
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for p in chunks.joined() { hasher.combine(p) }
    }

    /// Memory the runs hold that `other` (an earlier or later copy of the map) does not share: what keeping
    /// both costs beyond one of them, in bytes. A copy changed in one place shares the runs before and after it,
    /// in the same order: those are matched from both ends, by storage, without hashing.
    func bytes(notSharedWith other: TempoMap) -> Int {
        func same(_ a: [Point], _ b: [Point]) -> Bool {
            a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
        }
        let m = min(chunks.count, other.chunks.count)
        var front = 0
        while front < m && same(chunks[front], other.chunks[front]) { front += 1 }
        var back = 0
        while back < m - front && same(chunks[chunks.count - 1 - back], other.chunks[other.chunks.count - 1 - back]) {
            back += 1
        }
        var n = chunks.count * MemoryLayout<[Point]>.stride
        for run in chunks[front..<(chunks.count - back)] { n += run.count * MemoryLayout<Point>.stride }
        return n
    }

    /// The map's pieces, the document's tempo `base` before the first point: what the play time is computed from.
    public func pieces(base: Double) -> [TempoPiece] {
        var out: [TempoPiece] = []
        out.reserveCapacity(points.count + 1)
        if points.first.map({ $0.time > 0 }) ?? true {
            out.append(TempoPiece(start: 0, tempo: base, shape: TempoPiece.constant, rate: 0, before: 0))
        }
        let points = self.points
        for (i, p) in points.enumerated() {
            var piece = TempoPiece(start: p.time, tempo: p.tempo, shape: TempoPiece.constant, rate: 0, before: 0)
            if i + 1 < points.count {
                let q = points[i + 1], length = q.time - p.time
                switch p.shape {
                case .step: break
                case .linear where q.tempo != p.tempo:
                    piece.shape = TempoPiece.linear
                    piece.rate = (q.tempo - p.tempo) / length
                case .exp where q.tempo != p.tempo:
                    piece.shape = TempoPiece.exponential
                    piece.rate = log(q.tempo / p.tempo) / length
                default: break
                }
            }
            if let last = out.last { piece.before = last.before + last.play(last.start, p.time) }
            out.append(piece)
        }
        return out
    }

    /// The tempo at document time `u`, the document's tempo `base` before the first point: O(log n), from the
    /// point before `u` and the one after it (as the piece between them computes it).
    public func tempo(at u: Double, base: Double) -> Double {
        let (at, next) = points(around: u)
        guard let p = at else {
            // Before the first point: the document's tempo, unless the map starts at 0 (then its first tempo).
            guard let first = next, first.time <= 0 else { return base }
            return first.tempo
        }
        var piece = TempoPiece(start: p.time, tempo: p.tempo, shape: TempoPiece.constant, rate: 0, before: 0)
        if let q = next, q.tempo != p.tempo {
            let length = q.time - p.time
            switch p.shape {
            case .step: break
            case .linear:
                piece.shape = TempoPiece.linear
                piece.rate = (q.tempo - p.tempo) / length
            case .exp:
                piece.shape = TempoPiece.exponential
                piece.rate = log(q.tempo / p.tempo) / length
            }
        }
        return piece.tempo(at: u)
    }

    /// The play time from document time `a` to `b`: P(a, b) = ∫ du / τ(u), in closed form piece by piece.
    public func play(from a: Double, to b: Double, base: Double) -> Double {
        let ps = pieces(base: base)
        return ps.withUnsafeBufferPointer { TempoCurve.play(from: a, to: b, ps: $0.baseAddress!, count: $0.count) }
    }

    /// The document time heard `seconds` of play after document time `a`: the inverse of `play(from:to:base:)`.
    public func time(after seconds: Double, from a: Double, base: Double) -> Double {
        let ps = pieces(base: base)
        return ps.withUnsafeBufferPointer {
            TempoCurve.time(after: seconds, from: a, ps: $0.baseAddress!, count: $0.count)
        }
    }
}

/// One piece of a tempo curve, from `start` to the next piece's start (the last one holds for ever): the tempo at
/// its start and how it changes, and the play time from the curve's piece 0 start to its own start.
public struct TempoPiece: Equatable, Sendable {
    public static let constant: UInt8 = 0
    public static let linear: UInt8 = 1
    public static let exponential: UInt8 = 2

    /// u_i: where it starts (document time, or a section's musical position for a ramp).
    public var start: Double
    /// τ_i, the tempo at its start.
    public var tempo: Double
    /// `constant`, `linear` or `exponential`.
    public var shape: UInt8
    /// k = dτ/du (linear) or λ = d ln τ / du (exponential); 0 when constant.
    public var rate: Double
    /// The play time from piece 0's start to `start`.
    public var before: Double

    public init(start: Double, tempo: Double, shape: UInt8, rate: Double, before: Double) {
        self.start = start
        self.tempo = tempo
        self.shape = shape
        self.rate = rate
        self.before = before
    }

    /// The tempo at `u` (on this piece).
    @inlinable
    public func tempo(at u: Double) -> Double {
        let d = u - start
        switch shape {
        case TempoPiece.linear: return tempo + rate * d
        case TempoPiece.exponential: return tempo * exp(rate * d)
        default: return tempo
        }
    }

    /// The play time from `a` to `b`, both on this piece (a ≤ b): constant (b − a)/τ; linear ln(τ(b)/τ(a))/k;
    /// exponential (e^(−λ(a−u0)) − e^(−λ(b−u0)))/(λ·τ0).
    @inlinable
    public func play(_ a: Double, _ b: Double) -> Double {
        switch shape {
        case TempoPiece.linear:
            return log(tempo(at: b) / tempo(at: a)) / rate
        case TempoPiece.exponential:
            return (exp(-rate * (a - start)) - exp(-rate * (b - start))) / (rate * tempo)
        default:
            return (b - a) / tempo
        }
    }

    /// The document time `s` seconds of play after `a` (on this piece): the closed-form inverse of `play`.
    @inlinable
    public func time(after s: Double, from a: Double) -> Double {
        switch shape {
        case TempoPiece.linear:
            // τ(b) = τ(a)·e^(k s), and τ is linear in u.
            let ta = tempo(at: a)
            return a + ta * expm1(rate * s) / rate
        case TempoPiece.exponential:
            // e^(−λ(b−u0)) = e^(−λ(a−u0)) − λ τ0 s.
            let y = exp(-rate * (a - start)) - rate * tempo * s
            guard y > 0 else { return .infinity }
            return start - log(y) / rate
        default:
            return a + s * tempo
        }
    }
}

/// The arithmetic of a tempo curve from plain memory (the audio thread reads the pieces from a snapshot; the
/// core reads them from arrays): the one home of play time and its inverse. Never summed step by step: each
/// instant is computed from the pieces' closed forms and the play time before each piece.
public enum TempoCurve {
    /// The index of the piece holding `u`: the last one starting at or before it (piece 0 for anything before).
    @inlinable
    public static func piece(at u: Double, ps: UnsafePointer<TempoPiece>, count: Int) -> Int {
        var lo = 0, hi = count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if ps[mid].start <= u { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The tempo at `u`. Before piece 0's start the tempo of its start holds.
    @inlinable
    public static func tempo(at u: Double, ps: UnsafePointer<TempoPiece>, count: Int) -> Double {
        let i = piece(at: u, ps: ps, count: count)
        return ps[i].tempo(at: max(u, ps[i].start))
    }

    /// F(u): the play time from piece 0's start to `u` (before it, at piece 0's starting tempo).
    @inlinable
    public static func playTime(to u: Double, ps: UnsafePointer<TempoPiece>, count: Int) -> Double {
        let i = piece(at: u, ps: ps, count: count)
        let p = ps[i]
        if u < p.start { return (u - p.start) / p.tempo }
        return p.before + p.play(p.start, u)
    }

    /// P(a, b) = ∫_a^b du / τ(u): on one piece its closed form; across pieces the tail of a's piece, the play
    /// time of the whole pieces between, and the head of b's piece.
    @inlinable
    public static func play(from a: Double, to b: Double, ps: UnsafePointer<TempoPiece>, count: Int) -> Double {
        if b < a { return -play(from: b, to: a, ps: ps, count: count) }
        let i = piece(at: a, ps: ps, count: count), j = piece(at: b, ps: ps, count: count)
        let pa = ps[i]
        if a < pa.start { return playTime(to: b, ps: ps, count: count) - playTime(to: a, ps: ps, count: count) }
        if i == j { return pa.play(a, b) }
        let next = ps[i + 1], pb = ps[j]
        return pa.play(a, next.start) + (pb.before - next.before) + pb.play(pb.start, b)
    }

    /// The document time heard `s` seconds of play after `a` (s ≥ 0): the piece where F(a) + s falls, then that
    /// piece's closed-form inverse.
    @inlinable
    public static func time(after s: Double, from a: Double, ps: UnsafePointer<TempoPiece>, count: Int) -> Double {
        guard s > 0 else { return a }
        let i = piece(at: a, ps: ps, count: count)
        if a < ps[i].start {
            // Before the curve: its first tempo holds up to its start.
            let upTo = (ps[i].start - a) / ps[i].tempo
            if s <= upTo { return a + s * ps[i].tempo }
            return time(after: s - upTo, from: ps[i].start, ps: ps, count: count)
        }
        // Within a's piece?
        if i + 1 >= count { return ps[i].time(after: s, from: a) }
        let tail = ps[i].play(a, ps[i + 1].start)
        if s < tail { return min(ps[i].time(after: s, from: a), ps[i + 1].start) }
        // The piece where the target play time falls: the last whose start is at or before it.
        let target = ps[i + 1].before + (s - tail)
        var lo = i + 1, hi = count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if ps[mid].before <= target { lo = mid } else { hi = mid - 1 }
        }
        let p = ps[lo]
        let u = p.time(after: target - p.before, from: p.start)
        return lo + 1 < count ? min(u, ps[lo + 1].start) : u
    }
}

/// How one section (or the loop) turns a pass and a time into play time: from plain numbers
/// and a table of tempo pieces, so the core and the audio thread share it.
///
/// - constant (no pieces): `(k·span + t) / tempo`, exactly as before tempo maps existed;
/// - the document's map over the region [A, B) (`ramp` false), each pass alike: `k·P(A, B) + P(A, A + t)`;
/// - a ramp over the section's musical position x = k·span + t, all its passes (`ramp` true): `P(0, x)`.
public struct SectionClock: Equatable, Sendable {
    /// The tempo of a constant section (without pieces); else the tempo at its start.
    public var tempo: Double
    /// B − A.
    public var span: Double
    /// Its pieces: `first ..< first + count` in the table (count 0: constant).
    public var first: Int
    public var count: Int
    /// The pieces are over the musical position from the section's start (a ramp), not over the region.
    public var ramp: Bool
    /// A (the region's start) for the map; 0 for a ramp.
    public var origin: Double
    /// P(A, B): one pass's play time when the map is followed.
    public var passPlay: Double

    /// A section at one tempo.
    public init(tempo: Double, span: Double) {
        self.tempo = tempo
        self.span = span
        first = 0
        count = 0
        ramp = false
        origin = 0
        passPlay = span / tempo
    }

    public init(tempo: Double, span: Double, first: Int, count: Int, ramp: Bool, origin: Double, passPlay: Double) {
        self.tempo = tempo
        self.span = span
        self.first = first
        self.count = count
        self.ramp = ramp
        self.origin = origin
        self.passPlay = passPlay
    }

    /// True when the section plays at one tempo throughout.
    @inlinable public var isConstant: Bool { count == 0 }

    /// Play time from the section's start of `time` (after the region's start) in pass `k`.
    @inlinable
    public func time(pass k: Int, time t: Double, pieces: UnsafePointer<TempoPiece>?) -> Double {
        guard count > 0, let pieces else { return (Double(k) * span + t) / tempo }
        let ps = pieces + first
        if ramp { return TempoCurve.play(from: 0, to: Double(k) * span + t, ps: ps, count: count) }
        return Double(k) * passPlay + TempoCurve.play(from: origin, to: origin + t, ps: ps, count: count)
    }

    /// The section's play time over `repeats` passes: R·span/τ, R·P(A, B), or P(0, R·span).
    @inlinable
    public func duration(repeats: Int, pieces: UnsafePointer<TempoPiece>?) -> Double {
        guard count > 0, let pieces else { return Double(repeats) * span / tempo }
        if ramp { return TempoCurve.play(from: 0, to: Double(repeats) * span, ps: pieces + first, count: count) }
        return Double(repeats) * passPlay
    }

    /// The musical position (seconds at x1 from the section's start, unwrapped across passes: k·span + t) heard at
    /// play time `s` from the section's start: the closed-form inverse of `time(pass:time:pieces:)`.
    @inlinable
    public func music(atPlay s: Double, pieces: UnsafePointer<TempoPiece>?) -> Double {
        guard count > 0, let pieces else { return s * tempo }
        let ps = pieces + first
        if ramp { return TempoCurve.time(after: s, from: 0, ps: ps, count: count) }
        guard passPlay > 0 else { return 0 }
        let k = (s / passPlay).rounded(.down)
        let u = TempoCurve.time(after: s - k * passPlay, from: origin, ps: ps, count: count)
        return k * span + min(max(u - origin, 0), span)
    }

    /// The tempo heard at musical position `x` (k·span + t) of the section.
    @inlinable
    public func tempo(atMusic x: Double, pieces: UnsafePointer<TempoPiece>?) -> Double {
        guard count > 0, let pieces else { return tempo }
        let ps = pieces + first
        if ramp { return TempoCurve.tempo(at: x, ps: ps, count: count) }
        let t = span > 0 ? x - (x / span).rounded(.down) * span : 0
        return TempoCurve.tempo(at: origin + t, ps: ps, count: count)
    }
}

/// The loop's timing when it plays through a tempo map: where an instant of its playing is on the timeline.
public struct LoopTiming: Equatable, Sendable {
    /// The loop region's start.
    public var start: Double
    public var clock: SectionClock
    public var pieces: [TempoPiece]

    public init(start: Double, clock: SectionClock, pieces: [TempoPiece]) {
        self.start = start
        self.clock = clock
        self.pieces = pieces
    }

    /// The music (seconds at x1 from pass 0's start, unwrapped across passes) heard `seconds` of play after pass
    /// 0 started: the clock's closed-form inverse.
    public func music(atPlay seconds: Double) -> Double {
        pieces.withUnsafeBufferPointer { clock.music(atPlay: seconds, pieces: $0.baseAddress) }
    }

    /// The pass and the time on the timeline heard `seconds` of play after pass 0 started: the clock's inverse.
    public func place(atPlay seconds: Double) -> (pass: Int, time: Double) {
        let x = pieces.withUnsafeBufferPointer { clock.music(atPlay: max(seconds, 0), pieces: $0.baseAddress) }
        guard clock.span > 0 else { return (0, start) }
        let k = Int((x / clock.span).rounded(.down))
        let t = x - Double(k) * clock.span
        if t >= clock.span { return (k + 1, start) }
        return (k, start + max(t, 0))
    }
}
