import ArgumentParser
import Dispatch
import Foundation
import TemperaCore
import TemperaApp
import TemperaNet
import TemperaOSC
import TemperaStudio
import TemperaTerminal

/// `tempera serve FILE`: hosts a document for participants (`tempera join`), without a screen.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Host a document that participants edit together (tempera join HOST:PORT).",
        discussion: """
            The host holds the one document and its history; each participant's commands run against their own \
            cursor and selection, and every change goes to everyone. It listens on 127.0.0.1 unless --listen \
            names another address, and then a token that joining participants must give is required \
            (--token-file FILE or TEMPERA_TOKEN keep it out of the process list). \
            Every change is written to a journal beside the autosave before it is answered; started again after \
            a crash, the host replays the journal over FILE and says so. Every ~5 s of changes a recovery copy \
            goes to the autosave folder (as the editor's does); 'save' from a participant writes FILE \
            atomically, and so does stopping the host (Ctrl-C, SIGTERM) when there are unsaved changes. What \
            the host refuses (malformed or oversize lines, wrong tokens) and who comes and goes is logged on \
            standard error. With --stdio it speaks the protocol on standard input and output (what \
            'tempera join USER@HOST:PATH' runs over ssh): the document's host on a Unix socket in the user's \
            runtime folder is started if it is not running, and joined.
            """)

    @Argument(help: "The document to share; created on save if it does not exist (a new document).")
    var file: String

    @Option(help: "The TCP port (0: any free port, printed at start).")
    var port: Int = 7400

    @Option(help: "The address to listen on.")
    var listen: String = "127.0.0.1"

    @Option(help: "The host's name, shown to participants.")
    var name: String = "host"

    @Option(help: "A shared secret participants must give (required when --listen is not a loopback address).")
    var token: String?

    @Option(help: "A file whose first line is the shared secret (or set TEMPERA_TOKEN).")
    var tokenFile: String?

    @Option(help: ArgumentHelp("Host on this Unix socket instead of TCP (what --stdio starts).", visibility: .hidden))
    var socket: String?

    @Flag(help: "Speak the protocol on standard input and output, joining (or starting) the document's local host.")
    var stdio = false

    @Option(help: "The most connections at once.")
    var maxConnections: Int = 64

    @OptionGroup var osc: OSCOptions

    func run() throws {
        if stdio { return try StdioRelay.run(file: file) }
        LogWriter.ignoreWriteSignals()
        if osc.port != nil && socket != nil { throw CommandLineFailure.report("tempera: --osc needs a TCP host, not --socket") }
        // OSC's port is taken before anything is shared, so a port in use is said at once.
        let oscServer: OSCServer?
        do {
            oscServer = try osc.port.map { try OSCServer(listen: osc.listen, port: $0, arrived: {}) }
        } catch {
            throw CommandLineFailure.report("tempera: \(error)")
        }
        var exists = stat()
        let document = stat(file, &exists) == 0 ? try CommandLineFailure.loadDocument(file) : Document.newDocument()
        let session = Session(document: document, path: file)
        let files = FilesBox(DocumentFileSession(session: session, autosave: Autosave(paths: ConfigPaths())))
        var options = DocumentHost.Options()
        options.listen = listen
        options.port = port
        options.name = name
        options.token = try TokenSource.resolve(token: token, file: tokenFile)
        options.maxConnections = max(1, maxConnections)
        options.journal = files.value.journalPath
        options.unixSocket = socket
        let host: DocumentHost
        do {
            host = try DocumentHost(session: session, options: options)
        } catch {
            throw CommandLineFailure.report("tempera: \(error)")
        }
        // A log that cannot be written (a file past its size limit, a pipe whose reader left) loses lines, not
        // the host.
        host.log = { line in LogWriter.write("tempera serve: " + line) }
        let file = self.file
        // The host's session is the one the file session keeps (the host shares it, it does not copy it).
        files.value.replace(host.sync { $0 })
        if let damage = host.journalDamage { ServeCommand.report("tempera serve: \(damage)") }
        if let aside = host.journalSetAside, host.journalDamage == nil {
            ServeCommand.report("tempera serve: a journal that does not follow \(file) (changed since) was set aside: \(aside)")
        }
        if host.recovered > 0 {
            ServeCommand.report("tempera serve: recovered \(host.recovered) change\(host.recovered == 1 ? "" : "s") from the journal "
                + "after a crash (not yet saved in \(file): 'save' or stopping the host saves them)")
        }
        ServeCommand.report("tempera serve: sharing \(file) on " + (socket ?? "\(listen):\(host.port)"))
        if let oscServer {
            // OSC is a participant of this host ("osc"), on a thread of its own.
            let address = listen == "0.0.0.0" ? "127.0.0.1" : listen == "::" ? "::1" : listen
            let participant = Participant(host: address, port: host.port, name: "osc", token: options.token)
            let listening = "\(osc.listen):\(oscServer.port)"
            let thread = Thread {
                do {
                    let shared = try SharedOSC(participant: participant, control: OSCControl(server: oscServer))
                    ServeCommand.report("tempera serve: OSC on \(listening)")
                    while true {
                        shared.step(now: monotonicSeconds())
                        usleep(5_000)
                    }
                } catch {
                    ServeCommand.report("tempera serve: OSC could not join: \(error)")
                    Foundation.exit(1)
                }
            }
            thread.name = "tempera-osc-participant"
            thread.start()
        }
        let timer = DispatchSource.makeTimerSource(queue: host.queue)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler {
            if let failure = files.value.tick(now: monotonicSeconds()) { host.log(failure) }
        }
        timer.resume()
        let socket = self.socket
        let stop: @Sendable () -> Never = {
            var status: Int32 = 0
            do {
                if try files.value.saveBeforeLeaving() != nil { ServeCommand.report("tempera serve: saved \(file)") }
            } catch {
                ServeCommand.report("tempera serve: \(error)")
                status = 1
            }
            if status == 0 { host.removeJournalNow() }
            if let socket { unlink(socket) }
            Foundation.exit(status)
        }
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: host.queue)
            source.setEventHandler { stop() }
            source.resume()
            ServeCommand.signalSources.append(source)
        }
        if socket != nil {
            // A host started for ssh participants ends a minute after the last one left, saving first.
            let idle = DispatchSource.makeTimerSource(queue: host.queue)
            let since = IdleBox()
            idle.schedule(deadline: .now() + 5, repeating: 5)
            idle.setEventHandler {
                if host.participantsPresent > 0 {
                    since.value = nil
                } else if let t = since.value {
                    if monotonicSeconds() - t > ServeCommand.idleSeconds { stop() }
                } else {
                    since.value = monotonicSeconds()
                }
            }
            idle.resume()
            ServeCommand.idleTimer = idle
        }
        dispatchMain()
    }

    nonisolated(unsafe) static var signalSources: [DispatchSourceSignal] = []
    nonisolated(unsafe) static var idleTimer: DispatchSourceTimer?
    static let idleSeconds = 60.0

    static func report(_ line: String) {
        LogWriter.write(line)
    }
}

/// When the host last had nobody (host queue only).
final class IdleBox: @unchecked Sendable {
    var value: Double?
}

/// The host's document file (its session, its recovery files), reached from the host's queue only.
final class FilesBox: @unchecked Sendable {
    let value: DocumentFileSession
    init(_ value: DocumentFileSession) { self.value = value }
}
