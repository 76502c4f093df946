/// The commands of time that bends: the tempo map's points, a section's ramp and meter, a track's
/// own cycle and ratio.
extension Command {
    /// `tempo at TIME X [shape=S]` adds or replaces a point; `tempo at TIME delete` removes one (`tempo` nil).
    struct TempoAt: CommandBody {
        var time: Double
        var tempo: Double?
        var shape: TempoMap.Shape
        static let spec = CommandSpec("tempo at", usage: "tempo at TIME X [shape=step|linear|exp] | tempo at TIME delete",
                                      help: "a point of the tempo map: tempo X from TIME on, the shape its way to the next point")
        static let examples = [TempoAt(time: 8, tempo: 1, shape: .linear), TempoAt(time: 2, tempo: 1.5, shape: .step),
                               TempoAt(time: 8, tempo: nil, shape: .step)]
        static func parse(_ p: inout LineParser) throws -> TempoAt {
            let usage = spec.usage
            let time = try p.time(try p.next("TIME", usage: usage), "time")
            let w = try p.next("X or delete", usage: usage)
            if p.isKeyword(w, "delete") {
                try p.end(usage: "tempo at TIME delete")
                return TempoAt(time: time, tempo: nil, shape: .step)
            }
            let x = try p.sectionTempo(w)
            return TempoAt(time: time, tempo: x, shape: try p.shapeOption(usage: usage, allowed: TempoMap.Shape.allCases, default: .step))
        }
        var text: String {
            guard let tempo else { return "tempo at \(Command.number(time)) delete" }
            return "tempo at \(Command.number(time)) \(Command.number(tempo))" + (shape == .step ? "" : " shape=\(shape.rawValue)")
        }
        func run(in session: Session) throws -> String? {
            guard let tempo else { return try session.runTempoPointDelete(time) }
            return try session.runTempoPoint(time: time, value: tempo, bpm: false, shape: shape)
        }
    }

    /// `bpm at TIME B [shape=S]`: a tempo point in beats per minute of the document's beat.
    struct BPMAt: CommandBody {
        var time: Double
        var bpm: Double
        var shape: TempoMap.Shape
        static let spec = CommandSpec("bpm at", usage: "bpm at TIME B [shape=step|linear|exp]",
                                      help: "a point of the tempo map in beats a minute")
        static let examples = [BPMAt(time: 0, bpm: 90, shape: .linear), BPMAt(time: 8, bpm: 120, shape: .step)]
        static func parse(_ p: inout LineParser) throws -> BPMAt {
            let usage = spec.usage
            let time = try p.time(try p.next("TIME", usage: usage), "time")
            let b = try p.number(try p.next("B", usage: usage), "bpm", { $0 > 0 && $0.isFinite }, "must be greater than 0")
            return BPMAt(time: time, bpm: b, shape: try p.shapeOption(usage: usage, allowed: TempoMap.Shape.allCases, default: .step))
        }
        var text: String {
            "bpm at \(Command.number(time)) \(Command.number(bpm))" + (shape == .step ? "" : " shape=\(shape.rawValue)")
        }
        func run(in session: Session) throws -> String? {
            try session.runTempoPoint(time: time, value: bpm, bpm: true, shape: shape)
        }
    }

    /// `tempo clear`: no map, the document's tempo throughout.
    struct TempoClear: WordsOnly {
        static let spec = CommandSpec("tempo clear", usage: "tempo clear", help: "empty the tempo map")
        func run(in session: Session) throws -> String? { try session.runTempoClear() }
    }

    /// `section N bpm B[..B2] [shape=linear|exp]`.
    struct SectionBPM: CommandBody {
        var section: Int
        var bpm: Double
        var end: Double?
        var shape: TempoMap.Shape
        static let spec = CommandSpec("section N bpm", usage: "section N bpm B[..B2] [shape=linear|exp]",
                                      help: "section N's tempo in beats a minute; B..B2 ramps over all its repeats")
        static let examples = [SectionBPM(section: 1, bpm: 90, end: 120, shape: .linear),
                               SectionBPM(section: 2, bpm: 100, end: nil, shape: .linear),
                               SectionBPM(section: 1, bpm: 90, end: 120, shape: .exp)]
        static func parse(_ p: inout LineParser) throws -> SectionBPM {
            let (x, y, shape) = try p.rampValues(usage: spec.usage) {
                try $0.number($1, "bpm", { $0 > 0 && $0.isFinite }, "must be greater than 0")
            }
            return SectionBPM(section: p.selector ?? 1, bpm: x, end: y, shape: shape)
        }
        var text: String {
            "section \(section) bpm \(Command.number(bpm))" + (end.map { "..\(Command.number($0))" } ?? "")
                + (end != nil && shape != .linear ? " shape=\(shape.rawValue)" : "")
        }
        func run(in session: Session) throws -> String? {
            guard let end else { return try session.runSection(section, .bpm(bpm)) }
            return try session.runSection(section, .ramp(from: bpm, to: end, bpm: true, shape: shape))
        }
    }

    /// `section N meter N/D [groups=A+B+...]|off`.
    struct SectionMeter: CommandBody {
        var section: Int
        var meter: Meter?
        static let spec = CommandSpec("section N meter", usage: "section N meter N[/D] [groups=A+B+...] | section N meter off",
                                      help: "section N's own time signature (off: the document's)")
        static let examples = [SectionMeter(section: 1, meter: Meter(3)), SectionMeter(section: 2, meter: nil),
                               SectionMeter(section: 3, meter: Meter(7, 8, groups: [2, 2, 3]))]
        static func parse(_ p: inout LineParser) throws -> SectionMeter {
            let usage = spec.usage
            if p.position < p.words.count, p.isKeyword(p.words[p.position], "off") {
                _ = try p.offOr("N/D or off", usage: usage) { _, _ in 0 }
                return SectionMeter(section: p.selector ?? 1, meter: nil)
            }
            return SectionMeter(section: p.selector ?? 1, meter: try p.meter(usage: usage))
        }
        var text: String { "section \(section) meter \(meter?.text ?? "off")" }
        func run(in session: Session) throws -> String? { try session.runSection(section, .meter(meter)) }
    }

    /// `track [N] cycle A B | off`.
    struct TrackCycle: CommandBody {
        var track: Int?
        var cycle: Track.Cycle?
        static let spec = CommandSpec("track [N] cycle", usage: "track [N] cycle A B | track [N] cycle off",
                                      help: "the track repeats its own region A..B from the start of the loop or section")
        static let examples = [TrackCycle(track: 2, cycle: Track.Cycle(start: 0, end: 0.75)), TrackCycle(track: nil, cycle: nil)]
        static func parse(_ p: inout LineParser) throws -> TrackCycle {
            let usage = spec.usage
            let cycle = try p.offOr("A B or off", usage: usage) { p, w in
                let a = try p.time(w, "cycle start")
                let second = try p.next("B", usage: usage)
                let b = try p.time(second, "cycle end")
                guard b > a else { throw p.fail("the cycle must end after it starts (\(LineParser.show(a)))", at: second) }
                return Track.Cycle(start: a, end: b)
            }
            return TrackCycle(track: p.selector, cycle: cycle)
        }
        var text: String {
            Command.trackPrefix(track) + "cycle " + (cycle.map { "\(Command.number($0.start)) \(Command.number($0.end))" } ?? "off")
        }
        func run(in session: Session) throws -> String? { try session.runTrackCycle(track, cycle) }
    }

    /// `track [N] ratio R`, R an exact expression kept as typed.
    struct TrackRatio: CommandBody {
        var track: Int?
        var ratio: String
        static let spec = CommandSpec("track [N] ratio", usage: "track [N] ratio R",
                                      help: "the track plays R times as fast (an expression: 3/2, 18/17, sqrt(2))")
        static let examples = [TrackRatio(track: 2, ratio: "18/17"), TrackRatio(track: nil, ratio: "sqrt(2)")]
        static func parse(_ p: inout LineParser) throws -> TrackRatio {
            let usage = spec.usage
            let w = try p.next("R", usage: usage)
            let r = Track.ratioRange
            _ = try p.number(w, "ratio", { r.contains($0) }, "must be from 1/64 to 64")
            try p.end(usage: usage)
            return TrackRatio(track: p.selector, ratio: w.text)
        }
        var text: String { Command.trackPrefix(track) + "ratio \(Command.quote(ratio))" }
        func run(in session: Session) throws -> String? { try session.runTrackRatio(track, ratio) }
    }

    public static func tempoPoint(time: Double, value: Double, bpm: Bool, shape: TempoMap.Shape) -> Command {
        bpm ? Command(BPMAt(time: time, bpm: value, shape: shape)) : Command(TempoAt(time: time, tempo: value, shape: shape))
    }
    public static func tempoPointDelete(_ time: Double) -> Command { Command(TempoAt(time: time, tempo: nil, shape: .step)) }
    public static var tempoClear: Command { Command(TempoClear()) }
    public static func trackCycle(track: Int?, _ cycle: Track.Cycle?) -> Command { Command(TrackCycle(track: track, cycle: cycle)) }
    public static func trackRatio(track: Int?, _ ratio: String) -> Command { Command(TrackRatio(track: track, ratio: ratio)) }
}

extension LineParser {
    /// An optional `shape=` among `allowed` (the rest of the line), else `fallback`.
    mutating func shapeOption(usage: String, allowed: [TempoMap.Shape], default fallback: TempoMap.Shape) throws -> TempoMap.Shape {
        let opts = try options(["shape"], usage: usage)
        guard let w = opts["shape"] else { return fallback }
        guard let s = TempoMap.Shape(rawValue: w.text), allowed.contains(s) else {
            throw fail("shape must be \(allowed.map(\.rawValue).joined(separator: ", ")), not '\(Limits.echo(w.text))'", at: w)
        }
        return s
    }

    /// The two halves of `X..Y`, or nil when the word holds no `..`.
    func rampHalves(_ word: Word) -> (Word, Word)? {
        let scalars = Array(word.text.unicodeScalars)
        guard !word.quoted, word.equals == nil, scalars.count >= 2 else { return nil }
        for i in 0..<(scalars.count - 1) where scalars[i] == "." && scalars[i + 1] == "." {
            func part(_ r: Range<Int>) -> Word {
                let cols = Array(word.columns[r])
                var text = String.UnicodeScalarView()
                text.append(contentsOf: scalars[r])
                return Word(text: String(text), columns: cols, column: cols.first ?? word.column + r.lowerBound,
                            end: (cols.last.map { $0 + 1 }) ?? word.column + r.lowerBound, quoted: false, equals: nil)
            }
            return (part(0..<i), part((i + 2)..<scalars.count))
        }
        return nil
    }

    /// `X` or `X..Y [shape=linear|exp]` read with `value` (a ramp's shape defaults to linear).
    mutating func rampValues(usage: String, _ value: (inout LineParser, Word) throws -> Double)
        throws -> (Double, Double?, TempoMap.Shape) {
        let w = try next("X", usage: usage)
        if let (a, b) = rampHalves(w) {
            let x = try value(&self, a), y = try value(&self, b)
            return (x, y, try shapeOption(usage: usage, allowed: [.linear, .exp], default: .linear))
        }
        let x = try value(&self, w)
        try end(usage: usage)
        return (x, nil, .linear)
    }
}
