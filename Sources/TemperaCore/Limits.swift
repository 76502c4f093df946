#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bounds every document keeps, one set for the commands and the file reader alike, so that whatever a
/// command produces can be saved and opened again, and no input makes tempera trap or work for hours.
///
/// Commands check what they would produce before doing any work (`checkAdding`, `checkTime`), and `Edit` checks
/// every marker, group and designer state it is given, whatever command gives it: a command that would break a
/// limit throws one line naming the limit and the value it would have reached, and changes nothing. The reader
/// refuses the same values in a file. Work is bounded by what plays, not by how a value is written: after every
/// edit `Session.perform` checks what the tracks' own cycles make a second (`cycleProblem`), and loops and
/// sections are bounded in length (`checkLoop`, `minSpan`); strings and files are bounded as they are read.
///
/// Safe to use from any thread.
public enum Limits {
    /// The latest time (seconds) a marker, a group offset or span, a loop end or a document length may have:
    /// about 116 days, far past any rhythm, and small enough that every sample frame fits an Int64 at any rate.
    public static let maxTime = 10_000_000.0

    // The fuzzers (`make fuzz`, built with TEMPERA_FUZZ) use smaller marker limits: the same checks, reached in
    // milliseconds rather than seconds, so that a million inputs take minutes.

    /// The most markers a document holds. Measured: opening and saving a million markers peaks at about 135 MB
    /// (the markers, their id index, the file's bytes and the text written), so the limit means about 1.4 GB
    /// and a file of 350-450 MB.
    #if TEMPERA_FUZZ
    public static let maxMarkers = 5_000
    #else
    public static let maxMarkers = 10_000_000
    #endif

    /// The most markers one command may add (pulse, subdivide, group stamp, temper stamp and morph), and the
    /// most clips a pattern code may unroll to: about a second of work.
    #if TEMPERA_FUZZ
    public static let maxAddedMarkers = 1_000
    #else
    public static let maxAddedMarkers = 1_000_000
    #endif

    /// The designer's slider values: well past the -0.5...1.5 of its lane, still small enough that no result
    /// time overflows.
    public static let sliderRange = -100.0...100.0

    /// Sanity bound on how many tracks a document holds (each is a lane on the screen).
    public static let maxTracks = 10_000

    /// The most events a second of the timeline (at tempo x1) that the tracks with their own cycle may make
    /// together: a track's cycle repeats by itself, so without a bound a cycle of a nanosecond holding one
    /// marker would make a billion events a second of playing from one line. A track makes (the markers in its
    /// cycle, at least 1) × its ratio / the cycle's length; a tempo (at most x20) plays them faster still.
    public static let maxCycleEventsPerSecond = 100_000.0

    /// The longest loop region (seconds at x1): what plays over and over, and what `render` writes once a pass.
    /// An hour renders in well under a minute; a timeline may be longer (the song plays its sections).
    public static let maxLoopLength = 3_600.0

    /// The shortest loop region or section (seconds at x1): a pass may hold one marker, so this bounds the
    /// passes, and the events of an emptied-out region, a second of playing may make.
    public static let minSpan = 1 / maxCycleEventsPerSecond

    /// The longest string a document or a message may hold (a name, a path, the pattern's text), in bytes of
    /// UTF-8: a reader refuses a longer one as soon as it has seen this much of it.
    public static let maxStringBytes = 1 << 20

    /// The most memory an undo history holds (`History.Step.bytes`): past it the oldest steps are dropped. A
    /// shift of 100,000 markers costs about 6.4 MB a step, one marker added 96 bytes, a tempo point some
    /// kilobytes. 256 MiB, or
    /// `TEMPERA_MAX_HISTORY_MB` megabytes when set (1 or more).
    public static let maxHistoryBytes: Int = {
        if let text = getenv("TEMPERA_MAX_HISTORY_MB"), let mb = Int(String(cString: text)), mb >= 1 {
            return min(mb, 1 << 20) << 20
        }
        return 256 << 20
    }()

    /// The largest file a document is read from: ten million markers (`maxMarkers`) write 350-450 MB.
    public static let maxFileBytes = 1 << 30

    /// `1000000` as `1,000,000`: counts in messages.
    public static func count(_ n: Int) -> String {
        let digits = Array(String(n.magnitude))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// A size for a message: `256 MiB`, `64 KiB`, `100 bytes` (whole units, rounded down).
    public static func bytes(_ n: Int) -> String {
        if n >= 1 << 20 { return count(n >> 20) + " MiB" }
        if n >= 1 << 10 { return count(n >> 10) + " KiB" }
        return count(n) + " bytes"
    }

    /// A time in seconds for a message: a whole number without a fraction, else shortest round trip.
    public static func seconds(_ t: Double) -> String {
        if !t.isFinite { return t.isNaN ? "an undefined time" : (t < 0 ? "-infinity" : "infinity") }
        return DocumentFile.number(t)
    }

    /// `a * b`, saturating at `Int.max` instead of trapping (both non-negative).
    public static func product(_ a: Int, _ b: Int) -> Int {
        let (p, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? Int.max : p
    }

    /// `a + b`, saturating at `Int.max` instead of trapping (both non-negative).
    public static func sum(_ a: Int, _ b: Int) -> Int {
        let (s, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : s
    }

    /// Throws unless a command that adds `count` markers to a document of `existing` may run.
    /// - Parameter what: the command's name, as the message starts ("subdivide").
    public static func checkAdding(_ count: Int, to existing: Int, _ what: String) throws {
        if count > maxAddedMarkers {
            throw CommandError("\(what) would add \(self.count(count)) markers; one command adds at most "
                + "\(self.count(maxAddedMarkers))")
        }
        let total = sum(existing, count)
        if total > maxMarkers {
            throw CommandError("\(what) would make \(self.count(total)) markers; a document holds at most "
                + "\(self.count(maxMarkers))")
        }
    }

    /// Throws unless `t` is a time a document may hold (0 to `maxTime`).
    /// - Parameter what: what the time is, as the message starts ("pulse would put a marker at").
    public static func checkTime(_ t: Double, _ what: String) throws {
        if t.isFinite, t >= 0, t <= maxTime { return }
        if t.isFinite, t < 0 { throw CommandError("\(what) \(seconds(t)) s, before 0") }
        throw CommandError("\(what) \(seconds(t)) s, past the time limit (\(seconds(maxTime)) s)")
    }

    /// Throws unless `s` is a slider value a document may hold.
    public static func checkSlider(_ s: Double, _ what: String) throws {
        guard s.isFinite, sliderRange.contains(s) else {
            throw CommandError("\(what) must be from \(seconds(sliderRange.lowerBound)) to "
                + "\(seconds(sliderRange.upperBound)), not \(s.isFinite ? seconds(s) : String(s))")
        }
    }

    /// Why a group breaks the limits (its span or an offset past `maxTime`), as a phrase to follow a command's
    /// name ("would make a group span ..."); nil when it keeps them.
    public static func groupProblem(_ g: Group) -> String? {
        let limit = "past the time limit (\(seconds(maxTime)) s)"
        if !(g.span >= 0 && g.span <= maxTime) { return "would make a group span \(seconds(g.span)) s, \(limit)" }
        for e in g.elements where !(e.offset >= 0 && e.offset <= maxTime) {
            return "would put a group element at \(seconds(e.offset)) s, \(limit)"
        }
        return nil
    }

    /// The events a second of the timeline (at x1) the tracks of `tracks` with their own cycle make together:
    /// each max(1, its markers in the cycle) × ratio / the cycle's length.
    public static func cycleEventsPerSecond(_ tracks: [Track]) -> (total: Double, worst: Int?) {
        var total = 0.0, worst: Int?, most = 0.0
        for (i, t) in tracks.enumerated() {
            guard let c = t.cycle else { continue }
            let n = t.markers.lowerBound(time: c.end) - t.markers.lowerBound(time: c.start)
            let rate = Double(max(n, 1)) * t.ratio / (c.end - c.start)
            total += rate
            if rate > most { (most, worst) = (rate, i) }
        }
        return (total, worst)
    }

    /// Why the tracks' own cycles make too many events a second of playing, as a phrase to follow a command's
    /// name ("would make ..."); nil when they keep the limit.
    public static func cycleProblem(_ tracks: [Track]) -> String? {
        let (total, worst) = cycleEventsPerSecond(tracks)
        guard !(total <= maxCycleEventsPerSecond), let worst, let c = tracks[worst].cycle else { return nil }
        let rate = total >= 1e18 || !total.isFinite ? "more than 10^18" : count(Int(total.rounded(.up)))
        return "would make \(rate) events a second of playing (track \(worst + 1)'s cycle of "
            + "\(seconds(c.end - c.start)) s); the tracks' own cycles make at most \(count(Int(maxCycleEventsPerSecond)))"
    }

    /// Throws unless `a..b` may be the loop region: at least `minSpan`, at most `maxLoopLength` long.
    public static func checkLoop(_ a: Double, _ b: Double) throws {
        let span = b - a
        if span < minSpan { throw CommandError("the loop must be at least \(seconds(minSpan)) s long, not \(seconds(span)) s") }
        if span > maxLoopLength {
            throw CommandError("the loop must be at most \(seconds(maxLoopLength)) s long, not \(seconds(span)) s")
        }
    }

    /// A piece of user text for a message: at most `limit` characters (the rest elided as `…`), control
    /// characters (C0, DEL and C1) escaped as `\u{..}`, so an echo is one short, harmless line.
    public static func echo(_ text: String, limit: Int = 40) -> String {
        var out = ""
        var n = 0
        for scalar in text.unicodeScalars {
            if n == limit {
                out += "…"
                break
            }
            n += 1
            let v = scalar.value
            if v < 0x20 || (0x7F...0x9F).contains(v) {
                out += "\\u{" + String(v, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
