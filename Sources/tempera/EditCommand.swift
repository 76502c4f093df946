import ArgumentParser
import Foundation
import TemperaApp
import TemperaAudio
import TemperaCore
import TemperaKits
import TemperaNet
import TemperaOSC
import TemperaTerminal
import TemperaStudio

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

    @Flag(help: ArgumentHelp("Follow the Ableton Link session on the network: its tempo and beat phase (the meter is "
        + "the quantum); playing starts on its next bar.", discussion: ""))
    var link = false
    @Flag(help: "Share the document: others join with 'tempera join HOST:PORT'; this editor is the host.")
    var serve = false

    @Option(help: "With --serve: the TCP port.")
    var port: Int = 7400

    @Option(help: "With --serve: the address to listen on.")
    var listen: String = "127.0.0.1"

    @Option(help: "With --serve: a shared secret participants must give (required beyond loopback).")
    var token: String?

    @Option(help: "With --serve: a file whose first line is the shared secret (or set TEMPERA_TOKEN).")
    var tokenFile: String?

    @Option(help: "With --serve: the name the others see.")
    var name: String = ProcessInfo.processInfo.environment["USER"] ?? "host"

    @Option(help: ArgumentHelp("Where the sound goes: pulse (PulseAudio), jack (a JACK server: its rate and period) or "
        + "null (default: the settings file's 'audio', else pulse).", discussion: ""))
    var audio: AudioChoice?

    @OptionGroup var studio: StudioOptions

    @Option(help: "Where this player's sound sits, -1 (left only) to 1 (right only).")
    var pan: Double = 0

    @OptionGroup var osc: OSCOptions

    func run() throws {
        // A shared document's players keep their phase over the connection; the host does not follow Link too.
        if link && serve { fail("--link and --serve cannot be combined") }
        // Under a session manager (NSM) the manager says which file to open, once it has been told who is here.
        let nsmURL = ProcessInfo.processInfo.environment["NSM_URL"].flatMap { $0.isEmpty ? nil : $0 }
        if nsmURL != nil && file != nil {
            fail("no FILE under a session manager (NSM_URL is set): the manager says which file to open")
        }
        if nsmURL != nil && serve { fail("--serve cannot be used under a session manager (NSM_URL is set)") }
        let paths = ConfigPaths()
        // Everything that can be wrong with the command line or the files is said before curses starts.
        let session: Session
        let keyMap: KeyMap
        let chosenTheme: Theme
        var audioChoice = audio ?? .pulse
        do {
            keyMap = try KeyMap.load(paths: paths)
            let settings = try Settings.load(paths: paths)
            // The settings file's sample limits win over the environment's.
            var limits = SampleLoader.limits
            if let seconds = settings.maxSampleSeconds { limits.seconds = seconds }
            if let mb = settings.maxSampleMB { limits.bytes = Int(mb * 1_048_576) }
            SampleLoader.limits = limits
            audioChoice = audio ?? AudioChoice(rawValue: settings.audio) ?? .pulse
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
                session = Session(document: nsmURL != nil ? .newDocument() : .demo())
            }
        } catch let e as ConfigError where e.line == 0 {
            fail(e.message)
        } catch {
            fail(file.map { "\($0): \(error)" } ?? "\(error)")
        }
        guard isatty(0) == 1, isatty(1) == 1 else { fail("the editor needs a terminal (see 'tempera --help' for the other commands)") }
        guard pan.isFinite, (-1...1).contains(pan) else { fail("--pan is -1...1") }
        if serve { return try host(session, keyMap: keyMap, theme: chosenTheme, paths: paths) }

        session.kits = HydrogenKits()
        if let problem = studio.problem(audio: audioChoice) { fail(problem) }
        let engine = studio.engine(audioChoice)
        // Peers coming and going and the session's tempo changing wake the editor, so its status line shows them.
        let wakeup = Wakeup()
        if link {
            // The engine keeps the session for as long as it plays.
            guard let s = LinkSession(bpm: session.document.transport.bpm) else { fail("Ableton Link could not start") }
            s.onChange { wakeup.signal() }
            s.enable()
            engine.follow(link: s)
        }
        // Listening is set up before curses starts, so a port taken is said on a plain terminal.
        let control: OSCControl?
        do { control = try osc.start(wakeup: { wakeup.signal() }) } catch { fail("\(error)") }
        var nsm: NSMClient?
        if let nsmURL {
            do { nsm = try NSMClient(url: nsmURL, arrived: { wakeup.signal() }) } catch { fail("\(error)") }
        }
        engine.pan = pan
        engine.start()
        let dispatcher = Dispatcher(session: session, keyMap: keyMap, player: engine, offline: StudioFiles(), paths: paths)
        // The document's recovery file is this editor's (another editor on it is told), and a copy holding
        // changes the file does not is offered back.
        let sharedFile = dispatcher.files.claim()
        let recovered = dispatcher.files.recoverable()

        dispatcher.commandHistory = CommandHistory.load(paths: paths)
        if let file, !FileManager.default.fileExists(atPath: file) { dispatcher.say("new file \(file)") }
        else if let nsmURL { dispatcher.say("waiting for the session manager at \(nsmURL)") }
        else if file == nil { dispatcher.say("the demo: Space plays, ? shows every key") }
        if link { dispatcher.say("Ableton Link: playing follows the session's tempo and bar") }
        if let sharedFile { dispatcher.say(sharedFile) }
        if let recovered { dispatcher.offerRecovery(recovered) }

        let screen: CursesScreen
        do { screen = try CursesScreen(theme: chosenTheme) } catch { fail("\(error)") }
        if link || control != nil || nsm != nil { screen.wakeup = wakeup }
        let editor = Editor(screen: screen, dispatcher: dispatcher)
        editor.loadsInBackground = true
        if control != nil || nsm != nil {
            // OSC's lines and the session manager's requests run here, on the editor's thread, between keys: the
            // reading threads only queue them.
            editor.poll = {
                var changed = false
                if let control {
                    changed = control.service(now: monotonicSeconds(), run: { line, _ in dispatcher.runRemote(line) }) {
                        OSCState(engine.state, playing: dispatcher.session.document)
                    }
                }
                if let nsm {
                    for event in nsm.service(session: { dispatcher.session }) {
                        changed = true
                        switch event {
                        case .welcomed(let name): dispatcher.say("session manager \(name): waiting for its file")
                        case .refused(let why), .failed(let why): dispatcher.say(why, error: true)
                        case .opened, .saved: break
                        }
                    }
                }
                return changed
            }
            editor.pollInterval = Int(OSCControl.stateInterval * 1000 / 2)
        }
        nsm?.announce()
        editor.run()
        control?.close()
        nsm?.close()
        screen.close()
        dispatcher.commandHistory.save(paths: paths)
        let sig = CursesScreen.pendingSignal.load(ordering: .relaxed)
        // A session manager ends its clients with SIGTERM: under one that is the ordinary way to leave.
        if sig == SIGTERM && nsm != nil { return }
        if sig != 0 { throw ExitCode(128 + sig) }
    }

    /// `--serve`: hosts the document and opens the editor on it as its first participant (over loopback, so the
    /// host's own edits go the way everyone's do). On quitting, unsaved changes are saved, as `tempera serve` does
    /// when it stops.
    private func host(_ session: Session, keyMap: KeyMap, theme: Theme, paths: ConfigPaths) throws {
        guard session.path != nil else { fail("--serve needs a FILE to share") }
        LogWriter.ignoreWriteSignals()
        var options = DocumentHost.Options()
        options.listen = listen
        options.port = port
        options.name = name
        options.ownName = name
        let token: String?
        do { token = try TokenSource.resolve(token: self.token, file: tokenFile) } catch { throw error }
        options.token = token
        let files = FilesBox(DocumentFileSession(session: session, autosave: Autosave(paths: paths)))
        options.journal = files.value.journalPath
        let host: DocumentHost
        do { host = try DocumentHost(session: session, options: options) } catch { fail("\(error)") }
        let timer = DispatchSource.makeTimerSource(queue: host.queue)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { _ = files.value.tick(now: monotonicSeconds()) }
        timer.resume()
        let local = listen == "0.0.0.0" ? "127.0.0.1" : listen == "::" ? "::1" : listen
        let joined: JoinedEditor
        do {
            joined = try JoinedEditor(participant: Participant(host: local, port: host.port, name: name, token: token))
        } catch {
            fail("\(error)")
        }
        joined.hosting = "\(listen):\(host.port)"
        joined.startProblem = host.journalDamage
        try joined.run(player: AudioEngine.sharedPlayer(pan: pan), offline: StudioFiles(), keyMap: keyMap, theme: theme,
                       paths: paths)
        timer.cancel()
        let problem: String? = host.sync { _ in
            do {
                try files.value.saveBeforeLeaving()
                host.removeJournalNow()
                return nil
            } catch {
                return "\(error)"
            }
        }
        host.stop()
        if let problem { fail(problem) }
        let sig = CursesScreen.pendingSignal.load(ordering: .relaxed)
        if sig != 0 { throw ExitCode(128 + sig) }
    }

    private func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((CommandLineFailure.oneLine("tempera: " + message) + "\n").utf8))
        Foundation.exit(1)
    }
}
