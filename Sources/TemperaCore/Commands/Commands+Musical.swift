/// Musical time: beat, meter, BPM, the cursor grid, the metronome and the count-in.
extension Command {
    /// `beat TIME`: seconds per beat at tempo x1 (times do not change).
    struct Beat: CommandBody {
        var seconds: Double
        static let spec = CommandSpec("beat", usage: "beat TIME", help: "seconds a beat at x1 (0.5); times do not change")
        static let examples = [Beat(seconds: 0.375)]
        static func parse(_ p: inout LineParser) throws -> Beat {
            Beat(seconds: try p.only("TIME", usage: spec.usage) { try $0.number($1, "beat", in: Transport.beatRange, unit: "seconds") })
        }
        var text: String { "beat \(Command.number(seconds))" }
        func run(in session: Session) throws -> String? { try session.runBeat(seconds) }
    }

    /// `meter N/D [groups=A+B+...]`: the time signature (`meter N` is N/4, beats a bar as it always read).
    struct SetMeter: CommandBody {
        var meter: TemperaCore.Meter
        static let spec = CommandSpec("meter", usage: "meter N[/D] [groups=A+B+...]",
                                      help: "the time signature: 4 (4/4), 12/8, 7/8 groups=2+2+3; accents and bars only, no onset moves")
        static let examples = [SetMeter(meter: .init(7)), SetMeter(meter: .init(12, 8)), SetMeter(meter: .init(7, 8, groups: [2, 2, 3]))]
        static func parse(_ p: inout LineParser) throws -> SetMeter {
            SetMeter(meter: try p.meter(usage: spec.usage))
        }
        var text: String { "meter \(meter.text)" }
        func run(in session: Session) throws -> String? { try session.runMeter(meter) }
    }

    /// `bpm X`: sets the tempo to X * beat / 60 (times do not change).
    struct BPM: CommandBody {
        var bpm: Double
        static let spec = CommandSpec("bpm", usage: "bpm X", help: "set the tempo to X beats a minute (tempo = X*beat/60)")
        static let examples = [BPM(bpm: 132)]
        static func parse(_ p: inout LineParser) throws -> BPM {
            let v = try p.only("X", usage: spec.usage) { try $0.number($1, "bpm", { $0 > 0 && $0.isFinite }, "must be greater than 0") }
            return BPM(bpm: v)
        }
        var text: String { "bpm \(Command.number(bpm))" }
        func run(in session: Session) throws -> String? { try session.runBPM(bpm) }
    }

    /// `grid N|off`: the cursor grid, N steps a beat (1...32), nil for off.
    struct Grid: CommandBody {
        var steps: Int?
        static let spec = CommandSpec("grid", usage: "grid N|off", help: "the cursor grid: N steps a beat, 1..32, or free")
        static let examples = [Grid(steps: 4), Grid(steps: nil)]
        static func parse(_ p: inout LineParser) throws -> Grid {
            Grid(steps: try p.offOr("N or off", usage: spec.usage) { p, w in try p.integer(w, "grid", Transport.gridRange) })
        }
        var text: String { steps.map { "grid \($0)" } ?? "grid off" }
        func run(in session: Session) throws -> String? { try session.runGrid(steps) }
    }

    /// `click on|off [level=L]` or `click level=L`: the metronome; nil leaves a setting as it is.
    struct Click: CommandBody {
        var on: Bool?
        var level: Double?
        static let spec = CommandSpec("click", usage: "click on|off [level=L] | click level=L",
                                      help: "the metronome, and its level 0..1")
        static let examples = [Click(on: true, level: nil), Click(on: false, level: 0.5), Click(on: nil, level: 0.25)]
        static func parse(_ p: inout LineParser) throws -> Click {
            let usage = spec.usage
            var on: Bool?
            if p.position < p.words.count, p.words[p.position].equals == nil {
                on = try p.onOff(try p.next("on or off", usage: usage), usage: usage)
            }
            let opts = try p.options(["level"], usage: usage)
            let level = try opts["level"].map { try p.number($0, "level", in: 0...1) }
            if on == nil && level == nil { throw CommandError("missing on, off or level= (\(usage))", column: p.missingColumn) }
            return Click(on: on, level: level)
        }
        var text: String {
            var out = "click"
            if let on { out += on ? " on" : " off" }
            if let level { out += " level=\(Command.number(level))" }
            return out
        }
        func run(in session: Session) throws -> String? { try session.runClick(on: on, level: level) }
    }

    /// `countin BARS`: bars of click before playback starts (0: none).
    struct CountIn: CommandBody {
        var bars: Int
        static let spec = CommandSpec("countin", usage: "countin BARS", help: "bars of click before playback starts (0: none)")
        static let examples = [CountIn(bars: 2), CountIn(bars: 0)]
        static func parse(_ p: inout LineParser) throws -> CountIn {
            let bars = try p.only("BARS", usage: spec.usage) { try $0.integer($1, "countin", Transport.countInRange) }
            return CountIn(bars: bars)
        }
        var text: String { "countin \(bars)" }
        func run(in session: Session) throws -> String? { try session.runCountIn(bars) }
    }

    public static func beat(_ seconds: Double) -> Command { Command(Beat(seconds: seconds)) }
    public static func meter(_ beats: Int) -> Command { Command(SetMeter(meter: .init(beats))) }
    public static func meter(_ meter: TemperaCore.Meter) -> Command { Command(SetMeter(meter: meter)) }
    public static func bpm(_ bpm: Double) -> Command { Command(BPM(bpm: bpm)) }
    public static func grid(_ steps: Int?) -> Command { Command(Grid(steps: steps)) }
    public static func click(on: Bool?, level: Double?) -> Command { Command(Click(on: on, level: level)) }
    public static func countIn(_ bars: Int) -> Command { Command(CountIn(bars: bars)) }
}
