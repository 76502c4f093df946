/// A rhythmic temperament: two subdivisions of one span, chosen beats of each paired up, and a slider that
/// moves every pair between its two positions (the paper's generalised swing).
///
/// Pair (i, j) sounds at `(1 - s) * i*L/a + s * j*L/b` with amplitude `(1 - s) * ampTop[i] + s * ampBottom[j]`
/// (clamped to 0...1). s = 0 is the top rhythm, s = 1 the bottom one; other values, past the ends included,
/// interpolate or extrapolate. The result is always listed in time order at the slider's value: when s goes
/// past the ends, or when explicit pairs cross, two dots may change places, and the result follows them
/// (ties keep the pairs' order). Times are not wrapped into the span: an extrapolated beat may fall before 0
/// or after L, and stamping puts it there.
///
/// Value type; any thread.
public struct Temperament: Hashable, Sendable {
    /// One template row: a subdivision of the span and the beats chosen from it.
    public struct Row: Hashable, Sendable {
        /// The number of even pulses in the span (a or b).
        public var division: Int
        /// Chosen beats, 0-based, ascending, each < division.
        public var beats: [Int]
        /// Amplitude of each pulse of the subdivision (count == division).
        public var amps: [Double]

        public static let defaultAmp = 0.8

        public init(division: Int, beats: [Int], amps: [Double]? = nil) {
            self.division = division
            self.beats = beats
            self.amps = amps ?? Array(repeating: Row.defaultAmp, count: max(division, 0))
        }

        /// Whether pulse `beat` is chosen.
        public func isChosen(_ beat: Int) -> Bool { beats.contains(beat) }

        /// The amplitude of pulse `beat` (the default when the amps list is short).
        public func amp(_ beat: Int) -> Double {
            beat >= 0 && beat < amps.count ? amps[beat] : Row.defaultAmp
        }

        /// The row with a new subdivision: beats past the end are dropped, amplitudes kept where they exist.
        public func resized(to division: Int) -> Row {
            let d = max(division, 1)
            var amps = Array(self.amps.prefix(d))
            amps += Array(repeating: Row.defaultAmp, count: d - amps.count)
            return Row(division: d, beats: beats.filter { $0 < d }, amps: amps)
        }

        /// The row with one beat chosen or unchosen.
        public func toggling(_ beat: Int) -> Row {
            var r = self
            if let k = r.beats.firstIndex(of: beat) { r.beats.remove(at: k) } else { r.beats = (r.beats + [beat]).sorted() }
            return r
        }

        /// Resolves a beat choice (`0,2,4`, `all`, `euclid(K,R)`) against this row's division.
        /// - Parameter name: `top` or `bottom`, for the error message.
        /// - Throws: `CommandError` for a beat out of range or a bad Euclid k.
        public static func beats(_ choice: BeatChoice, division: Int, name: String) throws -> [Int] {
            guard division >= 1 else { throw CommandError("temper: the \(name) subdivision must be at least 1 (got \(division))") }
            switch choice {
            case .all:
                return Array(0..<division)
            case .list(let list):
                for b in list where !(0..<division).contains(b) {
                    throw CommandError("temper: \(name) beat \(b) is out of range for \(division) pulses (0-\(division - 1))")
                }
                return Array(Set(list)).sorted()
            case .euclid(let k, let r):
                guard (0...division).contains(k) else {
                    throw CommandError("temper: \(name) euclid(\(k)): k must be 0-\(division) for \(division) pulses")
                }
                return try Euclid.beats(k: k, n: division, rotation: r)
            }
        }
    }

    /// A mapped pair: beat `top` of the top subdivision goes to beat `bottom` of the bottom one.
    public struct Pair: Hashable, Sendable {
        public var top: Int
        public var bottom: Int
        public init(top: Int, bottom: Int) {
            self.top = top
            self.bottom = bottom
        }
    }

    /// One dot of the result: a pair at the slider's value.
    public struct Beat: Hashable, Sendable {
        /// Index into `pairs`.
        public var pair: Int
        /// Seconds after the cycle's start, at tempo x1.
        public var time: Double
        public var amp: Double
    }

    /// The slider's range in the designer: far enough past the ends to extend a rhythm into new ones.
    public static let sliderRange = -0.5...1.5

    /// Seconds at tempo x1.
    public var span: Double
    public var top: Row
    public var bottom: Row
    /// Explicit pairs; nil means the default: the i-th chosen top beat to the i-th chosen bottom beat.
    /// With unequal counts the default pairs the first min(count) beats and leaves the rest unpaired.
    public var map: [Pair]?
    /// 0 = the top rhythm, 1 = the bottom one; values past the ends extrapolate.
    public var slider: Double

    public init(span: Double, top: Row, bottom: Row, map: [Pair]? = nil, slider: Double = 0) {
        self.span = span
        self.top = top
        self.bottom = bottom
        self.map = map
        self.slider = slider
    }

    /// The pairs in effect: the explicit map as given, or the default map.
    public var pairs: [Pair] {
        if let map { return map }
        return zip(top.beats, bottom.beats).map { Pair(top: $0, bottom: $1) }
    }

    /// Chosen beats the default map leaves without a partner (0 with an explicit map or equal counts).
    public var unpaired: (top: Int, bottom: Int) {
        guard map == nil else { return (0, 0) }
        let n = min(top.beats.count, bottom.beats.count)
        return (top.beats.count - n, bottom.beats.count - n)
    }

    /// The time of top beat `i` (s = 0).
    public func topTime(_ i: Int) -> Double { Double(i) * span / Double(top.division) }
    /// The time of bottom beat `j` (s = 1).
    public func bottomTime(_ j: Int) -> Double { Double(j) * span / Double(bottom.division) }

    /// The result time of one pair at slider `s`: `(1 - s) * i*L/a + s * j*L/b`.
    public func time(of pair: Pair, slider s: Double) -> Double {
        (1 - s) * topTime(pair.top) + s * bottomTime(pair.bottom)
    }

    /// The amplitude of one pair at slider `s`, interpolated like the time and clamped to 0...1.
    public func amp(of pair: Pair, slider s: Double) -> Double {
        min(max((1 - s) * top.amp(pair.top) + s * bottom.amp(pair.bottom), 0), 1)
    }

    /// The result at slider `s` (the stored slider when nil), in time order; ties keep the pairs' order.
    public func result(slider s: Double? = nil) -> [Beat] {
        let s = s ?? slider
        let beats = pairs.enumerated().map { k, p in Beat(pair: k, time: time(of: p, slider: s), amp: amp(of: p, slider: s)) }
        return beats.sorted { $0.time < $1.time || ($0.time == $1.time && $0.pair < $1.pair) }
    }

    /// The result's inter-onset intervals at slider `s`, in seconds at tempo x1, wrapping around: the last one
    /// runs from the last dot to the first dot of the next cycle (one span later). Empty for no dots.
    public func intervals(slider s: Double? = nil) -> [Double] {
        let times = result(slider: s).map(\.time)
        guard let first = times.first else { return [] }
        var iois = zip(times.dropFirst(), times).map { $0 - $1 }
        iois.append(first + span - times[times.count - 1])
        return iois
    }

    /// For a two-dot result, long over short as the swing ratio players speak of (2.00 is triplet swing):
    /// the first interval over the second. nil unless there are exactly two dots and the second interval is positive.
    public func swingRatio(slider s: Double? = nil) -> Double? {
        let iois = intervals(slider: s)
        guard iois.count == 2, iois[1] > 0 else { return nil }
        return iois[0] / iois[1]
    }

    /// Checks what a command must not accept; the message is one line for the user.
    public func validate() throws {
        guard span.isFinite, span > 0, span <= Limits.maxTime else {
            throw CommandError("temper: span must be a positive time up to \(Limits.seconds(Limits.maxTime)) s (got \(Limits.seconds(span)))")
        }
        try Limits.checkSlider(slider, "temper: the slider")
        for (name, row) in [("top", top), ("bottom", bottom)] {
            guard row.division >= 1 else {
                throw CommandError("temper: the \(name) subdivision must be at least 1 (got \(row.division))")
            }
            for b in row.beats where !(0..<row.division).contains(b) {
                throw CommandError("temper: \(name) beat \(b) is out of range for \(row.division) pulses (0-\(row.division - 1))")
            }
        }
        guard let map else { return }
        var seen = Set<Pair>()
        for p in map {
            guard (0..<top.division).contains(p.top) else {
                throw CommandError("temper: map \(p.top)-\(p.bottom): top beat \(p.top) is out of range for \(top.division) pulses (0-\(top.division - 1))")
            }
            guard (0..<bottom.division).contains(p.bottom) else {
                throw CommandError("temper: map \(p.top)-\(p.bottom): bottom beat \(p.bottom) is out of range for \(bottom.division) pulses (0-\(bottom.division - 1))")
            }
            guard top.isChosen(p.top) else {
                throw CommandError("temper: map \(p.top)-\(p.bottom): top beat \(p.top) is not chosen (top: \(Temperament.describe(top.beats)))")
            }
            guard bottom.isChosen(p.bottom) else {
                throw CommandError("temper: map \(p.top)-\(p.bottom): bottom beat \(p.bottom) is not chosen (bottom: \(Temperament.describe(bottom.beats)))")
            }
            guard seen.insert(p).inserted else { throw CommandError("temper: map pair \(p.top)-\(p.bottom) is given twice") }
        }
    }

    /// Builds and checks a temperament from the parts of `temper span=... top=... bottom=... [map=...] [s=...]`.
    /// An explicit map is kept sorted by (top, bottom). Returns a note when the default map leaves beats unpaired.
    public static func define(span: Double, top a: Int, topBeats: BeatChoice, bottom b: Int,
                              bottomBeats: BeatChoice, map: [Pair]?, slider: Double?,
                              keepingAmpsOf old: Temperament? = nil) throws -> (Temperament, note: String?) {
        let topRow = Row(division: a, beats: try Row.beats(topBeats, division: a, name: "top"))
        let bottomRow = Row(division: b, beats: try Row.beats(bottomBeats, division: b, name: "bottom"))
        var t = Temperament(span: span, top: topRow, bottom: bottomRow,
                            map: map.map { $0.sorted { ($0.top, $0.bottom) < ($1.top, $1.bottom) } },
                            slider: slider ?? old?.slider ?? 0.5)
        if let old {
            t.top.amps = old.top.resized(to: a).amps
            t.bottom.amps = old.bottom.resized(to: b).amps
        }
        try t.validate()
        return (t, t.unpairedNote)
    }

    /// Which template row.
    public enum RowName: String, Hashable, Sendable {
        case top, bottom
    }

    /// The row named `which`.
    public func row(_ which: RowName) -> Row { which == .top ? top : bottom }

    /// The temperament with one row replaced. An explicit map loses the pairs that name a beat no longer
    /// chosen, so the result stays valid while beats are toggled one by one.
    public func replacing(_ which: RowName, with row: Row) -> Temperament {
        var t = self
        if which == .top { t.top = row } else { t.bottom = row }
        if let map {
            t.map = map.filter { t.top.isChosen($0.top) && t.bottom.isChosen($0.bottom) }
        }
        return t
    }

    /// The temperament with top beat `i` paired to bottom beat `j` alone (nil: left unpaired). The default
    /// map becomes explicit first, so the other pairs stay as they were; several top beats may share a
    /// bottom beat.
    public func pairing(top i: Int, with j: Int?) -> Temperament {
        var t = self
        var pairs = self.pairs.filter { $0.top != i }
        if let j { pairs.append(Pair(top: i, bottom: j)) }
        t.map = pairs.sorted { ($0.top, $0.bottom) < ($1.top, $1.bottom) }
        return t
    }

    /// The bottom beat top beat `i` is paired with (the first, if several), nil when unpaired.
    public func partner(ofTop i: Int) -> Int? { pairs.first { $0.top == i }?.bottom }

    /// `paired the first 5 beats; 2 top beats unpaired` when the default map cannot pair every chosen beat.
    public var unpairedNote: String? {
        let (ut, ub) = unpaired
        guard ut > 0 || ub > 0 else { return nil }
        let n = pairs.count
        let side = ut > 0 ? "\(ut) top beat\(ut == 1 ? "" : "s")" : "\(ub) bottom beat\(ub == 1 ? "" : "s")"
        return "paired the first \(n) beat\(n == 1 ? "" : "s"); \(side) unpaired (give map= to choose)"
    }

    /// `0,2,4` (or `none`).
    static func describe(_ beats: [Int]) -> String {
        beats.isEmpty ? "none" : beats.map(String.init).joined(separator: ",")
    }

    /// The textual command that recreates this temperament's shape (amplitudes aside).
    /// The `temper span=...` command that sets this temperament's span, rows, map and slider exactly (the
    /// amplitudes are kept by `define` and set by `temper amp`).
    public var defining: Command {
        func choice(_ r: Row) -> BeatChoice { r.beats.isEmpty ? .euclid(k: 0, rotation: 0) : .list(r.beats) }
        return .temperDefine(span: span, top: top.division, topBeats: choice(top), bottom: bottom.division,
                             bottomBeats: choice(bottom), map: map, slider: slider)
    }

    /// How a row's beats are chosen (`0,2,4`, `all`, `euclid(K,R)`).
    public enum BeatChoice: Hashable, Sendable {
        case list([Int])
        case all
        /// E(k, n) rotated by r.
        case euclid(k: Int, rotation: Int)

        /// As the `temper` line writes it.
        public var text: String {
            switch self {
            case .all: return "all"
            case .list(let list): return list.map(String.init).joined(separator: ",")
            case .euclid(let k, let r): return r == 0 ? "euclid(\(k))" : "euclid(\(k),\(r))"
            }
        }
    }

    public var commandText: String {
        func row(_ r: Row) -> String {
            "\(r.division):" + (r.beats == Array(0..<r.division) ? "all" : Temperament.describe(r.beats))
        }
        var s = "temper span=\(Temperament.format(span)) top=\(row(top)) bottom=\(row(bottom))"
        if let map { s += " map=" + map.map { "\($0.top)-\($0.bottom)" }.joined(separator: ",") }
        return s + " s=\(Temperament.format(slider))"
    }

    /// Shortest decimal up to 6 places, without Foundation.
    static func format(_ x: Double) -> String {
        // Past 2^53 / 10^6 the millionths are not exact anyway (and past Int64 they would not convert).
        guard x.isFinite, abs(x) < 1e9 else { return x.isFinite ? DocumentFile.number(x) : String(x) }
        let scaled = (x * 1_000_000).rounded()
        let negative = scaled < 0
        let v = Int64(abs(scaled))
        let whole = v / 1_000_000, frac = v % 1_000_000
        var s = (negative ? "-" : "") + String(whole)
        if frac != 0 {
            var f = String(frac)
            f = String(repeating: "0", count: 6 - f.count) + f
            while f.last == "0" { f.removeLast() }
            s += "." + f
        }
        return s
    }
}
