/// Selecting and changing what is selected: select, shift, scale, subdivide, rotate, reverse, delete, the
/// group bank.
extension Command {
    struct Select: CommandBody {
        var selection: Selection
        static let spec = CommandSpec(
            "select", usage: "select none|all|left|right | at TIME | range A B | pattern \"CODE\" [tracks=all] [add]",
            help: "select on the current track (tracks=all: every track); at: the marker nearest TIME; add: hold",
            flags: .viewOnly)
        static let examples = [
            Select(selection: Selection(.all)), Select(selection: Selection(.none)), Select(selection: Selection(.left, add: true)),
            Select(selection: Selection(.right, allTracks: true)), Select(selection: Selection(.at(0.75))),
            Select(selection: Selection(.range(0.5, 1.5), allTracks: true, add: true)),
            Select(selection: Selection(.pattern(try! PatternParser.parse("+ -x2")))),
        ]
        static func parse(_ p: inout LineParser) throws -> Select { Select(selection: try p.parseSelect()) }
        var text: String {
            var out = "select "
            switch selection.kind {
            case .none: out += "none"
            case .all: out += "all"
            case .left: out += "left"
            case .right: out += "right"
            case .at(let t): out += "at \(Command.number(t))"
            case .range(let a, let b): out += "range \(Command.number(a)) \(Command.number(b))"
            case .pattern(let code): out += "pattern \(Command.quote(code.source))"
            }
            if selection.allTracks { out += " tracks=all" }
            if selection.add { out += " add" }
            return out
        }
        func run(in session: Session) throws -> String? { try session.runSelect(selection) }
    }

    struct Shift: CommandBody {
        var by: Double
        static let spec = CommandSpec("shift", usage: "shift BY",
                                      help: "move the selection BY seconds (clip mode with snap: BY markers)", flags: .touchesSelection)
        static let examples = [Shift(by: 0.125), Shift(by: -2)]
        static func parse(_ p: inout LineParser) throws -> Shift {
            let usage = spec.usage
            let v = try p.number(try p.next("BY", usage: usage), "shift", { abs($0) <= CommandParser.maxTime },
                                 "must be within 10000000")
            try p.end(usage: usage)
            return Shift(by: v)
        }
        var text: String { "shift \(Command.number(by))" }
        func run(in session: Session) throws -> String? { try session.runShift(by) }
    }

    struct Scale: CommandBody {
        var factor: Double
        var handle: ScaleHandle
        static let spec = CommandSpec("scale", usage: "scale FACTOR [handle=first|last]",
                                      help: "stretch the selection about a handle; the opposite end stays fixed", flags: .touchesSelection)
        static let examples = [Scale(factor: 2, handle: .last), Scale(factor: 0.75, handle: .first)]
        static func parse(_ p: inout LineParser) throws -> Scale {
            let usage = "scale FACTOR [handle=first|last] | scale handle=K to=TIME"
            let first = try p.next("FACTOR", usage: usage)
            let factor = try p.number(first, "factor", { $0 > 0 }, "must be greater than 0")
            let opts = try p.options(["handle"], usage: usage)
            var handle = ScaleHandle.last
            if let h = opts["handle"] {
                switch h.text {
                case "first": handle = .first
                case "last": handle = .last
                default: throw p.fail("handle must be first or last here, not '\(Limits.echo(h.text))' (\(usage))", at: h)
                }
            }
            return Scale(factor: factor, handle: handle)
        }
        var text: String { "scale \(Command.number(factor))" + (handle == .first ? " handle=first" : "") }
        func run(in session: Session) throws -> String? { try session.runScale(factor: factor, handle: handle) }
    }

    /// Move the K-th selected element (from 1) to a time.
    struct ScaleTo: CommandBody {
        var k: Int
        var to: Double
        static let spec = CommandSpec("scale =", usage: "scale handle=K to=TIME",
                                      help: "move the K-th selected element (from 1) to TIME; the ends stay fixed", flags: .touchesSelection)
        static let examples = [ScaleTo(k: 2, to: 1.5)]
        static func parse(_ p: inout LineParser) throws -> ScaleTo {
            let usage = "scale FACTOR [handle=first|last] | scale handle=K to=TIME"
            let opts = try p.options(["handle", "to"], usage: usage)
            let handle = try p.required(opts, "handle", usage: usage)
            let to = try p.required(opts, "to", usage: "scale handle=K to=TIME")
            return ScaleTo(k: try p.integer(handle, "handle", 1...Int.max), to: try p.time(to, "to"))
        }
        var text: String { "scale handle=\(k) to=\(Command.number(to))" }
        func run(in session: Session) throws -> String? { try session.runScaleHandle(k: k, to: to) }
    }

    struct Subdivide: CommandBody {
        var n: Int
        static let spec = CommandSpec("subdivide", usage: "subdivide N",
                                      help: "N new markers between each pair of selected neighbours", flags: .touchesSelection)
        static let examples = [Subdivide(n: 3)]
        static func parse(_ p: inout LineParser) throws -> Subdivide {
            let n = try p.only("N", usage: spec.usage) { try $0.integer($1, "subdivide", 1...10_000) }
            return Subdivide(n: n)
        }
        var text: String { "subdivide \(n)" }
        func run(in session: Session) throws -> String? { try session.runSubdivide(n) }
    }

    struct Rotate: WordsOnly {
        static let spec = CommandSpec("rotate", usage: "rotate", help: "rotate the selection's clips one marker on", flags: .touchesSelection)
        func run(in session: Session) throws -> String? { try session.runRotate() }
    }

    struct Reverse: WordsOnly {
        static let spec = CommandSpec("reverse", usage: "reverse", help: "reverse the selection in time", flags: .touchesSelection)
        func run(in session: Session) throws -> String? { try session.runReverse() }
    }

    struct Delete: WordsOnly {
        static let spec = CommandSpec("delete", usage: "delete", help: "delete the selection", flags: .touchesSelection)
        func run(in session: Session) throws -> String? { try session.runDelete() }
    }

    struct GroupStore: CommandBody {
        var group: Int
        static let spec = CommandSpec("group store", usage: "group store N", help: "store the selection in group N", flags: .touchesSelection)
        static let examples = [GroupStore(group: 4)]
        static func parse(_ p: inout LineParser) throws -> GroupStore {
            let n = try p.only("N", usage: "group store N") { try $0.integer($1, "group", GroupBank.range) }
            return GroupStore(group: n)
        }
        var text: String { "group store \(group)" }
        func run(in session: Session) throws -> String? { try session.runGroupStore(group) }
    }

    struct GroupStamp: CommandBody {
        var group: Int
        var times: Int
        static let spec = CommandSpec("group stamp", usage: "group stamp N [times=K]",
                                      help: "stamp group N at the cursor, K times one after another")
        static let examples = [GroupStamp(group: 2, times: 1), GroupStamp(group: 1, times: 4)]
        static func parse(_ p: inout LineParser) throws -> GroupStamp {
            let n = try p.integer(try p.next("N", usage: "group stamp N [times=K]"), "group", GroupBank.range)
            let opts = try p.options(["times"], usage: "group stamp N [times=K]")
            let times = try opts["times"].map { try p.integer($0, "times", 1...10_000) } ?? 1
            return GroupStamp(group: n, times: times)
        }
        var text: String { "group stamp \(group)" + (times == 1 ? "" : " times=\(times)") }
        func run(in session: Session) throws -> String? { try session.runGroupStamp(group, times: times) }
    }

    public static func select(_ selection: Selection) -> Command { Command(Select(selection: selection)) }
    public static func shift(_ by: Double) -> Command { Command(Shift(by: by)) }
    public static func scale(factor: Double, handle: ScaleHandle) -> Command { Command(Scale(factor: factor, handle: handle)) }
    public static func scaleHandle(k: Int, to: Double) -> Command { Command(ScaleTo(k: k, to: to)) }
    public static func subdivide(_ n: Int) -> Command { Command(Subdivide(n: n)) }
    public static var rotate: Command { Command(Rotate()) }
    public static var reverse: Command { Command(Reverse()) }
    public static var delete: Command { Command(Delete()) }
    public static func groupStore(_ group: Int) -> Command { Command(GroupStore(group: group)) }
    public static func groupStamp(_ group: Int, times: Int) -> Command { Command(GroupStamp(group: group, times: times)) }

    public enum ScaleHandle: Hashable, Sendable {
        /// The first selected element is the handle: the last stays fixed.
        case first
        /// The last selected element is the handle: the first stays fixed (the default).
        case last
    }

    /// A selection change (not an undo step).
    public struct Selection: Hashable, Sendable {
        public enum Kind: Hashable, Sendable {
            case none
            case all
            case left
            case right
            case at(Double)
            case range(Double, Double)
            case pattern(PatternCode)
        }
        public var kind: Kind
        /// Every track instead of the current one.
        public var allTracks: Bool
        /// Hold: add to the selection, inverting what it touches.
        public var add: Bool

        public init(_ kind: Kind, allTracks: Bool = false, add: Bool = false) {
            self.kind = kind
            self.allTracks = allTracks
            self.add = add
        }
    }
}
