import ArgumentParser
import TemperaCore
import TemperaKits
#if canImport(Glibc)
import Glibc
#endif

/// `tempera script FILE SCRIPT [-o OUT]`: the command language without the editor.
struct ScriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "script",
        abstract: "Apply the commands of a script to a document and save it.",
        discussion: """
            SCRIPT holds one command a line, in the form the editor's ':' line takes ('#' starts a comment). \
            FILE may not exist yet: the script then starts from a new document (four tracks of 16 even markers). \
            The whole script is read first and then run in order; on the first error tempera prints \
            SCRIPT:LINE:COL: message and saves nothing. Otherwise the result is saved, atomically, to OUT or FILE; \
            a 'save PATH' line also writes the document as it stands at that line to PATH, once the whole script \
            has succeeded. TIME, FACTOR and numbers take exact expressions such as 3/8, \
            sqrt(2)/4 or 2*pi.

            Commands:
            """ + "\n" + CommandTable.helpText(indent: 2))

    @Argument(help: "The document to edit; created if it does not exist.")
    var file: String

    @Argument(help: "The script: one command a line ('-' reads standard input).")
    var script: String

    @Option(name: .shortAndLong, help: "Where to save the result (default: FILE).")
    var output: String?

    @Flag(name: .shortAndLong, help: "Print what commands report (such as how many tokens a fill dropped).")
    var verbose = false

    func run() throws {
        let text: String
        let script = self.script == "-" ? "<stdin>" : self.script
        do {
            text = String(decoding: try DocumentFile.readFile(self.script == "-" ? "/dev/stdin" : script),
                          as: UTF8.self)
        } catch let error as CommandError {
            throw CommandLineFailure.report("tempera: \(error.message)")
        }
        // Every line is read once before any runs, so a bad line anywhere changes nothing; the commands are then
        // read again as they run, so a long script is never held as commands (a million lines would take
        // hundreds of megabytes).
        do {
            try CommandParser.parseScript(text) { _, _ in }
        } catch let error as CommandError {
            throw CommandLineFailure.report(error, file: script)
        }

        let target = output ?? file
        var exists = stat()
        let document = stat(file, &exists) == 0 ? try CommandLineFailure.loadDocument(file) : Document.newDocument()
        let session = Session(document: document, path: target)
        session.kits = HydrogenKits()
        // `save PATH` keeps a copy of the document as it stands at that line; copies are written only once
        // every line has run, so a script that fails writes nothing at all.
        var copies: [(path: String, document: Document)] = []
        try CommandParser.parseScript(text) { number, command in
            if let save = command.as(Command.Save.self) {
                if let path = save.path, path != target { copies.append((path, session.document)) }
                return
            }
            // The transport, files and the screen need the editor or a player: skipped, said in one line.
            if command.spec.flags.contains(.host) {
                warn("\(script):\(number): skipped '\(command.text)': it needs the editor or a player")
                return
            }
            do {
                let message = try session.run(command)
                if verbose, let message { print("\(script):\(number): \(message)") }
            } catch let error as CommandError {
                var located = error
                located.line = number
                located.column = error.column ?? firstColumn(text, line: number)
                throw CommandLineFailure.report(located, file: script)
            }
        }
        // Every file is written and synced first, then all are put in place: one that cannot be written (a
        // missing folder, say) leaves every target as it was.
        var prepared: [DocumentFile.AtomicWrite] = []
        do {
            for (path, document) in copies + [(target, session.document)] {
                let file = try DocumentFile.AtomicWrite(path)
                prepared.append(file)
                try file.write(DocumentFile.encodeBytes(document))
            }
            for i in prepared.indices { try prepared[i].commit() }
        } catch let error as CommandError {
            for file in prepared { file.discard() }
            throw CommandLineFailure.report("tempera: \(error.message)")
        }
    }

    /// The column of the first word of line `number` of `text`: where an error without a column of its own points.
    func firstColumn(_ text: String, line number: Int) -> Int {
        var column = 1
        CommandParser.forEachLine(text) { n, line in
            guard n == number else { return }
            for c in line {
                if c != " " && c != "\t" { break }
                column += 1
            }
        }
        return column
    }
}
