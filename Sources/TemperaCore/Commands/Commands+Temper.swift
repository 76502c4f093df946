/// The rhythm designer's commands: each runs one `TemperCommand` on the session.
extension Command {
    struct TemperDefine: CommandBody {
        var span: Double
        var top: Int
        var topBeats: TemperCommand.BeatChoice
        var bottom: Int
        var bottomBeats: TemperCommand.BeatChoice
        var map: [Temperament.Pair]?
        var slider: Double?
        static let spec = CommandSpec(
            "temper =", usage: "temper span=TIME top=A:BEATS bottom=B:BEATS [map=I-J,...|none] [s=X]",
            help: "define the temperament: A pulses over B in SPAN; BEATS: 0,2,4 | all | euclid(K[,R])", flags: .touchesSelection)
        static let examples = [
            TemperDefine(span: 2, top: 7, topBeats: .euclid(k: 5, rotation: 6), bottom: 5, bottomBeats: .all, map: nil, slider: 0.5),
            TemperDefine(span: 1.5, top: 3, topBeats: .list([0, 2]), bottom: 2, bottomBeats: .euclid(k: 1, rotation: 0),
                         map: [Temperament.Pair(top: 0, bottom: 1)], slider: nil),
            TemperDefine(span: 1, top: 4, topBeats: .all, bottom: 3, bottomBeats: .all, map: [], slider: nil),
        ]
        static func parse(_ p: inout LineParser) throws -> TemperDefine {
            guard case .define(let span, let top, let topBeats, let bottom, let bottomBeats, let map, let s) = try p.parseTemperDefine()
            else { preconditionFailure() }
            return TemperDefine(span: span, top: top, topBeats: topBeats, bottom: bottom, bottomBeats: bottomBeats, map: map, slider: s)
        }
        var command: TemperCommand {
            .define(span: span, top: top, topBeats: topBeats, bottom: bottom, bottomBeats: bottomBeats, map: map, slider: slider)
        }
        var text: String { "temper " + command.text }
        func run(in session: Session) throws -> String? { try session.runTemper(command) }
    }

    struct TemperSlider: CommandBody {
        var value: Double
        static let spec = CommandSpec("temper slider", usage: "temper slider X",
                                      help: "the designer's slider: 0 the top row, 1 the bottom, between and beyond", flags: .touchesSelection)
        static let examples = [TemperSlider(value: 0.25)]
        static func parse(_ p: inout LineParser) throws -> TemperSlider {
            let v = try p.only("X", usage: "temper slider X") { try $0.slider($1, "slider") }
            return TemperSlider(value: v)
        }
        var text: String { "temper " + TemperCommand.slider(value).text }
        func run(in session: Session) throws -> String? { try session.runTemper(.slider(value)) }
    }

    struct TemperStamp: CommandBody {
        var times: Int
        static let spec = CommandSpec("temper stamp", usage: "temper stamp [times=K]",
                                      help: "stamp the designer's result at the cursor, K times", flags: .touchesSelection)
        static let examples = [TemperStamp(times: 1), TemperStamp(times: 3)]
        static func parse(_ p: inout LineParser) throws -> TemperStamp {
            let opts = try p.options(["times"], usage: "temper stamp [times=K]")
            return TemperStamp(times: try opts["times"].map { try p.integer($0, "times", 1...10_000) } ?? 1)
        }
        var text: String { "temper " + TemperCommand.stamp(times: times).text }
        func run(in session: Session) throws -> String? { try session.runTemper(.stamp(times: times)) }
    }

    struct TemperGroup: CommandBody {
        var group: Int
        static let spec = CommandSpec("temper group", usage: "temper group N", help: "store the designer's result in group N", flags: .touchesSelection)
        static let examples = [TemperGroup(group: 2)]
        static func parse(_ p: inout LineParser) throws -> TemperGroup {
            let n = try p.only("N", usage: "temper group N") { try $0.integer($1, "group", GroupBank.range) }
            return TemperGroup(group: n)
        }
        var text: String { "temper " + TemperCommand.group(group).text }
        func run(in session: Session) throws -> String? { try session.runTemper(.group(group)) }
    }

    struct TemperApply: WordsOnly {
        static let spec = CommandSpec("temper apply", usage: "temper apply",
                                      help: "retime the selected markers to the designer's result", flags: .touchesSelection)
        func run(in session: Session) throws -> String? { try session.runTemper(.apply) }
    }

    struct TemperMorph: CommandBody {
        var times: Int
        var from: Double
        var to: Double
        static let spec = CommandSpec("temper morph", usage: "temper morph times=K from=S0 to=S1",
                                      help: "stamp K copies, the slider moving from S0 to S1", flags: .touchesSelection)
        static let examples = [TemperMorph(times: 4, from: -0.5, to: 1.5)]
        static func parse(_ p: inout LineParser) throws -> TemperMorph {
            let u = "temper morph times=K from=S0 to=S1"
            let opts = try p.options(["times", "from", "to"], usage: u)
            let times = try p.integer(try p.required(opts, "times", usage: u), "times", 1...10_000)
            return TemperMorph(times: times, from: try p.slider(try p.required(opts, "from", usage: u), "from"),
                               to: try p.slider(try p.required(opts, "to", usage: u), "to"))
        }
        var text: String { "temper " + TemperCommand.morph(times: times, from: from, to: to).text }
        func run(in session: Session) throws -> String? { try session.runTemper(.morph(times: times, from: from, to: to)) }
    }

    struct TemperPreset: CommandBody {
        var name: String
        static let spec = CommandSpec("temper preset", usage: "temper preset swing|tigrigna|five-seven",
                                      help: "a preset temperament", flags: .touchesSelection)
        static let examples = TemperamentPreset.names.map { TemperPreset(name: $0) }
        static func parse(_ p: inout LineParser) throws -> TemperPreset {
            let u = "temper preset swing|tigrigna|five-seven"
            let name = try p.next("NAME", usage: u)
            guard TemperamentPreset.names.contains(name.text) else {
                throw p.fail("unknown preset '\(Limits.echo(name.text))' (\(u))", at: name)
            }
            try p.end(usage: u)
            return TemperPreset(name: name.text)
        }
        var text: String { "temper " + TemperCommand.preset(name).text }
        func run(in session: Session) throws -> String? { try session.runTemper(.preset(name)) }
    }

    /// `temper amp top|bottom BEAT A`: the amplitude of one pulse of a template row.
    struct TemperAmp: CommandBody {
        var row: Temperament.RowName
        var beat: Int
        var amp: Double
        static let spec = CommandSpec("temper amp", usage: "temper amp top|bottom BEAT A",
                                      help: "the amplitude of one pulse of a row", flags: .touchesSelection)
        static let examples = [TemperAmp(row: .top, beat: 2, amp: 0.5), TemperAmp(row: .bottom, beat: 0, amp: 1)]
        static func parse(_ p: inout LineParser) throws -> TemperAmp {
            let u = "temper amp top|bottom BEAT A"
            let rowWord = try p.next("top or bottom", usage: u)
            guard let row = Temperament.RowName(rawValue: rowWord.text), !rowWord.quoted else {
                throw p.fail("expected top or bottom, not '\(Limits.echo(rowWord.text))' (\(u))", at: rowWord)
            }
            let beat = try p.integer(try p.next("BEAT", usage: u), "beat", 0...(CommandParser.maxDivision - 1))
            let a = try p.only("A", usage: u) { try $0.amp($1) }
            return TemperAmp(row: row, beat: beat, amp: a)
        }
        var text: String { "temper " + TemperCommand.amp(row: row, beat: beat, amp: amp).text }
        func run(in session: Session) throws -> String? { try session.runTemper(.amp(row: row, beat: beat, amp: amp)) }
    }

    /// `temper fit [max=N] [span=TIME]`: the designer set to the temperament that best explains the selected
    /// markers of one span (`Temperament.fit`); span defaults to the designer's.
    struct TemperFit: CommandBody {
        var most: Int
        var span: Double?
        static let spec = CommandSpec("temper fit", usage: "temper fit [max=N] [span=TIME]",
                                      help: "the designer set to the temperament that best explains the selection",
                                      flags: .touchesSelection)
        static let examples = [TemperFit(most: 16, span: nil), TemperFit(most: 24, span: 2)]
        static func parse(_ p: inout LineParser) throws -> TemperFit {
            let opts = try p.options(["max", "span"], usage: spec.usage)
            let most = try opts["max"].map { try p.integer($0, "max", 2...64) } ?? 16
            let span = try opts["span"].map {
                try p.number($0, "span", { $0 > 0 && $0 <= CommandParser.maxTime }, "must be greater than 0 and at most 10000000")
            }
            return TemperFit(most: most, span: span)
        }
        var text: String { "temper " + TemperCommand.fit(max: most, span: span).text }
        func run(in session: Session) throws -> String? { try session.runTemper(.fit(max: most, span: span)) }
    }

    /// The designer command `t` as a command of the table.
    public static func temper(_ t: TemperCommand) -> Command {
        switch t {
        case .define(let span, let top, let topBeats, let bottom, let bottomBeats, let map, let slider):
            return Command(TemperDefine(span: span, top: top, topBeats: topBeats, bottom: bottom, bottomBeats: bottomBeats,
                                        map: map, slider: slider))
        case .slider(let v): return Command(TemperSlider(value: v))
        case .stamp(let times): return Command(TemperStamp(times: times))
        case .group(let g): return Command(TemperGroup(group: g))
        case .apply: return Command(TemperApply())
        case .morph(let times, let from, let to): return Command(TemperMorph(times: times, from: from, to: to))
        case .preset(let name): return Command(TemperPreset(name: name))
        case .amp(let row, let beat, let amp): return Command(TemperAmp(row: row, beat: beat, amp: amp))
        case .fit(let most, let span): return Command(TemperFit(most: most, span: span))
        }
    }
}

/// What the designer's commands do to the session (`Session.runTemper`): the value each `temper` entry runs.
public enum TemperCommand: Hashable, Sendable {
    /// `temper span=... top=A:BEATS bottom=B:BEATS [map=...] [s=X]`.
    case define(span: Double, top: Int, topBeats: BeatChoice, bottom: Int, bottomBeats: BeatChoice,
                map: [Temperament.Pair]?, slider: Double?)
    case slider(Double)
    case stamp(times: Int)
    case group(Int)
    case apply
    case morph(times: Int, from: Double, to: Double)
    case preset(String)
    /// `temper amp top|bottom BEAT A`: the amplitude of one pulse of a template row.
    case amp(row: Temperament.RowName, beat: Int, amp: Double)
    /// `temper fit [max=16] [span=L]`: the designer set to the temperament that best explains the selected
    /// markers of one span (`Temperament.fit`); span defaults to the designer's.
    case fit(max: Int, span: Double?)

    /// How a row's beats are chosen.
    public enum BeatChoice: Hashable, Sendable {
        case list([Int])
        case all
        /// E(k, n) rotated by r.
        case euclid(k: Int, rotation: Int)
    }

    /// The designer command's textual form, without the leading `temper`.
    public var text: String {
        func n(_ v: Double) -> String { DocumentFile.number(v) }
        func beats(_ b: BeatChoice) -> String {
            switch b {
            case .all: return "all"
            case .list(let list): return list.map(String.init).joined(separator: ",")
            case .euclid(let k, let r): return r == 0 ? "euclid(\(k))" : "euclid(\(k),\(r))"
            }
        }
        switch self {
        case .define(let span, let top, let topBeats, let bottom, let bottomBeats, let map, let slider):
            var out = "span=\(n(span)) top=\(top):\(beats(topBeats)) bottom=\(bottom):\(beats(bottomBeats))"
            if let map { out += " map=" + (map.isEmpty ? "none" : map.map { "\($0.top)-\($0.bottom)" }.joined(separator: ",")) }
            if let slider { out += " s=\(n(slider))" }
            return out
        case .slider(let s): return "slider \(n(s))"
        case .stamp(let times): return times == 1 ? "stamp" : "stamp times=\(times)"
        case .group(let g): return "group \(g)"
        case .apply: return "apply"
        case .morph(let times, let from, let to): return "morph times=\(times) from=\(n(from)) to=\(n(to))"
        case .preset(let name): return "preset \(name)"
        case .amp(let row, let beat, let amp): return "amp \(row.rawValue) \(beat) \(DocumentFile.number(amp))"
        case .fit(let most, let span): return "fit" + (most == 16 ? "" : " max=\(most)") + (span.map { " span=\(n($0))" } ?? "")
        }
    }
}
