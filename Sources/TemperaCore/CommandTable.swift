/// The command table: every command of the language, declared once.
///
/// A command is a type conforming to `CommandBody`: its `spec` (the words that name it, its usage, a one-line
/// help and its flags), how it reads its arguments (`parse`), how it prints back (`text`), how it runs (`run`)
/// and a few `examples`. `CommandTable.entries` lists them in the order help screens and the reference show
/// them. Everything else is derived from the table: the parser routes a line to its entry by the entry's
/// words, the printer is each entry's `text`, the `:` line completes and suggests from the table's names, the
/// `?` screen, `tempera script --help`, the man page's command reference and docs/commands.md list each
/// entry's usage and help. The commands that reach past the document (`play`, `locate`, `open`, `import`,
/// `render`, `q`, `theme`...) are entries like the others, flagged `.host`: they run on the session's
/// `SessionHost`, which the editor, `tempera play` and `tempera serve` provide.
///
/// # How to add a command
///
/// Say `ratchet N [times=K]` (repeat each selected marker K times within 1/N of a beat):
///
/// 1. **Declare it** in `Sources/TemperaCore/Commands/` (the file of its area, or a new one):
///
///    ```swift
///    extension Command {
///        struct Ratchet: CommandBody {
///            var steps: Int, times: Int
///            static let spec = CommandSpec("ratchet", usage: "ratchet N [times=K]",
///                                          help: "each selected marker repeated K times within 1/N of a beat")
///            static let examples = [Ratchet(steps: 4, times: 2), Ratchet(steps: 3, times: 1)]
///            static func parse(_ p: inout LineParser) throws -> Ratchet {
///                let usage = spec.usage
///                let n = try p.integer(try p.next("N", usage: usage), "ratchet", 1...128)
///                let opts = try p.options(["times"], usage: usage)
///                return Ratchet(steps: n, times: try opts["times"].map { try p.integer($0, "times", 1...16) } ?? 1)
///            }
///            var text: String { "ratchet \(steps)" + (times == 1 ? "" : " times=\(times)") }
///            func run(in session: Session) throws -> String? { try session.runRatchet(steps, times: times) }
///        }
///        /// Optional: a factory, so code and tests write `session.run(.ratchet(4))`.
///        public static func ratchet(_ steps: Int, times: Int = 1) -> Command { Command(Ratchet(steps: steps, times: times)) }
///    }
///    ```
///
///    `spec`'s first argument is the words that name the command: literal words (`"track add"`, alternatives
///    as `"loop on|off"`), `N` for a number that selects what the command acts on (`"section N repeats"`;
///    `[N]` when it may be left out, `"track [N] mute"`; the router reads it into `p.selector`, named and
///    bounded by the family's `CommandFamily.number`), and `key=` for a form recognised by an option word
///    (`"scale handle="`, `"temper ="` for any option). A command whose words are only its name (`"draw"`) is
///    its family's default: it takes the line when no longer form matches. `parse` starts after the words.
///    Flags: `.viewOnly` (changes only the participant's cursor, track, selection or modes: runs locally on a
///    shared document), `.refusedWhenShared`, `.host` (runs on the session's `SessionHost`: the transport, files,
///    the screen).
///    `LineParser` reads the arguments: `p.only("N", usage:) { ... }` for a command's one argument,
///    `p.onlyOnOff(usage:)`, `p.offOr("N or off", usage:) { ... }`, `p.options([...], usage:)` for `key=value`
///    words, and values checked with a one-line error (`p.integer`, `p.number(_:_:in:)`, `p.time`, `p.amp`). A
///    command that takes nothing after its words conforms to `WordsOnly` and declares only its `spec` and `run`.
/// 2. **List it** in `CommandTable.entries` below, next to its relatives (one line: `Command.Ratchet.self`).
/// 3. **Implement it** on the `Session` (`Session+Editing.swift` or a file of its own): `func runRatchet`,
///    changing the document only through `perform(name) { edit in ... }`, so it is one undo step, shared and
///    saved like every other. Check what depends on the document there and throw one-line `CommandError`s.
/// 4. **Test it** (its behaviour, in the tests of its area). `CommandTableTests` already holds every entry to
///    its examples (each parses back from its `text`), its help, and the generated reference: run
///    `make reference` to regenerate docs/commands.md and the man page's command section, and commit them.
///
/// Nothing else changes: no enum case, no printer or dispatch switch, no list of names or forms elsewhere. A
/// command that needs the player, the files or the screen is declared the same way (`Commands+Host.swift`) and
/// calls a `SessionHost` requirement, and a key that only runs a command is a key-map line naming the command
/// (`run quantize 4`).
public enum CommandTable {
    /// Every command of the language, in the order help and the reference list them.
    public static let entries: [any CommandBody.Type] = [
        // Tracks
        Command.TrackAdd.self, Command.TrackSelect.self, Command.TrackMute.self, Command.TrackSolo.self,
        Command.TrackGain.self, Command.TrackName.self, Command.TrackDelete.self, Command.TrackDuplicate.self,
        Command.TrackMove.self,
        // The transport
        Command.Length.self, Command.LoopRange.self, Command.Loop.self, Command.Tempo.self, Command.Volume.self,
        // Time that bends
        Command.TempoAt.self, Command.BPMAt.self, Command.TempoClear.self, Command.TrackCycle.self, Command.TrackRatio.self,
        // Sounds
        Command.Slot.self, Command.KitList.self, Command.KitLoad.self, Command.MidiMap.self,
        Command.MidiLearn.self, Command.MidiBind.self, Command.MidiUnbind.self, Command.MidiBindingsList.self,
        // Placing markers and clips
        Command.Cursor.self, Command.MarkerAdd.self, Command.Pulse.self, Command.ClipMode.self, Command.Snap.self,
        Command.ChooseClip.self, Command.DrawGroup.self, Command.Draw.self, Command.TypeCode.self, Command.Fill.self,
        Command.Spread.self, Command.Pattern.self,
        // Selecting and changing
        Command.Select.self, Command.Shift.self, Command.Scale.self, Command.ScaleTo.self, Command.Subdivide.self,
        Command.Rotate.self, Command.Reverse.self, Command.Delete.self,
        Command.GroupStore.self, Command.GroupStamp.self,
        // History and files
        Command.Undo.self, Command.Redo.self, Command.Save.self, Command.SaveAs.self, Command.WriteQuit.self, Command.Open.self,
        Command.OpenDiscarding.self, Command.New.self, Command.Import.self, Command.Export.self, Command.Render.self,
        Command.Quit.self, Command.QuitDiscarding.self,
        // The transport and the screen
        Command.Play.self, Command.Stop.self, Command.Locate.self, Command.Theme.self, Command.Help.self,
        // The rhythm designer
        Command.TemperDefine.self, Command.TemperSlider.self, Command.TemperStamp.self, Command.TemperGroup.self,
        Command.TemperApply.self, Command.TemperMorph.self, Command.TemperPreset.self, Command.TemperAmp.self,
        Command.TemperFit.self,
        // Recording
        Command.RecordArm.self, Command.RecordTake.self,
        // The song
        Command.SectionAdd.self, Command.SectionRepeats.self, Command.SectionTempo.self, Command.SectionBPM.self,
        Command.SectionMeter.self, Command.SectionRegion.self,
        Command.SectionName.self, Command.SectionMove.self, Command.SectionDelete.self,
        Command.SectionDuplicate.self, Command.SectionTracks.self, Command.SectionPlay.self, Command.SongPlay.self,
        Command.SongLoop.self,
        // Musical time
        Command.Beat.self, Command.SetMeter.self, Command.PlaceGroup.self, Command.GroupEditOpen.self, Command.GroupDone.self, Command.Unlink.self, Command.InstanceDelete.self, Command.InstanceShift.self, Command.BPM.self, Command.Grid.self, Command.Click.self,
        Command.CountIn.self,
        // Editing the selection
        Command.Amp.self, Command.Copy.self, Command.Cut.self, Command.Paste.self, Command.Duplicate.self,
        Command.Quantize.self,
        // Grooves
        Command.Prob.self, Command.Ratchet.self, Command.Humanize.self, Command.GrooveExtract.self,
        Command.GrooveApply.self, Command.GrooveSave.self, Command.GrooveLoad.self,
    ]

    /// Families whose router says more than "expected a or b": what is missing after the name, the number that
    /// selects what the command acts on, and how an unknown word is reported. A family not listed here gets
    /// the generic messages.
    static let families: [String: CommandFamily] = [
        "track": CommandFamily(
            missing: "'add', a setting or a track number", number: ("track", 1...Int.max),
            unknown: { word, names, usage in
                if let near = LineParser.nearest(word, in: names) {
                    return "unknown track setting '\(Limits.echo(word))' (did you mean '\(near)'?)"
                }
                return "unknown track setting '\(Limits.echo(word))' (\(usage))"
            }),
        "section": CommandFamily(
            missing: "'add' or a section number", number: ("section", 1...Song.maxSections),
            unknown: { word, names, usage in
                if let near = LineParser.nearest(word, in: names) {
                    return "unknown section command '\(word)' (did you mean '\(near)'?)"
                }
                return "unknown section command '\(word)' (\(usage))"
            },
            unknownAfterNumber: { word, verbs, _ in
                var message = "unknown section setting '\(word)' (\(verbs.joined(separator: ", ")))"
                if let near = LineParser.nearest(word, in: verbs) { message += " (did you mean '\(near)'?)" }
                return message
            },
            missingAfterNumber: { verbs in "what to change: \(verbs.joined(separator: ", "))" }),
        "groove": CommandFamily(
            missing: "extract or apply",
            unknown: { word, names, usage in
                if let near = LineParser.nearest(word, in: names) {
                    return "unknown groove command '\(Limits.echo(word))' (did you mean '\(near)'?)"
                }
                return "unknown groove command '\(Limits.echo(word))' (\(usage))"
            }),
        "temper": CommandFamily(
            missing: "a designer command",
            unknown: { word, names, _ in
                var message = "unknown designer command '\(Limits.echo(word))'"
                if let near = LineParser.nearest(word, in: names) { message += " (did you mean '\(near)'?)" }
                return message
            }),
    ]

    /// The command names (the first word of each form), in table order, each once: completion and "did you
    /// mean" draw on them.
    public static let names: [String] = {
        var seen: Set<String> = [], out: [String] = []
        for entry in entries where seen.insert(entry.spec.head).inserted { out.append(entry.spec.head) }
        return out
    }()

    /// What the `:` line completes: every command's names (its other names too) longer than two characters, each
    /// once, in table order.
    public static let completions: [String] = {
        var seen: Set<String> = []
        return entries.flatMap { [$0.spec.head] + $0.spec.aliases }.filter { $0.count > 2 && seen.insert($0).inserted }
    }()

    /// Every command's usage, in table order.
    public static var forms: [String] { entries.map { $0.spec.usage } }

    /// Every command's usage and, below it, its help: the list `tempera script --help` prints.
    public static func helpText(indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        return entries.map { pad + $0.spec.usage + "\n" + pad + "    " + $0.spec.help }.joined(separator: "\n")
    }

    /// The entries whose name (or one of whose other names, `w` for `save`) is `head`.
    static let byHead: [String: [any CommandBody.Type]] = {
        var table = Dictionary(grouping: entries, by: { $0.spec.head })
        for entry in entries { for alias in entry.spec.aliases { table[alias, default: []].append(entry) } }
        return table
    }()

    /// The entry a line's first word names (its name or another name), when only one does: what the editor's
    /// help and key bindings look up.
    public static func entry(named word: String) -> (any CommandBody.Type)? { byHead[word]?.first }

    /// Reads one line's words into a command: routes to the entry the words name, which reads the rest.
    static func parse(_ p: inout LineParser) throws -> Command {
        let head = p.words[0]
        if head.quoted || head.equals != nil {
            throw p.fail("a command starts with its name, not '\(Limits.echo(head.text))'", at: head)
        }
        guard let members = byHead[head.text] else {
            var message = "unknown command '\(Limits.echo(head.text))'"
            if let near = LineParser.nearest(head.text, in: names) { message += " (did you mean '\(near)'?)" }
            throw p.fail(message, at: head)
        }
        p.position = 1
        let entry = try route(&p, members, family: families[head.text])
        return try entry.command(&p)
    }

    /// Chooses the entry a line's words name among those sharing its first word (see `CommandSpec.words`).
    private static func route(_ p: inout LineParser, _ members: [any CommandBody.Type],
                              family: CommandFamily?) throws -> any CommandBody.Type {
        if members.count == 1, members[0].spec.words.count == 1 { return members[0] }
        let usage = members.map { $0.spec.usage }.joined(separator: " | ")
        let next = p.position < p.words.count ? p.words[p.position] : nil
        // The literal words a form may have right after the name (a number that may be left out skipped).
        let firstWords = members.flatMap { m -> [String] in
            let w = m.spec.words
            if w.count > 1, case .literal(let alternatives) = w[1] { return alternatives }
            if w.count > 2, case .number(optional: true) = w[1], case .literal(let alternatives) = w[2] { return alternatives }
            return []
        }
        func uniq(_ list: [String]) -> [String] {
            var seen: Set<String> = []
            return list.filter { seen.insert($0).inserted }
        }
        if let w = next, p.isPlain(w) {
            for m in members {
                let words = m.spec.words
                var k = 1
                if words.count > 2, case .number(optional: true) = words[1] { k = 2 }
                guard words.count > k, case .literal(let alternatives) = words[k], alternatives.contains(w.text) else { continue }
                p.position += 1
                return m
            }
        }
        if let w = next, let key = w.key {
            for m in members {
                let words = m.spec.words
                if words.count > 1, case .keyed(let wanted) = words[1], wanted == nil || wanted == key { return m }
            }
        }
        let numbered = members.filter { m in
            let words = m.spec.words
            if words.count > 1, case .number = words[1] { return true }
            return false
        }
        if let w = next, !numbered.isEmpty, let family, let number = family.number {
            if !w.quoted, w.equals == nil, !w.text.isEmpty,
               w.text.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) }) {
                throw p.fail(family.unknown(w.text, uniq(firstWords), usage), at: w)
            }
            let n = try p.integer(w, number.name, number.range)
            p.position += 1
            p.selector = n
            let verbs = uniq(numbered.flatMap { m -> [String] in
                let words = m.spec.words
                if words.count > 2, case .literal(let alternatives) = words[2] { return alternatives }
                return []
            })
            guard p.position < p.words.count else {
                if let alone = numbered.first(where: { $0.spec.words.count == 2 }) { return alone }
                let what = family.missingAfterNumber?(verbs) ?? verbs.joined(separator: " or ")
                throw CommandError("missing \(what) (\(usage))", column: p.missingColumn)
            }
            let verb = p.words[p.position]
            for m in numbered {
                let words = m.spec.words
                guard words.count > 2, case .literal(let alternatives) = words[2], p.isPlain(verb),
                      alternatives.contains(verb.text) else { continue }
                p.position += 1
                return m
            }
            let message = family.unknownAfterNumber?(verb.text, verbs, usage)
                ?? family.unknown(verb.text, uniq(firstWords + verbs), usage)
            throw p.fail(message, at: verb)
        }
        if let fallback = members.first(where: { $0.spec.words.count == 1 }) { return fallback }
        let choices = uniq(firstWords)
        let listed = choices.count == 1 ? "'\(choices[0])'"
            : choices.dropLast().joined(separator: ", ") + " or " + (choices.last ?? "")
        guard let w = next else {
            throw CommandError("missing \(family?.missing ?? listed) (\(usage))", column: p.missingColumn)
        }
        if let family { throw p.fail(family.unknown(w.text, choices, usage), at: w) }
        if let near = LineParser.nearest(w.text, in: choices), near != w.text {
            throw p.fail("expected \(listed), not '\(Limits.echo(w.text))' (did you mean '\(near)'?)", at: w)
        }
        throw p.fail("expected \(listed), not '\(Limits.echo(w.text))' (\(usage))", at: w)
    }
}

/// A command of the language: one entry of `CommandTable`. See `CommandTable` for how to add one.
public protocol CommandBody: Hashable, Sendable {
    /// Its words, usage, help and flags.
    static var spec: CommandSpec { get }
    /// A few values of the command (the table's test reads each back from its `text`).
    static var examples: [Self] { get }
    /// Reads the arguments after the command's words (`p.position` is at the first of them; `p.selector` holds
    /// the number the words selected, if any). Throws a `CommandError` naming the column of a bad word.
    static func parse(_ p: inout LineParser) throws -> Self
    /// The textual form: `CommandParser.parse(text)` gives this command back.
    var text: String { get }
    /// Runs it on the session; a message for the user when there is something to say.
    func run(in session: Session) throws -> String?
}

extension CommandBody {
    static func command(_ p: inout LineParser) throws -> Command { Command(try parse(&p)) }

    func isEqual(to other: any CommandBody) -> Bool { (other as? Self) == self }
}

/// A command that takes nothing after its words (`copy`, `tempo clear`): its usage is its text, its one example
/// itself, and it reads only the end of the line.
protocol WordsOnly: CommandBody {
    init()
}

extension WordsOnly {
    static var examples: [Self] { [Self()] }

    static func parse(_ p: inout LineParser) throws -> Self {
        try p.end(usage: spec.usage)
        return Self()
    }

    var text: String { Self.spec.usage }
}

/// A mode switched on or off (`snap on`, `mode clip off`): its usage ends in `on|off`, its text is the usage with
/// the one chosen.
protocol OnOrOff: CommandBody {
    var on: Bool { get }
    init(on: Bool)
}

extension OnOrOff {
    static var examples: [Self] { [Self(on: true), Self(on: false)] }

    static func parse(_ p: inout LineParser) throws -> Self { Self(on: try p.onlyOnOff(usage: spec.usage)) }

    var text: String { String(Self.spec.usage.dropLast("on|off".count)) + (on ? "on" : "off") }
}

/// What a command is, for the table: the words that name it, its usage, help and flags.
public struct CommandSpec: Sendable {
    /// One word of a command's name (see `CommandTable`'s "how to add a command").
    public enum Word: Hashable, Sendable {
        /// A keyword, or one of several (`on|off`).
        case literal([String])
        /// `N` or `[N]`: a number selecting what the command acts on.
        case number(optional: Bool)
        /// `key=`: a form recognised by an option word (not consumed); `=` alone for any option.
        case keyed(String?)
    }

    public let words: [Word]
    /// The usage line: `track [N] mute [on|off]`.
    public let usage: String
    /// One line saying what it does.
    public let help: String
    public let flags: CommandFlags
    /// Other names the editor's `:` line takes (`write` and `save` for `w`).
    public let aliases: [String]

    /// `words` as written in a usage: `"track [N] mute"`, `"loop on|off"`, `"scale handle="`, `"temper ="`.
    public init(_ words: String, usage: String, help: String, flags: CommandFlags = [], aliases: [String] = []) {
        self.words = words.split(separator: " ").map { w -> Word in
            switch w {
            case "N": return .number(optional: false)
            case "[N]": return .number(optional: true)
            case "=": return .keyed(nil)
            default:
                if w.hasSuffix("=") { return .keyed(String(w.dropLast())) }
                return .literal(w.split(separator: "|").map(String.init))
            }
        }
        self.usage = usage
        self.help = help
        self.flags = flags
        self.aliases = aliases
    }

    /// The command's first word.
    public var head: String {
        if case .literal(let names)? = words.first { return names[0] }
        return ""
    }
}

/// How a command behaves beyond what it does.
public struct CommandFlags: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Changes only the participant's own state (cursor, current track, selection, modes, chosen clip), never
    /// the document: on a shared document it runs locally instead of going to the host.
    public static let viewOnly = CommandFlags(rawValue: 1)
    /// Runs on the session's `SessionHost` (the transport, files, formats, the screen): never an undo step, never
    /// sent to a shared document's host, never heard by the observer; a script skips it with one line.
    public static let host = CommandFlags(rawValue: 2)
    /// Refused on a shared document (it would leave the share: open another file, start a new document).
    public static let refusedWhenShared = CommandFlags(rawValue: 4)
    /// Changes every selected marker: on a shared document it is refused when the selection is larger than a
    /// shared command may touch.
    public static let touchesSelection = CommandFlags(rawValue: 8)
}

/// What a family of commands sharing a first word says when a line names none of them (`CommandTable.families`).
struct CommandFamily: Sendable {
    /// What the router says is missing after the first word.
    var missing: String
    /// The name and range of the number that selects what the family's numbered forms act on.
    var number: (name: String, range: ClosedRange<Int>)?
    /// The message for an unknown word after the first (the word, the family's words, the family's usage).
    var unknown: @Sendable (String, [String], String) -> String
    /// The message for an unknown word after the number (the word, the words allowed there, the usage).
    var unknownAfterNumber: (@Sendable (String, [String], String) -> String)?
    /// What is missing after the number (given the words allowed there).
    var missingAfterNumber: (@Sendable ([String]) -> String)?

    init(missing: String, number: (name: String, range: ClosedRange<Int>)? = nil,
         unknown: @escaping @Sendable (String, [String], String) -> String,
         unknownAfterNumber: (@Sendable (String, [String], String) -> String)? = nil,
         missingAfterNumber: (@Sendable ([String]) -> String)? = nil) {
        self.missing = missing
        self.number = number
        self.unknown = unknown
        self.unknownAfterNumber = unknownAfterNumber
        self.missingAfterNumber = missingAfterNumber
    }
}

/// One command, as a value: what the `:` line, scripts, key bindings, tests and shared editing build and hand to
/// a `Session`. It holds one entry of `CommandTable` (its `body`); two commands are equal when they are the
/// same entry with the same arguments.
public struct Command: Hashable, Sendable, CustomStringConvertible {
    public let body: any CommandBody

    public init(_ body: some CommandBody) { self.body = body }

    public static func == (a: Command, b: Command) -> Bool { a.body.isEqual(to: b.body) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(Swift.type(of: body)))
        hasher.combine(body)
    }

    /// The entry's declaration.
    public var spec: CommandSpec { Swift.type(of: body).spec }

    /// The command's textual form, as the `:` line and scripts take it: `CommandParser.parse(c.text) == c` for
    /// every command (numbers are written shortest-round-trip, so times come back exactly). Key bindings use it
    /// to show what a key does, and the editor to record what was run.
    public var text: String { body.text }

    public var description: String { text }

    /// The command as entry `T`, or nil when it is another.
    public func `as`<T: CommandBody>(_ type: T.Type) -> T? { body as? T }

    /// True when the command is entry `T`.
    public func `is`<T: CommandBody>(_ type: T.Type) -> Bool { body is T }

    /// True for the commands that change only the participant's own state, never the document.
    public var changesOnlyTheView: Bool { spec.flags.contains(.viewOnly) }
}
