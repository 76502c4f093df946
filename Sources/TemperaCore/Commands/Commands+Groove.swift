/// Probability, ratchets, humanize and grooves: each runs its own `Session` method, one undo step.
extension Command {
    /// `prob P`: the selected elements sound with probability P on each pass (`p=`).
    struct Prob: CommandBody {
        var p: Double
        static let spec = CommandSpec("prob", usage: "prob P", help: "the selection sounds with probability P a pass",
                                      flags: .touchesSelection)
        static let examples = [Prob(p: 0.5), Prob(p: 1)]
        static func parse(_ p: inout LineParser) throws -> Prob {
            let v = try p.only("P", usage: spec.usage) { try $0.number($1, "prob", in: 0...1) }
            return Prob(p: v)
        }
        var text: String { "prob \(Command.number(p))" }
        func run(in session: Session) throws -> String? { try session.runProb(p) }
    }

    /// `ratchet N[:SPAN]`: the selected elements play N equal hits over SPAN seconds (default: up to the next
    /// marker); `ratchet 1` removes a ratchet.
    struct Ratchet: CommandBody {
        var count: Int
        var span: Double?
        static let spec = CommandSpec("ratchet", usage: "ratchet N[:SPAN]",
                                      help: "the selection plays N equal hits (over SPAN seconds; 1: no ratchet)",
                                      flags: .touchesSelection)
        static let examples = [Ratchet(count: 3, span: nil), Ratchet(count: 4, span: 0.125), Ratchet(count: 1, span: nil)]
        static func parse(_ p: inout LineParser) throws -> Ratchet {
            let (k, span) = try p.only("N", usage: spec.usage) { try $0.ratchet($1, usage: spec.usage) }
            return Ratchet(count: k, span: span)
        }
        var text: String { "ratchet \(count)" + (span.map { ":\(Command.number($0))" } ?? "") }
        func run(in session: Session) throws -> String? { try session.runRatchet(count, span: span) }
    }

    /// `humanize time=MS [amp=A] [seed=K]`: each selected element moved by up to ±MS milliseconds and its
    /// amplitude by up to ±A, drawn from K (default: the document's seed) and the marker's track and time.
    struct Humanize: CommandBody {
        var time: Double
        var amp: Double
        var seed: UInt64?
        static let spec = CommandSpec("humanize", usage: "humanize time=MS [amp=A] [seed=K]",
                                      help: "the selection moved by up to ±MS ms (and amp by up to ±A), reproducibly",
                                      flags: .touchesSelection)
        static let examples = [Humanize(time: 10, amp: 0, seed: nil), Humanize(time: 7.5, amp: 0.1, seed: 42)]
        static func parse(_ p: inout LineParser) throws -> Humanize {
            let u = spec.usage
            let opts = try p.options(["time", "amp", "seed"], usage: u)
            let time = try p.number(try p.required(opts, "time", usage: u), "time",
                                    { (0...maxMilliseconds).contains($0) }, "must be from 0 to 1000 (milliseconds)")
            let amp = try opts["amp"].map { try p.number($0, "amp", in: 0...1) } ?? 0
            let seed = try opts["seed"].map { UInt64(try p.integer($0, "seed", 0...Int(Int32.max))) }
            return Humanize(time: time, amp: amp, seed: seed)
        }
        var text: String {
            "humanize time=\(Command.number(time))" + (amp == 0 ? "" : " amp=\(Command.number(amp))") + (seed.map { " seed=\($0)" } ?? "")
        }
        func run(in session: Session) throws -> String? {
            try session.runHumanize(time: time, amp: amp, seed: seed ?? session.document.seed)
        }
        /// The most milliseconds `humanize` moves a marker.
        static let maxMilliseconds = 1000.0
    }

    /// Every `groove` command's usage, for a message that does not know which was meant.
    static let grooveUsage = "groove extract N [grid=G] [span=S] | groove apply N [time=S] [amp=S] | groove save NAME [N] | groove load NAME [N]"

    /// `groove extract N [grid=G] [span=S]`: the selection's groove into group N, G steps a beat (default: the
    /// grid, or 4), over one period: the loop, or S seconds.
    struct GrooveExtract: CommandBody {
        var group: Int
        var grid: Int?
        var span: Double?
        static let spec = CommandSpec("groove extract", usage: "groove extract N [grid=G] [span=S]",
                                      help: "the selection's groove (offsets and amplitudes from a grid, over the loop or S s) into group N",
                                      flags: .touchesSelection)
        static let examples = [GrooveExtract(group: 5, grid: 4, span: nil), GrooveExtract(group: 1, grid: nil, span: nil),
                               GrooveExtract(group: 2, grid: 4, span: 4)]
        static func parse(_ p: inout LineParser) throws -> GrooveExtract {
            let n = try p.integer(try p.next("N", usage: Command.grooveUsage), "group", GroupBank.range)
            let opts = try p.options(["grid", "span"], usage: spec.usage)
            return GrooveExtract(group: n, grid: try opts["grid"].map { try p.integer($0, "grid", 1...CommandParser.maxQuantize) },
                                 span: try opts["span"].map {
                                     try p.number($0, "span", { $0 > 0 && $0 <= CommandParser.maxTime }, "must be greater than 0 and at most 10000000")
                                 })
        }
        var text: String {
            "groove extract \(group)" + (grid.map { " grid=\($0)" } ?? "") + (span.map { " span=\(Command.number($0))" } ?? "")
        }
        func run(in session: Session) throws -> String? {
            try session.runGrooveExtract(group, steps: grid ?? session.document.transport.grid ?? 4, span: span)
        }
    }

    /// `groove save NAME [N]`: group N's groove (the first holding one) kept in the user's library of grooves.
    struct GrooveSave: CommandBody {
        var name: String
        var group: Int?
        static let spec = CommandSpec("groove save", usage: "groove save NAME [N]",
                                      help: "keep group N's groove as NAME in your grooves, for any document")
        static let examples = [GrooveSave(name: "mpc-16", group: nil), GrooveSave(name: "swing.2", group: 3)]
        static func parse(_ p: inout LineParser) throws -> GrooveSave {
            let (name, n) = try grooveName(&p, usage: spec.usage)
            return GrooveSave(name: name, group: n)
        }
        var text: String { "groove save \(Command.quote(name))" + (group.map { " \($0)" } ?? "") }
        func run(in session: Session) throws -> String? { try session.runGrooveSave(name, group: group) }
    }

    /// `groove load NAME [N]`: a kept groove into group N (the first empty group), one undo step.
    struct GrooveLoad: CommandBody {
        var name: String
        var group: Int?
        static let spec = CommandSpec("groove load", usage: "groove load NAME [N]",
                                      help: "a groove kept with groove save into group N (the first empty one)")
        static let examples = [GrooveLoad(name: "mpc-16", group: nil), GrooveLoad(name: "swing.2", group: 3)]
        static func parse(_ p: inout LineParser) throws -> GrooveLoad {
            let (name, n) = try grooveName(&p, usage: spec.usage)
            return GrooveLoad(name: name, group: n)
        }
        var text: String { "groove load \(Command.quote(name))" + (group.map { " \($0)" } ?? "") }
        func run(in session: Session) throws -> String? { try session.runGrooveLoad(name, group: group) }
    }

    /// `NAME [N]` of `groove save` and `groove load`, the name checked.
    static func grooveName(_ p: inout LineParser, usage: String) throws -> (String, Int?) {
        let w = try p.next("NAME", usage: usage)
        if w.equals != nil && !w.quoted { throw p.fail("missing NAME before '\(Limits.echo(w.text))' (\(usage))", at: w) }
        if let why = GrooveLibrary.nameProblem(w.text) { throw p.fail(why, at: w) }
        var n: Int?
        if p.position < p.words.count { n = try p.integer(try p.next("N", usage: usage), "group", GroupBank.range) }
        try p.end(usage: usage)
        return (w.text, n)
    }

    /// `groove apply N [time=S] [amp=S]`: the selection moves toward group N's groove by the fractions given.
    struct GrooveApply: CommandBody {
        var group: Int
        var time: Double
        var amp: Double
        static let spec = CommandSpec("groove apply", usage: "groove apply N [time=S] [amp=S]",
                                      help: "the selection toward group N's groove, by the fractions given (1)",
                                      flags: .touchesSelection)
        static let examples = [GrooveApply(group: 5, time: 1, amp: 1), GrooveApply(group: 2, time: 0.5, amp: 0)]
        static func parse(_ p: inout LineParser) throws -> GrooveApply {
            let n = try p.integer(try p.next("N", usage: Command.grooveUsage), "group", GroupBank.range)
            let opts = try p.options(["time", "amp"], usage: "groove apply N [time=S] [amp=S]")
            func fraction(_ key: String) throws -> Double {
                try opts[key].map { try p.number($0, key, in: 0...1) } ?? 1
            }
            return GrooveApply(group: n, time: try fraction("time"), amp: try fraction("amp"))
        }
        var text: String {
            "groove apply \(group)" + (time == 1 ? "" : " time=\(Command.number(time))") + (amp == 1 ? "" : " amp=\(Command.number(amp))")
        }
        func run(in session: Session) throws -> String? { try session.runGrooveApply(group, time: time, amp: amp) }
    }

    public static func prob(_ p: Double) -> Command { Command(Prob(p: p)) }
    public static func ratchet(_ count: Int, span: Double? = nil) -> Command { Command(Ratchet(count: count, span: span)) }
    public static func humanize(time: Double, amp: Double = 0, seed: UInt64? = nil) -> Command {
        Command(Humanize(time: time, amp: amp, seed: seed))
    }
    public static func grooveExtract(_ group: Int, grid: Int? = nil, span: Double? = nil) -> Command {
        Command(GrooveExtract(group: group, grid: grid, span: span))
    }
    public static func grooveSave(_ name: String, group: Int? = nil) -> Command { Command(GrooveSave(name: name, group: group)) }
    public static func grooveLoad(_ name: String, group: Int? = nil) -> Command { Command(GrooveLoad(name: name, group: group)) }
    public static func grooveApply(_ group: Int, time: Double = 1, amp: Double = 1) -> Command {
        Command(GrooveApply(group: group, time: time, amp: amp))
    }
}

extension LineParser {
    /// `N` or `N:SPAN` (a ratchet: hits, and the seconds they share).
    func ratchet(_ w: Word, usage: String) throws -> (Int, Double?) {
        if w.equals != nil { throw fail("unexpected '\(Limits.echo(w.text))' (\(usage))", at: w) }
        let parts = w.text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let countWord = Word(text: String(parts[0]), columns: Array(w.columns.prefix(parts[0].count)),
                             column: w.column, end: w.column + parts[0].count, quoted: false, equals: nil)
        let k = try integer(countWord, "ratchet", MarkerExtras.repRange)
        guard parts.count == 2 else { return (k, nil) }
        let spanWord = Word(text: String(parts[1]), columns: Array(w.columns.dropFirst(parts[0].count + 1)),
                            column: w.column + parts[0].count + 1, end: w.end, quoted: false, equals: nil)
        let span = try number(spanWord, "ratchet span", { $0 > 0 && $0 <= CommandParser.maxTime },
                              "must be greater than 0 and at most 10000000")
        return (k, span)
    }
}
