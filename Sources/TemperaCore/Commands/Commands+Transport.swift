/// The transport: the timeline's length, the loop, tempo and volume.
extension Command {
    struct Length: CommandBody {
        var time: Double
        static let spec = CommandSpec("length", usage: "length TIME",
                                      help: "the timeline's length (the default loop region is 0..length)")
        static let examples = [Length(time: 4), Length(time: 2.5)]
        static func parse(_ p: inout LineParser) throws -> Length {
            Length(time: try p.only("TIME", usage: spec.usage) {
                try $0.number($1, "length", { $0 > 0 && $0 <= CommandParser.maxTime }, "must be greater than 0 and at most 10000000")
            })
        }
        var text: String { "length \(Command.number(time))" }
        func run(in session: Session) throws -> String? { try session.runLength(time) }
    }

    /// `loop A B`: the loop region.
    struct LoopRange: CommandBody {
        var start: Double
        var end: Double
        static let spec = CommandSpec("loop", usage: "loop A B", help: "the loop region: from A to B seconds")
        static let examples = [LoopRange(start: 0, end: 2), LoopRange(start: 0.5, end: 1.75)]
        static func parse(_ p: inout LineParser) throws -> LoopRange {
            let usage = "loop A B | loop on | loop off"
            let first = try p.next("A B, on or off", usage: usage)
            let a = try p.time(first, "loop start")
            let second = try p.next("B", usage: usage)
            let b = try p.time(second, "loop end")
            guard b > a else { throw p.fail("the loop must end after it starts (\(LineParser.show(a)))", at: second) }
            try p.end(usage: usage)
            return LoopRange(start: a, end: b)
        }
        var text: String { "loop \(Command.number(start)) \(Command.number(end))" }
        func run(in session: Session) throws -> String? { try session.runLoopRange(start, end) }
    }

    /// `loop on|off`.
    struct Loop: CommandBody {
        var on: Bool
        static let spec = CommandSpec("loop on|off", usage: "loop on | loop off",
                                      help: "loop the region, or play to the end and stop")
        static let examples = [Loop(on: true), Loop(on: false)]
        static func parse(_ p: inout LineParser) throws -> Loop {
            try p.end(usage: "loop A B | loop on | loop off")
            return Loop(on: p.words[p.position - 1].text == "on")
        }
        var text: String { on ? "loop on" : "loop off" }
        func run(in session: Session) throws -> String? { try session.runLoop(on: on) }
    }

    struct Tempo: CommandBody {
        var scale: Double
        static let spec = CommandSpec("tempo", usage: "tempo X", help: "the tempo scale: x1 plays as written")
        static let examples = [Tempo(scale: 1.25), Tempo(scale: 0.5)]
        static func parse(_ p: inout LineParser) throws -> Tempo {
            Tempo(scale: try p.only("X", usage: spec.usage) { try $0.number($1, "tempo", in: Transport.tempoRange) })
        }
        var text: String { "tempo \(Command.number(scale))" }
        func run(in session: Session) throws -> String? { try session.runTempo(scale) }
    }

    struct Volume: CommandBody {
        var volume: Double
        static let spec = CommandSpec("volume", usage: "volume V", help: "the master volume, 0..1")
        static let examples = [Volume(volume: 0.7)]
        static func parse(_ p: inout LineParser) throws -> Volume {
            let v = try p.only("V", usage: spec.usage) { try $0.number($1, "volume", in: 0...1) }
            return Volume(volume: v)
        }
        var text: String { "volume \(Command.number(volume))" }
        func run(in session: Session) throws -> String? { try session.runVolume(volume) }
    }

    public static func length(_ time: Double) -> Command { Command(Length(time: time)) }
    public static func loopRange(_ start: Double, _ end: Double) -> Command { Command(LoopRange(start: start, end: end)) }
    public static func loop(on: Bool) -> Command { Command(Loop(on: on)) }
    public static func tempo(_ scale: Double) -> Command { Command(Tempo(scale: scale)) }
    public static func volume(_ volume: Double) -> Command { Command(Volume(volume: volume)) }
}
