/// Linked instances of groups: placing a group as a pattern that plays its content wherever it stands, and
/// turning instances back into plain markers (`GroupInstance`).
extension Command {
    /// `place group N [at=TIME] [track=K] [times=R]`: a linked instance of group N.
    struct PlaceGroup: CommandBody {
        var group: Int
        var at: Double?
        var track: Int?
        var times: Int
        static let spec = CommandSpec("place group", usage: "place group N [at=TIME] [track=K] [times=R]",
                                      help: "a linked instance of group N (at the cursor, on the current track), R times end to end: editing the group changes it")
        static let examples = [PlaceGroup(group: 1, at: nil, track: nil, times: 1), PlaceGroup(group: 2, at: 4, track: 3, times: 4)]
        static func parse(_ p: inout LineParser) throws -> PlaceGroup {
            let usage = spec.usage
            let n = try p.integer(try p.next("N", usage: usage), "group", GroupBank.range)
            let opts = try p.options(["at", "track", "times"], usage: usage)
            return PlaceGroup(group: n, at: try opts["at"].map { try p.time($0, "at") },
                              track: try opts["track"].map { try p.integer($0, "track", 1...Limits.maxTracks) },
                              times: try opts["times"].map { try p.integer($0, "times", 1...GroupInstance.maxTimes) } ?? 1)
        }
        var text: String {
            "place group \(group)" + (at.map { " at=\(Command.number($0))" } ?? "") + (track.map { " track=\($0)" } ?? "")
                + (times == 1 ? "" : " times=\(times)")
        }
        func run(in session: Session) throws -> String? {
            try session.runPlaceGroup(group, at: at, track: track.map { $0 - 1 }, times: times)
        }
    }

    /// `unlink [all]`: the linked instances under the cursor on the current track (all: every one) become plain
    /// markers that no longer follow their group.
    struct Unlink: CommandBody {
        var all: Bool
        static let spec = CommandSpec("unlink", usage: "unlink [all]",
                                      help: "the linked instances under the cursor on the current track (all: every one) become plain markers")
        static let examples = [Unlink(all: false), Unlink(all: true)]
        static func parse(_ p: inout LineParser) throws -> Unlink {
            var all = false
            if p.position < p.words.count {
                let w = try p.next("all", usage: spec.usage)
                guard p.isKeyword(w, "all") else { throw p.fail("unlink takes 'all' or nothing, not '\(Limits.echo(w.text))'", at: w) }
                all = true
            }
            try p.end(usage: spec.usage)
            return Unlink(all: all)
        }
        var text: String { all ? "unlink all" : "unlink" }
        func run(in session: Session) throws -> String? { try session.runUnlink(all: all) }
    }

    public static func placeGroup(_ n: Int, at: Double? = nil, track: Int? = nil, times: Int = 1) -> Command {
        Command(PlaceGroup(group: n, at: at, track: track, times: times))
    }
    public static func unlink(all: Bool) -> Command { Command(Unlink(all: all)) }
}

extension Command {
    /// `instance delete [all]`: the linked instances under the cursor on the current track (all: every one) go,
    /// as whole blocks; the group stays in the bank.
    struct InstanceDelete: CommandBody {
        var all: Bool
        static let spec = CommandSpec("instance delete", usage: "instance delete [all]",
                                      help: "delete the linked instances under the cursor on the current track (all: every one)")
        static let examples = [InstanceDelete(all: false), InstanceDelete(all: true)]
        static func parse(_ p: inout LineParser) throws -> InstanceDelete {
            var all = false
            if p.position < p.words.count {
                let w = try p.next("all", usage: spec.usage)
                guard p.isKeyword(w, "all") else { throw p.fail("instance delete takes 'all' or nothing, not '\(Limits.echo(w.text))'", at: w) }
                all = true
            }
            try p.end(usage: spec.usage)
            return InstanceDelete(all: all)
        }
        var text: String { all ? "instance delete all" : "instance delete" }
        func run(in session: Session) throws -> String? { try session.runInstanceDelete(all: all) }
    }

    /// `instance shift BY`: the linked instances under the cursor on the current track move BY seconds, whole.
    struct InstanceShift: CommandBody {
        var by: Double
        static let spec = CommandSpec("instance shift", usage: "instance shift BY",
                                      help: "move the linked instances under the cursor on the current track BY seconds, whole")
        static let examples = [InstanceShift(by: 0.5), InstanceShift(by: -2)]
        static func parse(_ p: inout LineParser) throws -> InstanceShift {
            let word = try p.next("BY", usage: spec.usage)
            let by = try p.number(word, "BY", { $0.isFinite }, "must be a finite number of seconds")
            try p.end(usage: spec.usage)
            return InstanceShift(by: by)
        }
        var text: String { "instance shift \(Command.number(by))" }
        func run(in session: Session) throws -> String? { try session.runInstanceShift(by) }
    }
}

extension Command {
    /// `group edit N`: group N's content becomes the timeline, edited with every tool, until `group done`.
    struct GroupEditOpen: CommandBody {
        var group: Int
        static let spec = CommandSpec("group edit", usage: "group edit N",
                                      help: "open group N as the timeline (its span is the loop), edited with every tool until 'group done'",
                                      flags: .touchesSelection)
        static let examples = [GroupEditOpen(group: 3)]
        static func parse(_ p: inout LineParser) throws -> GroupEditOpen {
            GroupEditOpen(group: try p.only("N", usage: spec.usage) { try $0.integer($1, "group", GroupBank.range) })
        }
        var text: String { "group edit \(group)" }
        func run(in session: Session) throws -> String? { try session.runGroupEdit(group) }
    }

    /// `group done`: the timeline is stored back as the open group (every instance plays it) and returns.
    struct GroupDone: WordsOnly {
        static let spec = CommandSpec("group done", usage: "group done",
                                      help: "store the timeline as the open group (every instance plays it) and return to the timeline",
                                      flags: .touchesSelection)
        func run(in session: Session) throws -> String? { try session.runGroupDone() }
    }

    public static func groupEdit(_ n: Int) -> Command { Command(GroupEditOpen(group: n)) }
    public static var groupDone: Command { Command(GroupDone()) }
}
