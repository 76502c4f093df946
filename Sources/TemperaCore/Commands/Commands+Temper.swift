/// The rhythm designer's commands, each a command type of the table run on the session (`Session+Temper`).
extension Command {
    struct TemperDefine: CommandBody {
        var span: Double
        var top: Int
        var topBeats: Temperament.BeatChoice
        var bottom: Int
        var bottomBeats: Temperament.BeatChoice
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
        static func parse(_ p: inout LineParser) throws -> TemperDefine { try p.parseTemperDefine() }
        var text: String {
            var out = "temper span=\(DocumentFile.number(span)) top=\(top):\(topBeats.text) bottom=\(bottom):\(bottomBeats.text)"
            if let map { out += " map=" + (map.isEmpty ? "none" : map.map { "\($0.top)-\($0.bottom)" }.joined(separator: ",")) }
            if let slider { out += " s=\(DocumentFile.number(slider))" }
            return out
        }
        func run(in session: Session) throws -> String? {
            try session.temperDefine(span: span, top: top, topBeats: topBeats, bottom: bottom, bottomBeats: bottomBeats,
                                     map: map, slider: slider)
        }
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
        var text: String { "temper slider \(DocumentFile.number(value))" }
        func run(in session: Session) throws -> String? { try session.temperSlider(value) }
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
        var text: String { times == 1 ? "temper stamp" : "temper stamp times=\(times)" }
        func run(in session: Session) throws -> String? { try session.temperStamp(times: times) }
    }

    struct TemperGroup: CommandBody {
        var group: Int
        static let spec = CommandSpec("temper group", usage: "temper group N", help: "store the designer's result in group N", flags: .touchesSelection)
        static let examples = [TemperGroup(group: 2)]
        static func parse(_ p: inout LineParser) throws -> TemperGroup {
            let n = try p.only("N", usage: "temper group N") { try $0.integer($1, "group", GroupBank.range) }
            return TemperGroup(group: n)
        }
        var text: String { "temper group \(group)" }
        func run(in session: Session) throws -> String? { try session.temperGroup(group) }
    }

    struct TemperApply: WordsOnly {
        static let spec = CommandSpec("temper apply", usage: "temper apply",
                                      help: "retime the selected markers to the designer's result", flags: .touchesSelection)
        func run(in session: Session) throws -> String? { try session.temperApply() }
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
        var text: String { "temper morph times=\(times) from=\(DocumentFile.number(from)) to=\(DocumentFile.number(to))" }
        func run(in session: Session) throws -> String? { try session.temperMorph(times: times, from: from, to: to) }
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
        var text: String { "temper preset \(name)" }
        func run(in session: Session) throws -> String? { try session.temperPreset(name) }
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
        var text: String { "temper amp \(row.rawValue) \(beat) \(DocumentFile.number(amp))" }
        func run(in session: Session) throws -> String? { try session.temperAmp(row: row, beat: beat, amp: amp) }
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
        var text: String {
            "temper fit" + (most == 16 ? "" : " max=\(most)") + (span.map { " span=\(DocumentFile.number($0))" } ?? "")
        }
        func run(in session: Session) throws -> String? { try session.runTemperFit(max: most, span: span) }
    }

    public static func temperDefine(span: Double, top: Int, topBeats: Temperament.BeatChoice, bottom: Int,
                                    bottomBeats: Temperament.BeatChoice, map: [Temperament.Pair]?, slider: Double?) -> Command {
        Command(TemperDefine(span: span, top: top, topBeats: topBeats, bottom: bottom, bottomBeats: bottomBeats, map: map,
                             slider: slider))
    }
    public static func temperSlider(_ value: Double) -> Command { Command(TemperSlider(value: value)) }
    public static func temperStamp(times: Int) -> Command { Command(TemperStamp(times: times)) }
    public static func temperGroup(_ group: Int) -> Command { Command(TemperGroup(group: group)) }
    public static var temperApply: Command { Command(TemperApply()) }
    public static func temperMorph(times: Int, from: Double, to: Double) -> Command {
        Command(TemperMorph(times: times, from: from, to: to))
    }
    public static func temperPreset(_ name: String) -> Command { Command(TemperPreset(name: name)) }
    public static func temperAmp(row: Temperament.RowName, beat: Int, amp: Double) -> Command {
        Command(TemperAmp(row: row, beat: beat, amp: amp))
    }
    public static func temperFit(max most: Int, span: Double?) -> Command { Command(TemperFit(most: most, span: span)) }
}
