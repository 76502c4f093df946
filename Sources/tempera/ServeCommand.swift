import ArgumentParser
import Dispatch
import Foundation
import Synchronization
import TemperaCore
import TemperaNet
import TemperaTerminal

/// `tempera serve FILE`: hosts a document for participants (`tempera join`), without a screen.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Host a document that participants edit together (tempera join HOST:PORT).",
        discussion: """
            The host holds the one document and its history; each participant's commands run against their own \
            cursor and selection, and every change goes to everyone. It listens on 127.0.0.1 unless --listen \
            names another address, and then a --token that joining participants must give is required. \
            Every ~5 s of changes a recovery copy goes to the autosave folder (as the editor's does); \
            'save' from a participant writes FILE atomically, and so does stopping the host (Ctrl-C, SIGTERM) \
            when there are unsaved changes. What the host refuses (malformed or oversize lines, wrong tokens) \
            and who comes and goes is logged on standard error.
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

    func run() throws {
        var exists = stat()
        let document = stat(file, &exists) == 0 ? try CommandLineFailure.loadDocument(file) : Document.newDocument()
        let session = Session(document: document, path: file)
        var options = DocumentHost.Options()
        options.listen = listen
        options.port = port
        options.name = name
        options.token = token
        let host: DocumentHost
        do {
            host = try DocumentHost(session: session, options: options)
        } catch {
            throw CommandLineFailure.report("tempera: \(error)")
        }
        host.log = { line in FileHandle.standardError.write(Data(("tempera serve: " + line + "\n").utf8)) }
        let file = self.file
        ServeCommand.report("tempera serve: sharing \(file) on \(listen):\(host.port)")
        let autosave = AutosaveBox(Autosave(paths: ConfigPaths()))
        let timer = DispatchSource.makeTimerSource(queue: host.queue)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler {
            if let failure = autosave.withLock({ $0.tick(session, now: monotonicSeconds()) }) { host.log(failure) }
        }
        timer.resume()
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: host.queue)
            source.setEventHandler {
                var status: Int32 = 0
                if session.isModified {
                    do {
                        try session.save()
                        autosave.withLock { $0.remove(for: file) }
                        ServeCommand.report("tempera serve: saved \(file)")
                    } catch {
                        _ = autosave.withLock { $0.write(session) }
                        ServeCommand.report("tempera serve: \(error); a recovery copy was kept")
                        status = 1
                    }
                }
                Foundation.exit(status)
            }
            source.resume()
            ServeCommand.signalSources.append(source)
        }
        dispatchMain()
    }

    nonisolated(unsafe) static var signalSources: [DispatchSourceSignal] = []

    static func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// The autosave state, reached from the host's queue (and, once the host has stopped, the main thread).
final class AutosaveBox: Sendable {
    private let value: Mutex<Autosave>
    init(_ value: Autosave) { self.value = Mutex(value) }
    func withLock<T>(_ body: (inout Autosave) -> T) -> T { value.withLock { body(&$0) } }
}
