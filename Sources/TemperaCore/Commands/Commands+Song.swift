/// Recording takes and the song: sections, song mode.
extension Command {
    /// `record [on|off]`: arm recording (no on|off: toggle). Armed, the next start of the transport opens a take
    /// that ends when it stops. Not a change of the document.
    struct RecordArm: CommandBody {
        var on: Bool?
        static let spec = CommandSpec("record", usage: "record [on|off]",
                                      help: "arm recording: the next start of the transport starts a take; no on|off: toggle")
        static let examples = [RecordArm(on: nil), RecordArm(on: true), RecordArm(on: false)]
        static func parse(_ p: inout LineParser) throws -> RecordArm {
            let usage = "record [on|off] | record take TIME:SLOT:VELOCITY ..."
            guard p.position < p.words.count else { return RecordArm(on: nil) }
            let on = try p.onlyOnOff("on, off or take", usage: usage)
            return RecordArm(on: on)
        }
        var text: String { "record" + Command.onOff(on) }
        func run(in session: Session) throws -> String? { session.runRecordArm(on) }
    }

    /// `record take T:S:V ...`: pad hits as markers, each at time T holding slot S with amplitude V, on the track
    /// that already holds slot S (the current track first), else on the current track. One undo step (a live take
    /// runs one per hit inside the take's transaction, which makes the whole take one step).
    struct RecordTake: CommandBody {
        var hits: [RecordedHit]
        static let spec = CommandSpec("record take", usage: "record take TIME:SLOT:VELOCITY ...",
                                      help: "pad hits as markers (slot, amp = velocity) on the slot's own track")
        static let examples = [RecordTake(hits: [RecordedHit(time: 0.5, slot: 3, velocity: 0.8),
                                                 RecordedHit(time: 1.25, slot: 1, velocity: 1)])]
        static func parse(_ p: inout LineParser) throws -> RecordTake { RecordTake(hits: try p.recordedHits()) }
        var text: String { "record take " + hits.map(\.text).joined(separator: " ") }
        func run(in session: Session) throws -> String? { try session.runRecordTake(hits) }
    }

    /// `section add [NAME] [A B] [x R] [tempo=X]`: a section at the end of the song; the region defaults to the
    /// loop region, repeats to 1, the tempo to the document's (followed when it changes).
    struct SectionAdd: CommandBody {
        var name: String?
        var start: Double?
        var end: Double?
        var repeats: Int?
        var tempo: Double?
        static let spec = CommandSpec("section add", usage: "section add [NAME] [A B] [x R] [tempo=X]",
                                      help: "a section at the end of the song (default: the loop region, x1)")
        static let examples = [
            SectionAdd(name: nil, start: nil, end: nil, repeats: nil, tempo: nil),
            SectionAdd(name: "chorus", start: 2, end: 3.5, repeats: 2, tempo: 1.25),
            SectionAdd(name: "x3", start: nil, end: nil, repeats: nil, tempo: 0.8),
        ]
        static func parse(_ p: inout LineParser) throws -> SectionAdd {
            try p.parseSectionAdd()
        }
        var text: String {
            var out = "section add"
            if let name { out += " " + Command.quoteName(name) }
            if let start, let end { out += " \(Command.number(start)) \(Command.number(end))" }
            if let repeats { out += " x\(repeats)" }
            if let tempo { out += " tempo=\(Command.number(tempo))" }
            return out
        }
        func run(in session: Session) throws -> String? {
            try session.runSectionAdd(name: name, start: start, end: end, repeats: repeats, tempo: tempo)
        }
    }

    struct SectionRepeats: CommandBody {
        var section: Int
        var repeats: Int
        static let spec = CommandSpec("section N repeats", usage: "section N repeats R", help: "section N plays R times")
        static let examples = [SectionRepeats(section: 1, repeats: 3)]
        static func parse(_ p: inout LineParser) throws -> SectionRepeats {
            let u = spec.usage
            let w = try p.next("R", usage: u)
            let r = try LineParser.repeatCount(w.text) ?? p.integer(w, "repeats", 1...Song.maxRepeats)
            let checked = try p.repeats(r, at: w)
            try p.end(usage: u)
            return SectionRepeats(section: p.selector ?? 1, repeats: checked)
        }
        var text: String { "section \(section) repeats \(repeats)" }
        func run(in session: Session) throws -> String? { try session.runSection(section, .repeats(repeats)) }
    }

    struct SectionTempo: CommandBody {
        var section: Int
        var tempo: Double
        /// A ramp from `tempo` to this over the section's whole duration.
        var end: Double? = nil
        var shape: TempoMap.Shape = .linear
        static let spec = CommandSpec("section N tempo", usage: "section N tempo X[..Y] [shape=linear|exp]",
                                      help: "section N's own tempo (it no longer follows the document's); X..Y ramps over all its repeats")
        static let examples = [SectionTempo(section: 2, tempo: 0.5), SectionTempo(section: 1, tempo: 0.75, end: 1, shape: .exp)]
        static func parse(_ p: inout LineParser) throws -> SectionTempo {
            let (x, y, shape) = try p.rampValues(usage: spec.usage) { try $0.sectionTempo($1) }
            return SectionTempo(section: p.selector ?? 1, tempo: x, end: y, shape: shape)
        }
        var text: String {
            "section \(section) tempo \(Command.number(tempo))" + (end.map { "..\(Command.number($0))" } ?? "")
                + (end != nil && shape != .linear ? " shape=\(shape.rawValue)" : "")
        }
        func run(in session: Session) throws -> String? {
            guard let end else { return try session.runSection(section, .tempo(tempo)) }
            return try session.runSection(section, .ramp(from: tempo, to: end, bpm: false, shape: shape))
        }
    }

    struct SectionRegion: CommandBody {
        var section: Int
        var start: Double
        var end: Double
        static let spec = CommandSpec("section N region", usage: "section N region A B",
                                      help: "the part of the timeline section N plays")
        static let examples = [SectionRegion(section: 1, start: 0, end: 2)]
        static func parse(_ p: inout LineParser) throws -> SectionRegion {
            let u = spec.usage
            let (a, b) = try p.region(usage: u)
            try p.end(usage: u)
            return SectionRegion(section: p.selector ?? 1, start: a, end: b)
        }
        var text: String { "section \(section) region \(Command.number(start)) \(Command.number(end))" }
        func run(in session: Session) throws -> String? { try session.runSection(section, .region(start, end)) }
    }

    struct SectionName: CommandBody {
        var section: Int
        var name: String
        static let spec = CommandSpec("section N name", usage: "section N name NAME", help: "rename section N")
        static let examples = [SectionName(section: 1, name: "verse"), SectionName(section: 2, name: "the bridge")]
        static func parse(_ p: inout LineParser) throws -> SectionName {
            let u = spec.usage
            let w = try p.next("NAME", usage: u)
            if w.equals != nil { throw p.fail("unexpected '\(w.text)': quote a name with '=' in it", at: w) }
            if let problem = LineParser.nameProblem(w.text) { throw p.fail("section name: \(problem)", at: w) }
            try p.end(usage: u)
            return SectionName(section: p.selector ?? 1, name: w.text)
        }
        var text: String { "section \(section) name \(Command.quote(name))" }
        func run(in session: Session) throws -> String? { try session.runSection(section, .name(name)) }
    }

    struct SectionMove: CommandBody {
        var section: Int
        var to: Int
        static let spec = CommandSpec("section N move", usage: "section N move M", help: "section N becomes section M")
        static let examples = [SectionMove(section: 3, to: 1)]
        static func parse(_ p: inout LineParser) throws -> SectionMove {
            let m = try p.only("M", usage: spec.usage) { try $0.integer($1, "M", 1...Song.maxSections) }
            return SectionMove(section: p.selector ?? 1, to: m)
        }
        var text: String { "section \(section) move \(to)" }
        func run(in session: Session) throws -> String? { try session.runSection(section, .move(to)) }
    }

    struct SectionDelete: CommandBody {
        var section: Int
        static let spec = CommandSpec("section N delete", usage: "section N delete", help: "delete section N")
        static let examples = [SectionDelete(section: 2)]
        static func parse(_ p: inout LineParser) throws -> SectionDelete {
            try p.end(usage: "section N delete")
            return SectionDelete(section: p.selector ?? 1)
        }
        var text: String { "section \(section) delete" }
        func run(in session: Session) throws -> String? { try session.runSection(section, .delete) }
    }

    struct SectionDuplicate: CommandBody {
        var section: Int
        static let spec = CommandSpec("section N duplicate", usage: "section N duplicate",
                                      help: "a copy of section N right after it")
        static let examples = [SectionDuplicate(section: 1)]
        static func parse(_ p: inout LineParser) throws -> SectionDuplicate {
            try p.end(usage: "section N duplicate")
            return SectionDuplicate(section: p.selector ?? 1)
        }
        var text: String { "section \(section) duplicate" }
        func run(in session: Session) throws -> String? { try session.runSection(section, .duplicate) }
    }

    /// `song on|off`: play the song instead of the loop.
    struct SongPlay: OnOrOff {
        var on: Bool
        static let spec = CommandSpec("song", usage: "song on|off", help: "play the song instead of the loop, or the loop again")
        static func parse(_ p: inout LineParser) throws -> SongPlay {
            SongPlay(on: try p.onlyOnOff("on, off or loop", usage: "song on|off | song loop on|off"))
        }
        func run(in session: Session) throws -> String? { try session.runSong(on: on) }
    }

    /// `song loop on|off`: start the song again at its end.
    struct SongLoop: OnOrOff {
        var on: Bool
        static let spec = CommandSpec("song loop", usage: "song loop on|off", help: "start the song again at its end")
        func run(in session: Session) throws -> String? { try session.runSongLoop(on: on) }
    }

    public static func recordArm(_ on: Bool?) -> Command { Command(RecordArm(on: on)) }
    public static func recordTake(_ hits: [RecordedHit]) -> Command { Command(RecordTake(hits: hits)) }
    public static func sectionAdd(name: String?, start: Double?, end: Double?, repeats: Int?, tempo: Double?) -> Command {
        Command(SectionAdd(name: name, start: start, end: end, repeats: repeats, tempo: tempo))
    }
    /// `section N ...`: the entry of the change.
    public static func section(_ n: Int, _ change: SectionChange) -> Command {
        switch change {
        case .repeats(let r): return Command(SectionRepeats(section: n, repeats: r))
        case .tempo(let x): return Command(SectionTempo(section: n, tempo: x))
        case .region(let a, let b): return Command(SectionRegion(section: n, start: a, end: b))
        case .name(let name): return Command(SectionName(section: n, name: name))
        case .move(let m): return Command(SectionMove(section: n, to: m))
        case .delete: return Command(SectionDelete(section: n))
        case .duplicate: return Command(SectionDuplicate(section: n))
        case .bpm(let b): return Command(SectionBPM(section: n, bpm: b, end: nil, shape: .linear))
        case .ramp(let x, let y, let bpm, let shape):
            return bpm ? Command(SectionBPM(section: n, bpm: x, end: y, shape: shape))
                : Command(SectionTempo(section: n, tempo: x, end: y, shape: shape))
        case .meter(let m): return Command(SectionMeter(section: n, meter: m))
        }
    }
    public static func song(on: Bool) -> Command { Command(SongPlay(on: on)) }
    public static func songLoop(on: Bool) -> Command { Command(SongLoop(on: on)) }

    /// What `section N ...` changes (`Session.runSection`).
    public enum SectionChange: Hashable, Sendable {
        case repeats(Int)
        case tempo(Double)
        case region(Double, Double)
        case name(String)
        case move(Int)
        case delete
        /// A copy right after the section.
        case duplicate
        /// `section N bpm B`: the section's tempo in beats per minute.
        case bpm(Double)
        /// `section N tempo X..Y [shape=S]` (or `bpm X..Y`): a ramp over the section's whole duration.
        case ramp(from: Double, to: Double, bpm: Bool, shape: TempoMap.Shape)
        /// `section N meter N/D` (nil: `off`, the document's meter).
        case meter(Meter?)
    }
}
