/// The tracks: add, choose, mute, solo, gain, name, delete, duplicate, move.
extension Command {
    struct TrackAdd: CommandBody {
        var name: String?
        static let spec = CommandSpec("track add", usage: "track add [NAME]",
                                      help: "add a track at the end; it becomes the current track")
        static let examples = [TrackAdd(name: nil), TrackAdd(name: "low tom")]
        static func parse(_ p: inout LineParser) throws -> TrackAdd { TrackAdd(name: try p.trackName(example: "track add")) }
        var text: String { name.map { "track add \(Command.quote($0))" } ?? "track add" }
        func run(in session: Session) throws -> String? { try session.runTrackAdd(name) }
    }

    /// Make track N (from 1) current.
    struct TrackSelect: CommandBody {
        var track: Int
        static let spec = CommandSpec("track N", usage: "track N", help: "make track N current", flags: .viewOnly)
        static let examples = [TrackSelect(track: 2)]
        static func parse(_ p: inout LineParser) throws -> TrackSelect { TrackSelect(track: p.selector ?? 1) }
        var text: String { "track \(track)" }
        func run(in session: Session) throws -> String? { try session.runTrackSelect(track) }
    }

    /// `track [N] mute [on|off]`: mute track N (from 1), or the current track when nil; `on` nil toggles.
    /// Not a change of the current track.
    struct TrackMute: CommandBody {
        var track: Int?
        var on: Bool?
        static let spec = CommandSpec("track [N] mute", usage: "track [N] mute [on|off]",
                                      help: "mute the current track, or track N without making it current; no on|off: toggle")
        static let examples = [TrackMute(track: nil, on: nil), TrackMute(track: 2, on: true), TrackMute(track: nil, on: false)]
        static func parse(_ p: inout LineParser) throws -> TrackMute {
            TrackMute(track: p.selector, on: try p.optionalOnOff(usage: spec.usage))
        }
        var text: String { Command.trackPrefix(track) + "mute" + Command.onOff(on) }
        func run(in session: Session) throws -> String? { try session.runTrackMute(track, on) }
    }

    /// `track [N] solo [on|off]`: likewise. Several tracks may be soloed; then only they sound.
    struct TrackSolo: CommandBody {
        var track: Int?
        var on: Bool?
        static let spec = CommandSpec("track [N] solo", usage: "track [N] solo [on|off]",
                                      help: "solo the track (several may be: then only they sound); no on|off: toggle")
        static let examples = [TrackSolo(track: nil, on: nil), TrackSolo(track: 3, on: false)]
        static func parse(_ p: inout LineParser) throws -> TrackSolo {
            TrackSolo(track: p.selector, on: try p.optionalOnOff(usage: spec.usage))
        }
        var text: String { Command.trackPrefix(track) + "solo" + Command.onOff(on) }
        func run(in session: Session) throws -> String? { try session.runTrackSolo(track, on) }
    }

    /// `track [N] gain G`: linear gain 0...4 (`CommandParser.trackGainRange`); the text also takes decibels,
    /// `track gain -6dB`, which read as their linear value.
    struct TrackGain: CommandBody {
        var track: Int?
        var gain: Double
        static let spec = CommandSpec("track [N] gain", usage: "track [N] gain G | track [N] gain GdB",
                                      help: "the track's gain: linear 0..4, or decibels (track gain -6dB)")
        static let examples = [TrackGain(track: nil, gain: 0.5), TrackGain(track: 2, gain: 1.25)]
        static func parse(_ p: inout LineParser) throws -> TrackGain { TrackGain(track: p.selector, gain: try p.trackGain()) }
        var text: String { Command.trackPrefix(track) + "gain \(Command.number(gain))" }
        func run(in session: Session) throws -> String? { try session.runTrackGain(track, gain) }
    }

    /// `track [N] name NAME`: rename.
    struct TrackName: CommandBody {
        var track: Int?
        var name: String
        static let spec = CommandSpec("track [N] name", usage: "track [N] name NAME",
                                      help: "rename the track; quote a name with spaces: track name \"low tom\"")
        static let examples = [TrackName(track: nil, name: "kick"), TrackName(track: 2, name: "low tom")]
        static func parse(_ p: inout LineParser) throws -> TrackName {
            guard let name = try p.trackName(example: "track name") else {
                throw CommandError("missing NAME (\(spec.usage))", column: p.missingColumn)
            }
            if let problem = LineParser.nameProblem(name) { throw p.fail("track name: \(problem)", at: p.words[p.position - 1]) }
            return TrackName(track: p.selector, name: name)
        }
        var text: String { Command.trackPrefix(track) + "name \(Command.quote(name))" }
        func run(in session: Session) throws -> String? { try session.runTrackName(track, name) }
    }

    /// `track [N] delete`.
    struct TrackDelete: TrackOnly {
        var track: Int?
        static let spec = CommandSpec("track [N] delete", usage: "track [N] delete", help: "delete the track")
        func run(in session: Session) throws -> String? { try session.runTrackDelete(track) }
    }

    /// `track [N] duplicate`: a copy of the track right below it.
    struct TrackDuplicate: TrackOnly {
        var track: Int?
        static let spec = CommandSpec("track [N] duplicate", usage: "track [N] duplicate",
                                      help: "a copy of the track right below it")
        func run(in session: Session) throws -> String? { try session.runTrackDuplicate(track) }
    }

    /// `track [N] move M`: track N (or the current one) becomes track M.
    struct TrackMove: CommandBody {
        var track: Int?
        var to: Int
        static let spec = CommandSpec("track [N] move", usage: "track [N] move M", help: "the track becomes track M")
        static let examples = [TrackMove(track: nil, to: 1), TrackMove(track: 3, to: 2)]
        static func parse(_ p: inout LineParser) throws -> TrackMove {
            let to = try p.only("M", usage: spec.usage) { try $0.integer($1, "M", 1...Int.max) }
            return TrackMove(track: p.selector, to: to)
        }
        var text: String { Command.trackPrefix(track) + "move \(to)" }
        func run(in session: Session) throws -> String? { try session.runTrackMove(track, to: to) }
    }

    public static func trackAdd(name: String?) -> Command { Command(TrackAdd(name: name)) }
    public static func trackSelect(_ track: Int) -> Command { Command(TrackSelect(track: track)) }
    public static func trackMute(track: Int?, on: Bool?) -> Command { Command(TrackMute(track: track, on: on)) }
    public static func trackSolo(track: Int?, on: Bool?) -> Command { Command(TrackSolo(track: track, on: on)) }
    public static func trackGain(track: Int?, gain: Double) -> Command { Command(TrackGain(track: track, gain: gain)) }
    public static func trackName(track: Int?, name: String) -> Command { Command(TrackName(track: track, name: name)) }
    public static func trackDelete(track: Int?) -> Command { Command(TrackDelete(track: track)) }
    public static func trackDuplicate(track: Int?) -> Command { Command(TrackDuplicate(track: track)) }
    public static func trackMove(track: Int?, to: Int) -> Command { Command(TrackMove(track: track, to: to)) }
}

/// A track command that takes nothing but which track (`track [N] delete`, `track [N] duplicate`): the current
/// track when `track` is nil; its text is the track prefix and the last word of its usage.
protocol TrackOnly: CommandBody {
    var track: Int? { get }
    init(track: Int?)
}

extension TrackOnly {
    static var examples: [Self] { [Self(track: nil), Self(track: 3)] }

    static func parse(_ p: inout LineParser) throws -> Self {
        try p.end(usage: spec.usage)
        return Self(track: p.selector)
    }

    var text: String { Command.trackPrefix(track) + (Self.spec.usage.split(separator: " ").last.map(String.init) ?? "") }
}
