/// Placing markers and clips: the cursor, markers, pulses, the modes, drawing and pattern codes.
extension Command {
    struct Cursor: CommandBody {
        var time: Double
        static let spec = CommandSpec("cursor", usage: "cursor TIME", help: "move the cursor (current track)",
                                      flags: .viewOnly)
        static let examples = [Cursor(time: 0.375)]
        static func parse(_ p: inout LineParser) throws -> Cursor {
            let v = try p.only("TIME", usage: spec.usage) { try $0.time($1, "cursor") }
            return Cursor(time: v)
        }
        var text: String { "cursor \(Command.number(time))" }
        func run(in session: Session) throws -> String? { try session.runCursor(time) }
    }

    /// `marker add TIME [amp=A] [clip=C]`: with a clip, a marker already at exactly TIME on the current track
    /// takes the clip (and the amplitude, when given) instead of a second marker being stacked on it.
    struct MarkerAdd: CommandBody {
        var time: Double
        var amp: Double?
        var content: Content?
        /// `p=P`, `rep=N[:SPAN]`, `from=SECONDS`, `to=SECONDS`: the marker's probability, ratchet and slice.
        var extras = MarkerExtras()
        static let spec = CommandSpec("marker add", usage: "marker add TIME [amp=A] [clip=C] [p=P] [rep=N[:SPAN]] [from=S] [to=S]",
                                      help: "add a marker to the current track (with clip=C a marker already at TIME takes the clip)")
        static let examples = [MarkerAdd(time: 0.5, amp: nil, content: nil), MarkerAdd(time: 1.25, amp: 0.3, content: .clip(2)),
                               MarkerAdd(time: 2, amp: nil, content: .random),
                               MarkerAdd(time: 1, amp: 1, content: .clip(1), extras: MarkerExtras(p: 0.5, rep: 4, repSpan: 0.25, from: 1.5)),
                               MarkerAdd(time: 0.5, amp: 1, content: .clip(1), extras: MarkerExtras(from: 0.5, to: 0.75))]
        static func parse(_ p: inout LineParser) throws -> MarkerAdd {
            let usage = spec.usage
            let t = try p.time(try p.next("TIME", usage: usage), "time")
            let opts = try p.options(["amp", "clip", "p", "rep", "from", "to"], usage: usage)
            var content: Content?
            if let c = opts["clip"] {
                guard let parsed = Content(code: c.text) else {
                    throw p.fail("clip must be 1-16, +, - or ?, not '\(c.text)'", at: c)
                }
                content = parsed
            }
            var extras = MarkerExtras()
            if let w = opts["p"] { extras.p = try p.number(w, "p", in: 0...1) }
            if let w = opts["rep"] { (extras.rep, extras.repSpan) = try p.ratchet(w, usage: usage) }
            if let w = opts["from"] { extras.from = try p.time(w, "from") }
            if let w = opts["to"] { extras.to = try p.time(w, "to") }
            return MarkerAdd(time: t, amp: try opts["amp"].map(p.amp), content: content, extras: extras)
        }
        var text: String {
            "marker add \(Command.number(time))" + (amp.map { " amp=\(Command.number($0))" } ?? "")
                + (content.map { " clip=\($0.code)" } ?? "") + (extras.isDefault ? "" : " " + extras.text)
        }
        func run(in session: Session) throws -> String? {
            try session.runMarkerAdd(time: time, amp: amp, content: content, extras: extras)
        }
    }

    public struct Pulse: CommandBody {
        public var period: Double
        public var count: Int
        public var start: Double?
        public var amp: Double?
        public static let spec = CommandSpec("pulse", usage: "pulse period=TIME count=N [start=TIME] [amp=A]",
                                      help: "N evenly spaced markers on the current track (from the cursor, or start)")
        public static let examples = [Pulse(period: 0.5, count: 8, start: nil, amp: nil), Pulse(period: 0.25, count: 3, start: 1, amp: 0.6)]
        public static func parse(_ p: inout LineParser) throws -> Pulse {
            let usage = spec.usage
            let opts = try p.options(["period", "count", "start", "amp"], usage: usage)
            let period = try p.number(try p.required(opts, "period", usage: usage), "period",
                                      { $0 > 0 && $0 <= CommandParser.maxTime }, "must be greater than 0 and at most 10000000")
            let count = try p.integer(try p.required(opts, "count", usage: usage), "count", 1...Limits.maxAddedMarkers)
            return Pulse(period: period, count: count, start: try opts["start"].map { try p.time($0, "start") },
                         amp: try opts["amp"].map(p.amp))
        }
        public var text: String {
            "pulse period=\(Command.number(period)) count=\(count)" + (start.map { " start=\(Command.number($0))" } ?? "")
                + (amp.map { " amp=\(Command.number($0))" } ?? "")
        }
        public func run(in session: Session) throws -> String? {
            try session.runPulse(period: period, count: count, start: start, amp: amp)
        }
    }

    struct ClipMode: OnOrOff {
        var on: Bool
        static let spec = CommandSpec("mode clip", usage: "mode clip on|off",
                                      help: "clip mode: the tools act on clips instead of markers", flags: .viewOnly)
        func run(in session: Session) throws -> String? {
            session.clipMode = on
            return nil
        }
    }

    struct Snap: OnOrOff {
        var on: Bool
        static let spec = CommandSpec("snap", usage: "snap on|off",
                                      help: "snap: clips go onto existing markers (off: a clip brings its own marker)",
                                      flags: .viewOnly)
        func run(in session: Session) throws -> String? {
            session.snap = on
            return nil
        }
    }

    /// The clip drawing places: 1...16, `+`, `-` or `?`.
    struct ChooseClip: CommandBody {
        var content: Content
        static let spec = CommandSpec("clip", usage: "clip C", help: "choose the clip drawing places: 1..16 (or its key: @ is 12), + hold, - rest (cuts the sound), ? random",
                                      flags: .viewOnly)
        static let examples = [ChooseClip(content: .clip(16)), ChooseClip(content: .hold), ChooseClip(content: .rest),
                               ChooseClip(content: .random)]
        static func parse(_ p: inout LineParser) throws -> ChooseClip {
            let usage = spec.usage
            let word = try p.next("C", usage: usage)
            guard let content = Content(code: word.text) else {
                throw p.fail("unknown clip '\(Limits.echo(word.text))' (clips are 1-16 or 0!@#$%^, + hold, - rest, ? random)", at: word)
            }
            try p.end(usage: usage)
            return ChooseClip(content: content)
        }
        var text: String { "clip \(content.code)" }
        func run(in session: Session) throws -> String? { try session.runChooseClip(content) }
    }

    struct DrawGroup: CommandBody {
        var group: Int
        static let spec = CommandSpec("draw group", usage: "draw group N", help: "stamp group N at the cursor")
        static let examples = [DrawGroup(group: 3)]
        static func parse(_ p: inout LineParser) throws -> DrawGroup {
            let n = try p.only("N", usage: spec.usage) { try $0.integer($1, "group", GroupBank.range) }
            return DrawGroup(group: n)
        }
        var text: String { "draw group \(group)" }
        func run(in session: Session) throws -> String? { try session.runGroupStamp(group, times: 1) }
    }

    struct Draw: CommandBody {
        var amp: Double?
        static let spec = CommandSpec("draw", usage: "draw [amp=A]",
                                      help: "draw at the cursor: a marker, or in clip mode the chosen clip")
        static let examples = [Draw(amp: nil), Draw(amp: 0.4)]
        static func parse(_ p: inout LineParser) throws -> Draw {
            let opts = try p.options(["amp"], usage: "draw [amp=A] | draw group N")
            return Draw(amp: try opts["amp"].map(p.amp))
        }
        var text: String { "draw" + (amp.map { " amp=\(Command.number($0))" } ?? "") }
        func run(in session: Session) throws -> String? { try session.runDraw(amp: amp) }
    }

    /// Typing draw.
    struct TypeCode: CommandBody {
        var code: PatternCode
        static let spec = CommandSpec("type", usage: "type \"CODE\"",
                                      help: "typing draw: the code's clips onto the next markers without a clip")
        static let examples = [TypeCode(code: try! PatternParser.parse("1 2 - +"))]
        static func parse(_ p: inout LineParser) throws -> TypeCode { TypeCode(code: try p.code(1, p.words.count, usage: spec.usage)) }
        var text: String { "type \(Command.quote(code.source))" }
        func run(in session: Session) throws -> String? { try session.runType(code) }
    }

    struct Fill: CommandBody {
        var code: PatternCode
        static let spec = CommandSpec("fill", usage: "fill \"CODE\"",
                                      help: "pattern fill from the cursor, or over the selection if there is one (- rests, cutting the sound before it; . skips a marker)")
        static let examples = [Fill(code: try! PatternParser.parse("(1 -)x2 3x2 +"))]
        static func parse(_ p: inout LineParser) throws -> Fill { Fill(code: try p.code(1, p.words.count, usage: spec.usage)) }
        var text: String { "fill \(Command.quote(code.source))" }
        func run(in session: Session) throws -> String? { try session.runFill(code) }
    }

    /// `spread "CODE"`: the code's symbols spread evenly over the loop on the current track, one equal step
    /// each, as a drum machine divides a bar (`1x4` on the beats, `.2.2` on 2 and 4, `1x5` quintuplets).
    struct Spread: CommandBody {
        var code: PatternCode
        static let spec = CommandSpec("spread", usage: "spread \"CODE\"",
                                      help: "the code's symbols over the loop in equal steps, on the current track (- rests, cutting the sound before it; . leaves a step empty)", flags: .touchesSelection)
        static let examples = [Spread(code: try! PatternParser.parse(".2.2"))]
        static func parse(_ p: inout LineParser) throws -> Spread { Spread(code: try p.code(1, p.words.count, usage: spec.usage)) }
        var text: String { "spread \(Command.quote(code.source))" }
        func run(in session: Session) throws -> String? { try session.runSpread(code) }
    }

    /// `pattern "CODE"`: the pattern code the fill and pattern-select tools use, kept with the document.
    struct Pattern: CommandBody {
        var code: String
        static let spec = CommandSpec("pattern", usage: "pattern \"CODE\"",
                                      help: "the pattern code the fill and pattern-select tools use (kept with the document)")
        static let examples = [Pattern(code: "1 - 3x2")]
        static func parse(_ p: inout LineParser) throws -> Pattern {
            Pattern(code: try p.code(1, p.words.count, usage: spec.usage).source)
        }
        var text: String { "pattern " + Command.quote(code) }
        func run(in session: Session) throws -> String? { try session.runPattern(code) }
    }

    public static func cursor(_ time: Double) -> Command { Command(Cursor(time: time)) }
    public static func markerAdd(time: Double, amp: Double?, content: Content? = nil, extras: MarkerExtras = MarkerExtras()) -> Command {
        Command(MarkerAdd(time: time, amp: amp, content: content, extras: extras))
    }
    public static func pulse(period: Double, count: Int, start: Double?, amp: Double?) -> Command {
        Command(Pulse(period: period, count: count, start: start, amp: amp))
    }
    public static func clipMode(_ on: Bool) -> Command { Command(ClipMode(on: on)) }
    public static func snap(_ on: Bool) -> Command { Command(Snap(on: on)) }
    public static func chooseClip(_ content: Content) -> Command { Command(ChooseClip(content: content)) }
    public static func draw(amp: Double?) -> Command { Command(Draw(amp: amp)) }
    public static func drawGroup(_ group: Int) -> Command { Command(DrawGroup(group: group)) }
    public static func type(_ code: PatternCode) -> Command { Command(TypeCode(code: code)) }
    public static func fill(_ code: PatternCode) -> Command { Command(Fill(code: code)) }
    public static func spread(_ code: PatternCode) -> Command { Command(Spread(code: code)) }
    public static func pattern(_ code: String) -> Command { Command(Pattern(code: code)) }
}
