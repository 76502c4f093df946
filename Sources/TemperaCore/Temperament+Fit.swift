/// `temper fit`: the temperament that best explains given times. Pure; any thread.
extension Temperament {
    /// A fitted temperament and how well it explains the times.
    public struct Fit: Sendable, Equatable {
        public var temperament: Temperament
        /// Root-mean-square distance of the times from their dots, seconds.
        public var rms: Double
        /// Where the cycle starts (the first time's dot is pair (0, 0), at this origin).
        public var origin: Double
    }

    /// The two subdivisions (each 1...`max`), the beats, the default map and the slider that place `times`
    /// (seconds, one cycle of `span`) best, by least squares on time.
    ///
    /// The k-th time (in order) is the k-th pair (i_k, j_k), the first being (0, 0), both rows' beats
    /// ascending: t_k = o + L((1 - s) i_k/a + s j_k/b). For each pair of divisions a < b, from a start of the
    /// slider at each tenth over its range, the pairs are chosen by dynamic programming (the nearest monotone
    /// assignment) and the origin o and slider s solved by linear least squares, three rounds. Of the fits whose
    /// rms is within 20% (plus 0.2 ms) of the best, or that have the divisions `prefer` (the designer's) and an rms
    /// within `fitTolerance`, the one with the divisions `prefer` wins,
    /// else the simplest: the fewest pulses a + b, then the one whose bottom row is the even pulse (all its beats
    /// chosen), then the slider nearer 0. Each a < b fit also stands for its mirror (b, a) at 1 - s.
    ///
    /// Before all of that, when `preferBeats` (the designer's rows) is given and the times fit those very rows,
    /// each time on one of their beats, within `fitTolerance`, that fit is the answer: the same dots are often
    /// also another pairing of the same divisions at another slider (swung eighths on 2 against 3:0,2 at 0.4 are
    /// 3:0,1 at -0.4), and the designer's own beats are the reading the user set up.
    ///
    /// Times seldom name one temperament alone: every temperament's dots move on a straight line as the slider
    /// moves, and any other point of that line on a grid is the top row of a temperament with the same result
    /// (3+2 on a twelve against an even five is also 7:0,1,2,3,5 against five, at s' = 5/12 + 7s/12). Such
    /// fits are equally exact; the preference for the designer's divisions lets a user who knows the rows find
    /// the slider, and without it the simplest equivalent is given.
    /// - Throws: `CommandError` for fewer than two times, times spread over more than a span, or more times
    ///   than `max` pulses can hold.
    public static func fit(_ times: [Double], span: Double, max maxDivision: Int = 16, prefer: (top: Int, bottom: Int)? = nil,
                           preferBeats: (top: Row, bottom: Row)? = nil) throws -> Fit {
        let t = times.sorted()
        let m = t.count
        guard m >= 2 else { throw CommandError("temper fit: select at least two markers of one span") }
        guard span > 0, span.isFinite else { throw CommandError("temper fit: the span must be positive") }
        guard t[m - 1] - t[0] < span else {
            throw CommandError("temper fit: the selection spans \(format(t[m - 1] - t[0])) s, more than one span (\(format(span)) s; give span=)")
        }
        guard (2...64).contains(maxDivision) else { throw CommandError("temper fit: max must be 2-64") }
        guard m <= maxDivision else {
            throw CommandError("temper fit: \(m) markers need more than \(maxDivision) pulses (raise max=)")
        }
        struct Candidate {
            var a: Int, b: Int, s: Double, o: Double, rms: Double, top: [Int], bottom: [Int]
        }
        var candidates: [Candidate] = []
        let starts = stride(from: sliderRange.lowerBound, through: sliderRange.upperBound + 1e-9, by: 0.1).map { $0 }
        // The designer's own rows first: each time on one of their beats.
        if let rows = preferBeats, m <= rows.top.beats.count, m <= rows.bottom.beats.count {
            let a = rows.top.division, b = rows.bottom.division
            let allowed = (Set(rows.top.beats), Set(rows.bottom.beats))
            var best: Candidate?
            for s0 in starts {
                var s = s0, o = t[0]
                var pairs: [(Int, Int)] = []
                var rms = Double.infinity
                for _ in 0..<3 {
                    guard let p = assign(t, a: a, b: b, span: span, slider: s, origin: o, allowed: allowed) else { break }
                    pairs = p
                    (o, s) = solve(t, pairs, a: a, b: b, span: span, fallback: s)
                    rms = residual(t, pairs, a: a, b: b, span: span, slider: s, origin: o)
                }
                guard rms.isFinite, sliderRange.contains(s) else { continue }
                // Equally good: the slider nearer the designer's range 0...1.
                if best == nil || rms < best!.rms - 1e-12 || (abs(rms - best!.rms) <= 1e-12 && outside(s) < outside(best!.s)) {
                    best = Candidate(a: a, b: b, s: s, o: o, rms: rms, top: pairs.map(\.0), bottom: pairs.map(\.1))
                }
            }
            if let c = best, c.rms <= fitTolerance {
                let temperament = Temperament(span: span, top: Row(division: a, beats: c.top),
                                              bottom: Row(division: b, beats: c.bottom), map: nil, slider: c.s)
                return Fit(temperament: temperament, rms: c.rms, origin: c.o)
            }
        }
        for a in max(m, 1)...maxDivision {
            for b in (a + 1)..<(maxDivision + 1) where b >= m {
                var best: Candidate?
                for s0 in starts {
                    var s = s0, o = t[0]
                    var pairs: [(Int, Int)] = []
                    var rms = Double.infinity
                    for _ in 0..<3 {
                        guard let p = assign(t, a: a, b: b, span: span, slider: s, origin: o) else { break }
                        pairs = p
                        (o, s) = solve(t, pairs, a: a, b: b, span: span, fallback: s)
                        rms = residual(t, pairs, a: a, b: b, span: span, slider: s, origin: o)
                    }
                    guard rms.isFinite, sliderRange.contains(s) else { continue }
                    if best == nil || rms < best!.rms - 1e-12 {
                        best = Candidate(a: a, b: b, s: s, o: o, rms: rms, top: pairs.map(\.0), bottom: pairs.map(\.1))
                    }
                }
                if let best { candidates.append(best) }
            }
        }
        guard let bestRms = candidates.map(\.rms).min() else {
            throw CommandError("temper fit: no temperament of up to \(maxDivision) pulses fits")
        }
        // Both orientations of each fit, simplest first among the good ones.
        var good: [(fit: Candidate, mirrored: Bool)] = []
        for c in candidates where c.rms <= bestRms * 1.2 + 0.0002
            || (prefer.map { Set([$0.top, $0.bottom]) == Set([c.a, c.b]) } == true && c.rms <= fitTolerance) {
            good.append((c, false))
            good.append((c, true))
        }
        func key(_ x: (fit: Candidate, mirrored: Bool)) -> (Int, Int, Int, Double, Double) {
            let c = x.fit
            let topDivision = x.mirrored ? c.b : c.a
            let bottomDivision = x.mirrored ? c.a : c.b
            let bottomBeats = x.mirrored ? c.top : c.bottom
            let s = x.mirrored ? 1 - c.s : c.s
            let even = bottomBeats == Array(0..<bottomDivision) ? 0 : 1
            let preferred = prefer.map { $0.top == topDivision && $0.bottom == bottomDivision } == true ? 0 : 1
            return (preferred, c.a + c.b, even, abs(s), c.rms)
        }
        let chosen = good.min { key($0) < key($1) }!
        let c = chosen.fit
        let (topDivision, topBeats, bottomDivision, bottomBeats, slider) = chosen.mirrored
            ? (c.b, c.bottom, c.a, c.top, 1 - c.s) : (c.a, c.top, c.b, c.bottom, c.s)
        let temperament = Temperament(span: span, top: Row(division: topDivision, beats: topBeats),
                                      bottom: Row(division: bottomDivision, beats: bottomBeats), map: nil, slider: slider)
        return Fit(temperament: temperament, rms: c.rms, origin: c.o)
    }

    /// The nearest assignment of the sorted times to pairs (i, j), both strictly increasing, the first (0, 0),
    /// at slider `s` and origin `o`: dynamic programming over (time, i, j) with prefix minima. Nil when there
    /// are more times than pulses.
    static func assign(_ t: [Double], a: Int, b: Int, span: Double, slider s: Double, origin o: Double,
                       allowed: (Set<Int>, Set<Int>)? = nil) -> [(Int, Int)]? {
        let m = t.count
        guard m <= a, m <= b else { return nil }
        if let allowed, !allowed.0.contains(0) || !allowed.1.contains(0) { return nil }
        let inf = Double.infinity
        func model(_ i: Int, _ j: Int) -> Double { o + span * ((1 - s) * Double(i) / Double(a) + s * Double(j) / Double(b)) }
        // cost[k][i*b + j]: the best sum of squares of times 0...k with time k at (i, j).
        var cost = [[Double]](repeating: [Double](repeating: inf, count: a * b), count: m)
        var from = [[Int]](repeating: [Int](repeating: -1, count: a * b), count: m)
        let d0 = t[0] - model(0, 0)
        cost[0][0] = d0 * d0
        for k in 1..<m {
            // best[i*b + j] = the least cost[k-1] over i' <= i, j' <= j, and where it is.
            var best = [Double](repeating: inf, count: a * b)
            var at = [Int](repeating: -1, count: a * b)
            let previous = cost[k - 1]
            for i in 0..<a {
                for j in 0..<b {
                    var v = previous[i * b + j], w = i * b + j
                    if i > 0, best[(i - 1) * b + j] < v { v = best[(i - 1) * b + j]; w = at[(i - 1) * b + j] }
                    if j > 0, best[i * b + j - 1] < v { v = best[i * b + j - 1]; w = at[i * b + j - 1] }
                    best[i * b + j] = v
                    at[i * b + j] = w
                }
            }
            for i in 1..<a where allowed?.0.contains(i) ?? true {
                for j in 1..<b where allowed?.1.contains(j) ?? true {
                    let p = best[(i - 1) * b + j - 1]
                    guard p < inf else { continue }
                    let d = t[k] - model(i, j)
                    cost[k][i * b + j] = p + d * d
                    from[k][i * b + j] = at[(i - 1) * b + j - 1]
                }
            }
        }
        guard let end = cost[m - 1].indices.min(by: { cost[m - 1][$0] < cost[m - 1][$1] }), cost[m - 1][end] < inf else {
            return nil
        }
        var pairs = [(Int, Int)](repeating: (0, 0), count: m)
        var cell = end
        for k in stride(from: m - 1, through: 0, by: -1) {
            pairs[k] = (cell / b, cell % b)
            cell = from[k][cell]
        }
        return pairs
    }

    /// Least squares of t_k = o + u_k + s (v_k - u_k), u = L i/a, v = L j/b: the origin and the slider.
    static func solve(_ t: [Double], _ pairs: [(Int, Int)], a: Int, b: Int, span: Double, fallback: Double) -> (Double, Double) {
        let n = Double(t.count)
        let u = pairs.map { span * Double($0.0) / Double(a) }
        let w = pairs.map { span * Double($0.1) / Double(b) - span * Double($0.0) / Double(a) }
        let y = zip(t, u).map { $0 - $1 }
        let mw = w.reduce(0, +) / n, my = y.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for k in t.indices { sxy += (w[k] - mw) * (y[k] - my); sxx += (w[k] - mw) * (w[k] - mw) }
        let s = sxx > 1e-18 ? sxy / sxx : fallback
        return (my - s * mw, s)
    }

    static func residual(_ t: [Double], _ pairs: [(Int, Int)], a: Int, b: Int, span: Double, slider s: Double,
                         origin o: Double) -> Double {
        var sum = 0.0
        for (k, p) in pairs.enumerated() {
            let d = t[k] - (o + span * ((1 - s) * Double(p.0) / Double(a) + s * Double(p.1) / Double(b)))
            sum += d * d
        }
        return (sum / Double(t.count)).squareRoot()
    }

    /// How far a slider lies outside 0...1 (0 inside).
    static func outside(_ s: Double) -> Double { max(0, -s, s - 1) }

    /// How far (rms, seconds) the designer's own divisions may miss the times and still be preferred: a few
    /// milliseconds of a player's spread, where five or so markers are explained as well by many finer grids.
    public static let fitTolerance = 0.005

    /// A row as `temper fit` reports it: the division, with its beats unless all are chosen (`12:0,2,4,6,9`, `5`).
    public static func fitText(_ r: Row) -> String {
        r.beats == Array(0..<r.division) ? "\(r.division)" : "\(r.division):" + r.beats.map(String.init).joined(separator: ",")
    }
}
