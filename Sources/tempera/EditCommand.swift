import ArgumentParser
import Foundation
import TemperaAudio
import TemperaCore
import TemperaKits
import TemperaTerminal

/// `tempera [FILE]`: the editor. With no file it opens the demo, which plays at once with Space.
struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Open the editor (the default): a file, or the demo document when none is given.",
        discussion: "Keys: Space plays, ? lists every binding, : opens the command line, q quits. "
            + "Settings, themes and key overrides live in ~/.config/tempera (config, themes/, keys)."
    )

    @Argument(help: "A tempera document to open (created on save if it does not exist).")
    var file: String?

    @Option(help: "Theme: dark, light, high-contrast, or a file's name in ~/.config/tempera/themes.")
    var theme: String?

    func run() throws {
        let paths = ConfigPaths()
        // Everything that can be wrong with the command line or the files is said before curses starts.
        let session: Session
        let keyMap: KeyMap
        let chosenTheme: Theme
        do {
            keyMap = try KeyMap.load(paths: paths)
            let settings = try Settings.load(paths: paths)
            let name = theme ?? settings.theme
            guard let t = try Theme.named(name, paths: paths) else {
                throw ConfigError(file: "--theme", line: 0, "no theme '\(name)'")
            }
            chosenTheme = t
            if let file {
                if FileManager.default.fileExists(atPath: file) {
                    session = Session(document: try DocumentFile.load(file), path: file)
                } else {
                    session = Session(document: .newDocument(), path: file)
                }
            } else {
                session = Session(document: .demo())
            }
        } catch let e as ConfigError where e.line == 0 {
            fail(e.message)
        } catch {
            fail(file.map { "\($0): \(error)" } ?? "\(error)")
        }
        guard isatty(0) == 1, isatty(1) == 1 else { fail("the editor needs a terminal (see 'tempera --help' for the other commands)") }

        session.kits = HydrogenKits()
        let autosave = Autosave(paths: paths)
        let recovered = autosave.recoverable(for: session.path, loaded: session.document)
        let engine = AudioEngine()
        engine.start()
        let dispatcher = Dispatcher(session: session, keyMap: keyMap, engine: engine, paths: paths)
        dispatcher.commandHistory = CommandHistory.load(paths: paths)
        if let file, !FileManager.default.fileExists(atPath: file) { dispatcher.say("new file \(file)") }
        else if file == nil { dispatcher.say("the demo: Space plays, ? shows every key") }
        if let recovered { dispatcher.offerRecovery(recovered) }

        let screen: CursesScreen
        do { screen = try CursesScreen(theme: chosenTheme) } catch { fail("\(error)") }
        let editor = Editor(screen: screen, dispatcher: dispatcher, autosave: autosave)
        editor.loadsInBackground = true
        editor.run()
        screen.close()
        CommandHistory.save(dispatcher.commandHistory, paths: paths)
        let sig = CursesScreen.pendingSignal.load(ordering: .relaxed)
        if sig != 0 { throw ExitCode(128 + sig) }
    }

    private func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((CommandLineFailure.oneLine("tempera: " + message) + "\n").utf8))
        Foundation.exit(1)
    }
}
