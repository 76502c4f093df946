/// A rhythmic temperament: two subdivisions of one span, chosen beats of each paired up, and a slider that
/// moves every pair between its two positions (the paper's generalised swing).
public struct Temperament: Hashable, Sendable {
    /// One template row: a subdivision of the span and the beats chosen from it.
    public struct Row: Hashable, Sendable {
        /// The number of even pulses in the span (a or b).
        public var division: Int
        /// Chosen beats, 0-based, ascending, each < division.
        public var beats: [Int]
        /// Amplitude of each pulse of the subdivision (count == division).
        public var amps: [Double]

        public init(division: Int, beats: [Int], amps: [Double]? = nil) {
            self.division = division
            self.beats = beats
            self.amps = amps ?? Array(repeating: 0.8, count: division)
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

    /// Seconds at tempo x1.
    public var span: Double
    public var top: Row
    public var bottom: Row
    /// Explicit pairs; nil means the default: the i-th chosen top beat to the i-th chosen bottom beat.
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

    /// The pairs in effect, in the order of their result times at s = 0.
    public var pairs: [Pair] {
        if let map { return map }
        return zip(top.beats, bottom.beats).map { Pair(top: $0, bottom: $1) }
    }

    /// The result time of one pair at slider `s`: `(1 - s) * i*L/a + s * j*L/b`.
    public func time(of pair: Pair, slider s: Double) -> Double {
        let a = Double(top.division), b = Double(bottom.division)
        return (1 - s) * Double(pair.top) * span / a + s * Double(pair.bottom) * span / b
    }
}
