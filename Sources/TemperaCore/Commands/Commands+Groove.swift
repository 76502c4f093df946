/// Probability, ratchets, humanize and grooves (DESIGN §20): each runs one `GrooveCommand` on the session.
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
        var text: String { GrooveCommand.prob(p).text }
        func run(in session: Session) throws -> String? { try session.runGroove(.prob(p)) }
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
            let u = spec.usage
            let w = try p.next("N", usage: u)
            if w.equals != nil { throw p.fail("unexpected '\(Limits.echo(w.text))' (\(u))", at: w) }
            let parts = w.text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let countWord = LineParser.Word(text: String(parts[0]), columns: Array(w.columns.prefix(parts[0].count)),
                                            column: w.column, end: w.column + parts[0].count, quoted: false, equals: nil)
            let k = try p.integer(countWord, "ratchet", MarkerExtras.repRange)
            var span: Double?
            if parts.count == 2 {
                let spanWord = LineParser.Word(text: String(parts[1]), columns: Array(w.columns.dropFirst(parts[0].count + 1)),
                                               column: w.column + parts[0].count + 1, end: w.end, quoted: false, equals: nil)
                span = try p.number(spanWord, "ratchet span", { $0 > 0 && $0 <= CommandParser.maxTime },
                                    "must be greater than 0 and at most 10000000")
            }
            try p.end(usage: u)
            return Ratchet(count: k, span: span)
        }
        var text: String { GrooveCommand.ratchet(count, span: span).text }
        func run(in session: Session) throws -> String? { try session.runGroove(.ratchet(count, span: span)) }
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
                                    { (0...GrooveCommand.maxHumanize).contains($0) }, "must be from 0 to 1000 (milliseconds)")
            let amp = try opts["amp"].map { try p.number($0, "amp", in: 0...1) } ?? 0
            let seed = try opts["seed"].map { UInt64(try p.integer($0, "seed", 0...Int(Int32.max))) }
            return Humanize(time: time, amp: amp, seed: seed)
        }
        var text: String { GrooveCommand.humanize(time: time, amp: amp, seed: seed).text }
        func run(in session: Session) throws -> String? { try session.runGroove(.humanize(time: time, amp: amp, seed: seed)) }
    }

    /// `groove extract N [grid=G]`: the selection's groove into group N, G steps a beat (default: the grid, or 4).
    struct GrooveExtract: CommandBody {
        var group: Int
        var grid: Int?
        static let spec = CommandSpec("groove extract", usage: "groove extract N [grid=G]",
                                      help: "the selection's groove (offsets and amplitudes from a grid) into group N",
                                      flags: .touchesSelection)
        static let examples = [GrooveExtract(group: 5, grid: 4), GrooveExtract(group: 1, grid: nil)]
        static func parse(_ p: inout LineParser) throws -> GrooveExtract {
            let n = try p.integer(try p.next("N", usage: "groove extract N [grid=G] | groove apply N [time=S] [amp=S]"),
                                  "group", GroupBank.range)
            let opts = try p.options(["grid"], usage: "groove extract N [grid=G]")
            return GrooveExtract(group: n, grid: try opts["grid"].map { try p.integer($0, "grid", 1...CommandParser.maxQuantize) })
        }
        var text: String { GrooveCommand.extract(group, grid: grid).text }
        func run(in session: Session) throws -> String? { try session.runGroove(.extract(group, grid: grid)) }
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
            let n = try p.integer(try p.next("N", usage: "groove extract N [grid=G] | groove apply N [time=S] [amp=S]"),
                                  "group", GroupBank.range)
            let opts = try p.options(["time", "amp"], usage: "groove apply N [time=S] [amp=S]")
            func fraction(_ key: String) throws -> Double {
                try opts[key].map { try p.number($0, key, in: 0...1) } ?? 1
            }
            return GrooveApply(group: n, time: try fraction("time"), amp: try fraction("amp"))
        }
        var text: String { GrooveCommand.apply(group, time: time, amp: amp).text }
        func run(in session: Session) throws -> String? { try session.runGroove(.apply(group, time: time, amp: amp)) }
    }

    /// The groove command `g` as a command of the table.
    public static func groove(_ g: GrooveCommand) -> Command {
        switch g {
        case .prob(let p): return Command(Prob(p: p))
        case .ratchet(let k, let span): return Command(Ratchet(count: k, span: span))
        case .humanize(let time, let amp, let seed): return Command(Humanize(time: time, amp: amp, seed: seed))
        case .extract(let n, let grid): return Command(GrooveExtract(group: n, grid: grid))
        case .apply(let n, let time, let amp): return Command(GrooveApply(group: n, time: time, amp: amp))
        }
    }
}
