/// The bounds on what a shared document's participants and host tell each other: every number read from the
/// other side of a connection is checked against these before it is used (a cursor drawn, a track chosen, a
/// start time waited for), and one outside them refuses the whole message in one line.
extension Limits {
    /// The widest subdivision a participant's view may carry (as `subdivide` takes).
    public static let maxSubdivision = 10_000
    /// The most markers a participant's selection may name: a document's whole.
    public static var maxSelected: Int { maxMarkers }
    /// The largest change or request number, clock reading or byte count a message may carry: 2^53, past which
    /// a JSON number is no longer an exact integer.
    public static let maxWireInteger = 1 << 53
    /// The largest clock reading (seconds, monotonic, either side's) a message may carry: about 317 years.
    public static let maxClock = 1e10
    /// The fastest pace a shared transport may say (music seconds a second), as far as tempo goes.
    public static let maxRate = 1_000.0

    /// Throws unless `t` is a cursor's time (0 to `maxTime`).
    public static func checkCursor(_ t: Double) throws {
        guard t.isFinite, t >= 0, t <= maxTime else {
            throw CommandError("a cursor at \(seconds(t)) s is outside 0 to \(seconds(maxTime)) s")
        }
    }

    /// Throws unless `k` is a track index a document may have (0 up to `maxTracks`).
    public static func checkTrack(_ k: Int) throws {
        guard k >= 0, k < maxTracks else {
            throw CommandError("track \(count(k)) is outside 0 to \(count(maxTracks - 1))")
        }
    }

    /// Throws unless `n` is a count or number from 0 up to `limit` (`what`: what it counts, for the message).
    public static func checkCount(_ n: Int, upTo limit: Int, _ what: String) throws {
        guard n >= 0, n <= limit else {
            throw CommandError("\(what) \(count(n)) is outside 0 to \(count(limit))")
        }
    }

    /// Throws unless `t` is a clock reading (finite, from `-maxClock` to `maxClock`).
    public static func checkClock(_ t: Double, _ what: String) throws {
        guard t.isFinite, abs(t) <= maxClock else {
            throw CommandError("\(what) \(seconds(t)) is not a clock reading")
        }
    }

    /// Throws unless `x` is finite and from 0 to `limit` (`what`: what it is, for the message).
    public static func checkSpan(_ x: Double, upTo limit: Double, _ what: String) throws {
        guard x.isFinite, x >= 0, x <= limit else {
            throw CommandError("\(what) \(seconds(x)) is outside 0 to \(seconds(limit))")
        }
    }
}
