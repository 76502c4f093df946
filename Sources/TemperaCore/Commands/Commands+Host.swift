/// The commands that reach past the document: the transport, files, formats and the screen. Each runs on the
/// session's `SessionHost` (the editor, `tempera play`, `tempera serve`); without one (a script) it is refused
/// with one line, and a script skips it. They are flagged `.host`: never an undo step, never sent to a shared
/// document's host, never replayed. A file or name left out reads as "", for the host to say what it needs.
extension Command {
    /// The host of `session`, or the line saying the command needs one.
    static func host(_ session: Session, _ name: String) throws -> any SessionHost {
        guard let host = session.host else { throw CommandError.needsHost(name) }
        return host
    }

    struct Play: WordsOnly {
        static let spec = CommandSpec("play", usage: "play", help: "start the transport", flags: .host)
        func run(in session: Session) throws -> String? { try Command.host(session, "play").play() }
    }

    struct Stop: WordsOnly {
        static let spec = CommandSpec("stop", usage: "stop", help: "stop the transport where it is", flags: .host)
        func run(in session: Session) throws -> String? { try Command.host(session, "stop").stop() }
    }

    struct Locate: CommandBody {
        var time: Double
        static let spec = CommandSpec("locate", usage: "locate TIME",
                                      help: "move the playhead to TIME seconds on the timeline (inside the loop region)",
                                      flags: .host)
        static let examples = [Locate(time: 0), Locate(time: 1.5)]
        static func parse(_ p: inout LineParser) throws -> Locate {
            Locate(time: try p.only("TIME", usage: spec.usage) { try $0.time($1, "locate") })
        }
        var text: String { "locate \(Command.number(time))" }
        func run(in session: Session) throws -> String? { try Command.host(session, "locate").locate(time) }
    }

    /// `open PATH`, `e! PATH`: another document in place of this one.
    struct Open: CommandBody {
        var path: String
        var discarding = false
        static let spec = CommandSpec("open", usage: "open FILE", help: "open another document (asks about unsaved changes)",
                                      flags: [.host, .refusedWhenShared], aliases: ["e", "edit"])
        static let examples = [Open(path: "song.tempera"), Open(path: "my song.tempera")]
        static func parse(_ p: inout LineParser) throws -> Open { Open(path: try p.optionalPath("FILE", usage: spec.usage)) }
        var text: String { Command.withArgument("open", path) }
        func run(in session: Session) throws -> String? { try Command.host(session, "open").open(path, discarding: false) }
    }

    struct OpenDiscarding: CommandBody {
        var path: String
        static let spec = CommandSpec("e!", usage: "e! FILE", help: "open another document, dropping unsaved changes",
                                      flags: [.host, .refusedWhenShared])
        static let examples = [OpenDiscarding(path: "song.tempera")]
        static func parse(_ p: inout LineParser) throws -> OpenDiscarding {
            OpenDiscarding(path: try p.optionalPath("FILE", usage: spec.usage))
        }
        var text: String { Command.withArgument("e!", path) }
        func run(in session: Session) throws -> String? { try Command.host(session, "e!").open(path, discarding: true) }
    }

    struct New: WordsOnly {
        static let spec = CommandSpec("new", usage: "new", help: "a new document (asks about unsaved changes)",
                                      flags: [.host, .refusedWhenShared])
        func run(in session: Session) throws -> String? { try Command.host(session, "new").newDocument() }
    }

    /// `saveas FILE`: save there, the document's file from then on (`save FILE` writes a copy).
    struct SaveAs: CommandBody {
        var path: String
        static let spec = CommandSpec("saveas", usage: "saveas FILE",
                                      help: "save to FILE, the document's file from then on (S)", flags: .host)
        static let examples = [SaveAs(path: "song.tempera"), SaveAs(path: "my song.tempera")]
        static func parse(_ p: inout LineParser) throws -> SaveAs { SaveAs(path: try p.optionalPath("FILE", usage: spec.usage)) }
        var text: String { Command.withArgument("saveas", path) }
        func run(in session: Session) throws -> String? { try Command.host(session, "saveas").saveAs(path) }
    }

    /// `wq [FILE]`: save (to FILE: the document's file from then on), then quit.
    struct WriteQuit: CommandBody {
        var path: String?
        static let spec = CommandSpec("wq", usage: "wq [FILE]", help: "save (to FILE: the document's file from then on), then quit",
                                      flags: .host, aliases: ["x"])
        static let examples = [WriteQuit(path: nil), WriteQuit(path: "song.tempera")]
        static func parse(_ p: inout LineParser) throws -> WriteQuit {
            WriteQuit(path: p.position < p.words.count ? try p.path("FILE", usage: spec.usage) : nil)
        }
        var text: String { path.map { "wq " + Command.quote($0) } ?? "wq" }
        func run(in session: Session) throws -> String? { try Command.host(session, "wq").save(path, thenQuit: true) }
    }

    struct Quit: WordsOnly {
        static let spec = CommandSpec("q", usage: "q", help: "quit (asks when there are unsaved changes)", flags: .host,
                                      aliases: ["quit"])
        func run(in session: Session) throws -> String? { try Command.host(session, "q").quit(discarding: false) }
    }

    struct QuitDiscarding: WordsOnly {
        static let spec = CommandSpec("q!", usage: "q!", help: "quit without saving", flags: .host, aliases: ["quit!"])
        func run(in session: Session) throws -> String? { try Command.host(session, "q!").quit(discarding: true) }
    }

    /// `import FILE [split] [slice]`: a recording, a MIDI file or a Hydrogen song added to the document.
    struct Import: CommandBody {
        var path: String
        var split = false
        var slice = false
        static let spec = CommandSpec("import", usage: "import FILE [split] [slice]",
                                      help: "a recording, a MIDI file or a Hydrogen song added to the document, below the current track",
                                      flags: [.host, .refusedWhenShared])
        static let examples = [Import(path: "loop.wav", split: true), Import(path: "song.h2song"),
                               Import(path: "my loop.flac", slice: true)]
        static func parse(_ p: inout LineParser) throws -> Import {
            // The words split and slice (or --split, --slice) at the end; the file name is the rest.
            var end = p.words.count, split = false, slice = false
            while end > p.position + 1, p.isPlain(p.words[end - 1]),
                  ["split", "--split", "slice", "--slice"].contains(p.words[end - 1].text) {
                if p.words[end - 1].text.hasSuffix("split") { split = true } else { slice = true }
                end -= 1
            }
            let path = p.position < end ? try p.path("FILE", usage: spec.usage, upTo: end) : ""
            p.position = p.words.count
            return Import(path: path, split: split, slice: slice)
        }
        var text: String { Command.withArgument("import", path) + (split ? " split" : "") + (slice ? " slice" : "") }
        func run(in session: Session) throws -> String? {
            try Command.host(session, "import").importFile(path, split: split, slice: slice)
        }
    }

    struct Export: CommandBody {
        var path: String
        static let spec = CommandSpec("export", usage: "export FILE.mid",
                                      help: "the song (or one pass of the loop) as a Standard MIDI File", flags: .host)
        static let examples = [Export(path: "song.mid")]
        static func parse(_ p: inout LineParser) throws -> Export {
            Export(path: try p.optionalPath("FILE.mid", usage: spec.usage))
        }
        var text: String { Command.withArgument("export", path) }
        func run(in session: Session) throws -> String? { try Command.host(session, "export").export(path) }
    }

    struct Render: CommandBody {
        var path: String
        static let spec = CommandSpec("render", usage: "render FILE.wav|FILE.flac",
                                      help: "render the document to a sound file, in the background", flags: .host)
        static let examples = [Render(path: "song.wav"), Render(path: "take two.flac")]
        static func parse(_ p: inout LineParser) throws -> Render {
            Render(path: try p.optionalPath("FILE.wav or FILE.flac", usage: spec.usage))
        }
        var text: String { Command.withArgument("render", path) }
        func run(in session: Session) throws -> String? { try Command.host(session, "render").render(path) }
    }

    struct Theme: CommandBody {
        var name: String
        static let spec = CommandSpec("theme", usage: "theme NAME", help: "the screen's colours: a shipped theme or your own",
                                      flags: .host)
        static let examples = [Theme(name: "paper")]
        static func parse(_ p: inout LineParser) throws -> Theme { Theme(name: try p.optionalPath("NAME", usage: spec.usage)) }
        var text: String { Command.withArgument("theme", name) }
        func run(in session: Session) throws -> String? { try Command.host(session, "theme").theme(name) }
    }

    struct Help: WordsOnly {
        static let spec = CommandSpec("help", usage: "help", help: "the keys and these commands (? too)", flags: .host)
        func run(in session: Session) throws -> String? { try Command.host(session, "help").help() }
    }

    /// `name FILE`, or `name` alone when the file is left out (the host then says what it needs).
    static func withArgument(_ name: String, _ argument: String) -> String {
        argument.isEmpty ? name : name + " " + quote(argument)
    }

    public static var play: Command { Command(Play()) }
    public static var stop: Command { Command(Stop()) }
    public static func locate(_ time: Double) -> Command { Command(Locate(time: time)) }
    public static func open(_ path: String) -> Command { Command(Open(path: path)) }
    public static func importFile(_ path: String, split: Bool = false, slice: Bool = false) -> Command {
        Command(Import(path: path, split: split, slice: slice))
    }
    public static func export(_ path: String) -> Command { Command(Export(path: path)) }
    public static func render(_ path: String) -> Command { Command(Render(path: path)) }
}

extension Document {
    /// Whether `locate` can put the playhead at `seconds`: inside the loop region while the loop plays (the song
    /// is placed by its sections). The one line saying why not.
    public func checkLocate(_ seconds: Double) throws {
        guard !song.plays else { throw CommandError("locate works on the loop: in song mode, section N play") }
        let n = Command.number
        guard seconds >= transport.loopStart, seconds < transport.loopEnd else {
            throw CommandError("locate \(n(seconds)) is outside the loop region \(n(transport.loopStart))..\(n(transport.loopEnd))")
        }
    }
}

extension LineParser {
    /// `path`, or "" when the line ends here: the host says what is missing in its own words ("export needs a
    /// file name: export song.mid").
    mutating func optionalPath(_ what: String, usage: String) throws -> String {
        position < words.count ? try path(what, usage: usage) : ""
    }

    /// A file name (or a name) to the end of the line: one word, quoted when it holds spaces; unquoted words
    /// are joined by one space, as the `:` line always took them.
    /// `upTo`: where the name ends (words after it are the caller's).
    mutating func path(_ what: String, usage: String, upTo last: Int? = nil) throws -> String {
        let first = try next(what, usage: usage)
        let stop = last ?? words.count
        var text = first.text
        while position < stop {
            let w = words[position]
            guard !first.quoted, !w.quoted else {
                if last == nil { try end(usage: usage) }
                break
            }
            text += " " + w.text
            position += 1
        }
        if text.isEmpty { throw fail("the \(what.lowercased() == "name" ? "name" : "file name") is empty", at: first) }
        return text
    }
}
