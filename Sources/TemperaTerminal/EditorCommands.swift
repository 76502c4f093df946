import Foundation
import TemperaCore

/// The editor's part of the command table: the commands only the `:` line takes, because they need the screen,
/// the engine or the file questions (quit, write, open, render, theme...). Each is declared once here, as the
/// document's commands are in `CommandTable` (see its "how to add a command"), with a `CommandSpec` flagged
/// `.editorOnly`; its argument is the rest of the line, a file name or a theme (quotes may surround it, `~`
/// is expanded), and `run` gets the dispatcher. The `:` line tries these first, then the language.
public struct EditorCommand: Sendable {
    public let spec: CommandSpec
    /// Runs the command with the rest of the line (unquoted; empty when none was given).
    let run: @Sendable (Dispatcher, String) throws -> Void

    /// The command's textual form with an argument: `w "my song.tempera"`.
    public func text(_ argument: String) -> String {
        argument.isEmpty ? spec.head : spec.head + " " + Command.quote(argument)
    }
}

public enum EditorCommands {
    /// Every editor-only command, in the order help and the reference list them.
    public static let entries: [EditorCommand] = [
        EditorCommand(spec: CommandSpec("q", usage: "q", help: "quit (asks when there are unsaved changes)",
                                        flags: .editorOnly, aliases: ["quit"])) { d, _ in d.requestQuit() },
        EditorCommand(spec: CommandSpec("q!", usage: "q!", help: "quit without saving", flags: .editorOnly,
                                        aliases: ["quit!"])) { d, _ in
            d.discardedChanges = true
            d.quitRequested = true
        },
        EditorCommand(spec: CommandSpec("w", usage: "w [FILE]",
                                        help: "save (to FILE: a copy there, the editor staying on its file; an unnamed document becomes FILE)",
                                        flags: .editorOnly, aliases: ["write", "save"])) { d, arg in
            _ = d.save(arg.isEmpty ? nil : Dispatcher.expand(arg))
        },
        EditorCommand(spec: CommandSpec("saveas", usage: "saveas FILE",
                                        help: "save to FILE, the document's file from then on (S)", flags: .editorOnly)) { d, arg in
            guard !arg.isEmpty else { return d.say("saveas needs a file name", error: true) }
            _ = d.save(Dispatcher.expand(arg), switching: true)
        },
        EditorCommand(spec: CommandSpec("wq", usage: "wq [FILE]", help: "save (to FILE: the document's file from then on), then quit",
                                        flags: .editorOnly, aliases: ["x"])) { d, arg in
            if d.save(arg.isEmpty ? nil : Dispatcher.expand(arg), thenQuit: true, switching: true) { d.quitRequested = true }
        },
        EditorCommand(spec: CommandSpec("open", usage: "open FILE", help: "open another document (asks about unsaved changes)",
                                        flags: [.editorOnly, .refusedWhenShared], aliases: ["e", "edit"])) { d, arg in
            guard !arg.isEmpty else { return d.say("open needs a file name", error: true) }
            let path = Dispatcher.expand(arg)
            d.whenDiscarded { d.open(path) }
        },
        EditorCommand(spec: CommandSpec("e!", usage: "e! FILE", help: "open another document, dropping unsaved changes",
                                        flags: [.editorOnly, .refusedWhenShared])) { d, arg in
            guard !arg.isEmpty else { return d.say("open needs a file name", error: true) }
            d.open(Dispatcher.expand(arg))
        },
        EditorCommand(spec: CommandSpec("new", usage: "new", help: "a new document (asks about unsaved changes)",
                                        flags: [.editorOnly, .refusedWhenShared])) { d, _ in
            d.whenDiscarded {
                d.replaceSession(Session(document: .newDocument()))
                d.say("a new document")
            }
        },
        EditorCommand(spec: CommandSpec("export", usage: "export FILE.mid",
                                        help: "the song (or one pass of the loop) as a Standard MIDI File",
                                        flags: .editorOnly)) { d, arg in d.exportMidi(arg) },
        EditorCommand(spec: CommandSpec("import", usage: "import FILE [split] [slice]",
                                        help: "a recording or a MIDI file as a new document, as tempera import makes it",
                                        flags: [.editorOnly, .refusedWhenShared])) { d, arg in d.importFile(arg) },
        EditorCommand(spec: CommandSpec("theme", usage: "theme NAME", help: "the screen's colours: a shipped theme or your own",
                                        flags: .editorOnly)) { d, arg in
            // Short enough to be read whole on the status line of an 80-column screen.
            let choices = "(\(Theme.shippedNames.joined(separator: ", ")), or your own)"
            guard !arg.isEmpty else { return d.say("theme needs a name \(choices)", error: true) }
            guard let theme = try Theme.named(arg, paths: d.paths) else {
                return d.say("no theme '\(arg)' \(choices)", error: true)
            }
            d.requestedTheme = theme
            d.say("theme \(arg)")
        },
        EditorCommand(spec: CommandSpec("help", usage: "help", help: "the keys and these commands (? too)",
                                        flags: .editorOnly)) { d, _ in d.view.helpOffset = 0 },
        EditorCommand(spec: CommandSpec("render", usage: "render FILE.wav|FILE.flac",
                                        help: "render the document to a sound file, in the background",
                                        flags: .editorOnly)) { d, arg in
            guard !arg.isEmpty else { return d.say("render needs a file name (.wav or .flac)", error: true) }
            d.startRender(Dispatcher.expand(arg))
        },
    ]

    /// The entry a `:` line's first word names (its name or an alias).
    public static func entry(named word: String) -> EditorCommand? {
        entries.first { $0.spec.head == word || $0.spec.aliases.contains(word) }
    }

    /// What the `:` line completes: every name of the language and of the editor's commands longer than two
    /// characters, each once.
    public static var completions: [String] {
        var seen: Set<String> = []
        return (CommandTable.names + entries.flatMap { [$0.spec.head] + $0.spec.aliases }.filter { $0.count > 2 })
            .filter { seen.insert($0).inserted }
    }
}
