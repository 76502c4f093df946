/// The groove and step-sequencer commands (DESIGN §20): probability, ratchets, humanize, grooves.
public enum GrooveCommand: Hashable, Sendable {
    /// `prob P`: the selected elements sound with probability P on each pass (`p=`).
    case prob(Double)
    /// `ratchet N[:SPAN]`: the selected elements play N equal hits over SPAN seconds (default: up to the next
    /// marker); `ratchet 1` removes a ratchet.
    case ratchet(Int, span: Double?)
    /// `humanize time=MS [amp=A] [seed=K]`: each selected element moved by up to ±MS milliseconds and its
    /// amplitude by up to ±A, drawn from K (default: the document's seed) and the marker's track and time.
    case humanize(time: Double, amp: Double, seed: UInt64?)
    /// `groove extract N [grid=G]`: the selection's groove into group N, G steps a beat (default: the grid, or 4).
    case extract(Int, grid: Int?)
    /// `groove apply N [time=S] [amp=S]`: the selection moves toward group N's groove by the fractions given.
    case apply(Int, time: Double, amp: Double)

    /// The command's textual form.
    public var text: String {
        let n = DocumentFile.number
        switch self {
        case .prob(let p): return "prob \(n(p))"
        case .ratchet(let k, let span): return "ratchet \(k)" + (span.map { ":\(n($0))" } ?? "")
        case .humanize(let time, let amp, let seed):
            return "humanize time=\(n(time))" + (amp == 0 ? "" : " amp=\(n(amp))") + (seed.map { " seed=\($0)" } ?? "")
        case .extract(let g, let grid): return "groove extract \(g)" + (grid.map { " grid=\($0)" } ?? "")
        case .apply(let g, let time, let amp):
            return "groove apply \(g)" + (time == 1 ? "" : " time=\(n(time))") + (amp == 1 ? "" : " amp=\(n(amp))")
        }
    }

    /// The command names these forms start with.
    public static let names = ["prob", "ratchet", "humanize", "groove"]
    /// The forms, for help and error messages.
    public static let forms = ["prob P", "ratchet N[:SPAN]", "humanize time=MS [amp=A] [seed=K]",
                               "groove extract N [grid=G]", "groove apply N [time=S] [amp=S]"]
    /// The most milliseconds `humanize` moves a marker.
    public static let maxHumanize = 1000.0
}

extension LineParser {
    /// `prob`, `ratchet`, `humanize` and `groove ...`, the head word already read.
    mutating func parseGroove(_ head: Word) throws -> GrooveCommand {
        guard head.text == "groove" else { return try parseGrooveArguments(head.text) }
        let u = "groove extract N [grid=G] | groove apply N [time=S] [amp=S]"
        let verb = try next("extract or apply", usage: u)
        if isKeyword(verb, "extract") { return try parseGrooveArguments("groove extract") }
        if isKeyword(verb, "apply") { return try parseGrooveArguments("groove apply") }
        var message = "unknown groove command '\(Limits.echo(verb.text))' (\(u))"
        if let near = Self.nearest(verb.text, in: ["extract", "apply"]) {
            message = "unknown groove command '\(Limits.echo(verb.text))' (did you mean '\(near)'?)"
        }
        throw fail(message, at: verb)
    }

    /// The arguments of one groove form (`prob`, `ratchet`, `humanize`, `groove extract`, `groove apply`), read
    /// after its words.
    mutating func parseGrooveArguments(_ form: String) throws -> GrooveCommand {
        switch form {
        case "prob":
            let u = "prob P"
            let p = try number(try next("P", usage: u), "prob", { (0...1).contains($0) }, "must be from 0 to 1")
            try end(usage: u)
            return .prob(p)
        case "ratchet":
            let u = "ratchet N[:SPAN]"
            let w = try next("N", usage: u)
            if w.equals != nil { throw fail("unexpected '\(Limits.echo(w.text))' (\(u))", at: w) }
            let parts = w.text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let countWord = Word(text: String(parts[0]), columns: Array(w.columns.prefix(parts[0].count)), column: w.column,
                                 end: w.column + parts[0].count, quoted: false, equals: nil)
            let k = try integer(countWord, "ratchet", MarkerExtras.repRange)
            var span: Double?
            if parts.count == 2 {
                let spanWord = Word(text: String(parts[1]), columns: Array(w.columns.dropFirst(parts[0].count + 1)),
                                    column: w.column + parts[0].count + 1, end: w.end, quoted: false, equals: nil)
                span = try number(spanWord, "ratchet span", { $0 > 0 && $0 <= CommandParser.maxTime },
                                  "must be greater than 0 and at most 10000000")
            }
            try end(usage: u)
            return .ratchet(k, span: span)
        case "humanize":
            let u = "humanize time=MS [amp=A] [seed=K]"
            let opts = try options(["time", "amp", "seed"], usage: u)
            let time = try number(try required(opts, "time", usage: u), "time",
                                  { (0...GrooveCommand.maxHumanize).contains($0) }, "must be from 0 to 1000 (milliseconds)")
            let amp = try opts["amp"].map { try number($0, "amp", { (0...1).contains($0) }, "must be from 0 to 1") } ?? 0
            let seed = try opts["seed"].map { UInt64(try integer($0, "seed", 0...Int(Int32.max))) }
            return .humanize(time: time, amp: amp, seed: seed)
        case "groove extract":
            let u = "groove extract N [grid=G]"
            let n = try integer(try next("N", usage: u), "group", GroupBank.range)
            let opts = try options(["grid"], usage: u)
            return .extract(n, grid: try opts["grid"].map { try integer($0, "grid", 1...CommandParser.maxQuantize) })
        default:
            let u = "groove apply N [time=S] [amp=S]"
            let n = try integer(try next("N", usage: u), "group", GroupBank.range)
            let opts = try options(["time", "amp"], usage: u)
            func fraction(_ key: String) throws -> Double {
                try opts[key].map { try number($0, key, { (0...1).contains($0) }, "must be from 0 to 1") } ?? 1
            }
            return .apply(n, time: try fraction("time"), amp: try fraction("amp"))
        }
    }

    /// `temper fit [max=N] [span=TIME]`, after its words.
    mutating func parseTemperFit() throws -> TemperCommand {
        let u = "temper fit [max=N] [span=TIME]"
        let opts = try options(["max", "span"], usage: u)
        let most = try opts["max"].map { try integer($0, "max", 2...64) } ?? 16
        let span = try opts["span"].map {
            try number($0, "span", { $0 > 0 && $0 <= CommandParser.maxTime }, "must be greater than 0 and at most 10000000")
        }
        return .fit(max: most, span: span)
    }
}
