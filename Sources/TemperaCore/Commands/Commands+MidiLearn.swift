/// MIDI learn: controllers and notes arriving on MIDI in bound to command lines (`MidiBindings`), kept in the
/// user's configuration, not the document. They run on the session's host (the editor, which reads MIDI in).
extension Command {
    /// `midi learn COMMAND`: the next controller or note that arrives runs COMMAND from then on.
    struct MidiLearn: CommandBody {
        var command: String
        static let spec = CommandSpec("midi learn", usage: "midi learn COMMAND",
                                      help: "the next controller or note on MIDI in runs COMMAND ({value}: 0..1, or the note's velocity)",
                                      flags: .host)
        static let examples = [MidiLearn(command: "volume {value}"), MidiLearn(command: "play")]
        static func parse(_ p: inout LineParser) throws -> MidiLearn {
            MidiLearn(command: try p.boundCommand(usage: spec.usage))
        }
        var text: String { "midi learn " + command }
        func run(in session: Session) throws -> String? { try Command.host(session, "midi learn").midiLearn(command) }
    }

    /// `midi bind cc=CH:NUM COMMAND`, `midi bind note=CH:NUM COMMAND`.
    struct MidiBind: CommandBody {
        var source: MidiBindings.Source
        var command: String
        static let spec = CommandSpec("midi bind", usage: "midi bind cc=CH:NUM|note=CH:NUM COMMAND",
                                      help: "controller NUM (or note NUM) on channel CH of MIDI in runs COMMAND ({value}: 0..1)",
                                      flags: .host)
        static let examples = [MidiBind(source: .cc(channel: 1, number: 7), command: "volume {value}"),
                               MidiBind(source: .note(channel: 10, number: 36), command: "play")]
        static func parse(_ p: inout LineParser) throws -> MidiBind {
            let source = try p.midiSource(usage: spec.usage)
            return MidiBind(source: source, command: try p.boundCommand(usage: spec.usage))
        }
        var text: String { "midi bind \(source) " + command }
        func run(in session: Session) throws -> String? { try Command.host(session, "midi bind").midiBind(source, command) }
    }

    struct MidiUnbind: CommandBody {
        var source: MidiBindings.Source
        static let spec = CommandSpec("midi unbind", usage: "midi unbind cc=CH:NUM|note=CH:NUM",
                                      help: "the controller or note runs nothing any more", flags: .host)
        static let examples = [MidiUnbind(source: .cc(channel: 2, number: 74))]
        static func parse(_ p: inout LineParser) throws -> MidiUnbind {
            let source = try p.midiSource(usage: spec.usage)
            try p.end(usage: spec.usage)
            return MidiUnbind(source: source)
        }
        var text: String { "midi unbind \(source)" }
        func run(in session: Session) throws -> String? { try Command.host(session, "midi unbind").midiUnbind(source) }
    }

    struct MidiBindingsList: WordsOnly {
        static let spec = CommandSpec("midi bindings", usage: "midi bindings",
                                      help: "what each controller and note of MIDI in runs", flags: .host)
        func run(in session: Session) throws -> String? { try Command.host(session, "midi bindings").midiBindings() }
    }
}

extension LineParser {
    /// `cc=CH:NUM` or `note=CH:NUM`.
    mutating func midiSource(usage: String) throws -> MidiBindings.Source {
        let w = try next("cc=CH:NUM or note=CH:NUM", usage: usage)
        guard let source = MidiBindings.Source(w.text) else {
            throw fail("expected cc=CH:NUM or note=CH:NUM (channel 1-16, 0-127), not '\(Limits.echo(w.text))'", at: w)
        }
        return source
    }

    /// The rest of the line as a command line a binding runs; it must read as a command (with `{value}` as 0.5).
    mutating func boundCommand(usage: String) throws -> String {
        guard position < words.count else { throw CommandError("missing COMMAND (\(usage))", column: missingColumn) }
        let first = words[position]
        let line = words[position...].map { $0.quoted ? Command.quote($0.text) : $0.text }.joined(separator: " ")
        position = words.count
        var probe = ""
        var rest = Substring(line)
        while let r = rest.firstRange(of: "{value}") {
            probe += rest[..<r.lowerBound] + "0.5"
            rest = rest[r.upperBound...]
        }
        probe += rest
        do {
            guard let command = try CommandParser.parse(probe) else { throw fail("missing COMMAND (\(usage))", at: first) }
            if command.is(Command.MidiLearn.self) || command.is(Command.MidiBind.self) {
                throw fail("a binding runs a command, not another binding", at: first)
            }
        } catch let error as CommandError {
            throw CommandError("\(line): \(error.message)", column: first.column)
        }
        return line
    }
}
