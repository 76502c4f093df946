import ArgumentParser
import Foundation
import Synchronization
import TemperaApp
import TemperaAudio
import TemperaCore
import TemperaKits
import TemperaNet
import TemperaOSC
import TemperaStudio

/// Set by SIGINT so `tempera play` can fade out and exit.
let playInterrupted = Atomic<Bool>(false)

func playSignalHandler(_ signal: Int32) {
    playInterrupted.store(true, ordering: .relaxed)
}

/// `tempera play FILE`: plays through PulseAudio without the editor, then exits.
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a document through PulseAudio (or JACK), then exit.")

    @Argument(help: "The tempera document.")
    var file: String

    @Option(help: "Passes of the loop region to play (with --song: of the whole song).")
    var loops: Int = 1

    @Flag(help: "Play the document's song (its sections) instead of the loop.")
    var song = false

    @Flag(help: "Loop until interrupted (Ctrl-C).")
    var forever = false

    @Flag(help: "Add the metronome (a click on every beat, the accent on each bar's first beat) and the document's count-in.")
    var click = false

    @Flag(help: ArgumentHelp("Play pads from standard input: '<seconds> <slot> <velocity>' a line, seconds from the start "
        + "of playback as heard. Prints a JSON line per pad played.", discussion: ""))
    var pads = false

    @Flag(help: ArgumentHelp("Follow the Ableton Link session on the network: its tempo and beat phase (the meter is "
        + "the quantum); playing starts on its next bar.", discussion: ""))
    var link = false

    @Option(help: "Where the sound goes: pulse (PulseAudio), jack (a JACK server: its rate and period) or null.")
    var audio: AudioChoice = .pulse

    @OptionGroup var studio: StudioOptions

    @Option(help: ArgumentHelp("With --pads: record the pads into the document and write it to this file.",
                               valueName: "OUT.json"))
    var record: String?

    @OptionGroup var osc: OSCOptions

    func run() throws {
        guard loops >= 1 else { throw fail("--loops must be 1 or more (got \(loops))") }
        if record != nil && !pads { throw fail("--record needs --pads (the pads to record come from standard input)") }
        if let record, record.isEmpty { throw fail("--record needs a file name") }
        if osc.port != nil && pads { throw fail("--osc and --pads cannot be combined (pads come from standard input)") }
        var document = try CommandLineFailure.loadDocument(file, song: song)
        // The document's click setting is for the editor; on the command line the flag decides.
        document.transport.click = click
        let base = (file as NSString).deletingLastPathComponent

        if let problem = studio.problem(audio: audio) { throw fail(problem) }
        let engine = studio.engine(audio)
        // The file as loaded is revision -1: a recording's takes (revision 0 on) are published over it.
        let controller = PlaybackController(player: engine)
        let loaded = controller.publish(PlaybackController.Version(generation: 0, revision: -1),
                                        baseDirectory: base.isEmpty ? "." : base, document: { document })
        for w in loaded?.warnings ?? [] { warn(w) }
        var session: LinkSession?
        if link {
            guard let s = LinkSession(bpm: document.transport.bpm) else { throw fail("Ableton Link could not start") }
            s.enable()
            engine.follow(link: s)
            session = s
        }
        // Over OSC the document is edited, saved and played as the editor's is: its session's host is the player.
        var remote: (control: OSCControl, host: PlayerSession)?
        do {
            if let control = try osc.start(wakeup: {}) {
                let host = PlayerSession(session: Session(document: try CommandLineFailure.loadDocument(file), path: file),
                                         controller: controller, baseDirectory: base.isEmpty ? "." : base)
                host.session.kits = HydrogenKits()
                host.loops = forever ? 0 : loops
                host.played = { [click, song] in
                    var d = $0
                    d.transport.click = click
                    d.song.on = song
                    return d
                }
                remote = (control, host)
            }
        } catch let error as OSCError {
            throw fail(error.description)
        }
        engine.start()
        // Wait for the server: it answers at once, or it is missing (a connection that hangs counts as missing).
        while true {
            switch engine.status {
            case .running: break
            case .unavailable(let why): throw fail(why)
            case .off, .connecting:
                usleep(10_000)
                continue
            }
            break
        }
        signal(SIGINT, playSignalHandler)
        signal(SIGTERM, playSignalHandler)
        var peers = 0
        // Says on standard error when peers come and go (the engine takes the session's tempo as it is read).
        func followPeers() {
            guard let session else { return }
            engine.followLinkTempo()
            let n = session.peers
            if n != peers {
                peers = n
                let bpm = engine.linkTempo.map { String(format: "%.2f", $0) } ?? "?"
                warn("link: \(n) peer\(n == 1 ? "" : "s") at \(bpm) BPM")
            }
        }
        // Following a MIDI clock or the JACK transport, it starts and stops playing; this runs until interrupted.
        let following = studio.clock == .in || studio.transport == .follow
        if !following { engine.play(loops: forever ? Int(Int32.max) : loops) }
        if pads {
            // The recording goes into the file as it was (its own song and click settings), not as played here.
            let original = try CommandLineFailure.loadDocument(file)
            var player = PadPlayer(controller: controller, document: original, song: song, click: click, record: record,
                                   printLine: { CommandLineFailure.write($0, to: 1) }, warn: warn)
            player.tick = followPeers
            player.interrupted = { playInterrupted.load(ordering: .relaxed) }
            let feed = PadFeed()
            feed.start(warn: warn)
            do {
                if try player.run(feed: feed) == .interrupted { Foundation.exit(130) }
            } catch let failure as PadPlayer.Failure {
                throw fail(failure.message)
            }
            return
        }
        // With OSC it plays on until interrupted or told `q`: a client may play it again.
        while following || remote.map({ !$0.host.quitRequested }) ?? !engine.isFinished {
            if let remote {
                let host = remote.host
                remote.control.service(now: monotonicSeconds(), run: { line, _ in host.runRemote(line) }) {
                    OSCState(engine.state, playing: host.played(host.session.document))
                }
            }
            if playInterrupted.load(ordering: .relaxed) {
                engine.pause()
                usleep(60_000)
                engine.stop()
                Self.reportTrouble(engine)
                Foundation.exit(130)
            }
            // A server gone, or frozen (the engine sees its stream take no audio for 1.5 s).
            if case .unavailable(let why) = engine.status {
                engine.stop()
                let failure = fail(why)
                Self.reportTrouble(engine)
                throw failure
            }
            followPeers()
            usleep(session == nil ? (remote == nil ? 20_000 : 5_000) : 2_000)
        }
        // Let the last block reach the speakers.
        if case .running(let ms) = engine.status { usleep(useconds_t(min(ms, 500) * 1000) + 20_000) }
        remote?.control.close()
        engine.stop()
        Self.reportTrouble(engine)
    }

    /// After the run's own line (if any): how often the output ran dry, and how many blocks the master bus
    /// silenced because the mix was not a number. Nothing when all went well.
    static func reportTrouble(_ engine: AudioEngine) {
        let underruns = engine.underruns, silenced = engine.silencedBlocks
        // Always "underruns", as the transport shows it, so one pattern finds the line.
        if underruns > 0 {
            let buffer = engine.outputBuffer.map { String(format: "; the output's buffer is now %.0f ms", $0 * 1000) } ?? ""
            warn("\(underruns) underruns" + buffer)
        }
        if silenced > 0 { warn("\(silenced) block\(silenced == 1 ? "" : "s") silenced (the mix was not a number)") }
    }
}
