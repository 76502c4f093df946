import ArgumentParser
import Dispatch
import Foundation
import Synchronization
import TemperaApp
import TemperaAudio
import TemperaCore
import TemperaNet
import TemperaTerminal
import TemperaStudio

/// `tempera join HOST:PORT --script FILE`: a participant that sends a script's commands to a shared document.
struct JoinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Open the editor on a document shared by tempera serve (or send it a script's commands).",
        discussion: """
            Without --script this is the editor on the host's document: every change to the document goes to the \
            host and comes back to everyone; the cursor and selection are this participant's own; the others' \
            cursors show as guides with their names, the timeline's title says who is there, and their changes \
            flash for a moment.

            With --script each line of SCRIPT is sent to the host as it is (the command language; '#' comments and blank lines \
            are skipped), without waiting for the answers; the host runs them against this participant's own \
            cursor and selection. Each refusal is printed as SCRIPT:LINE: message. With -o the document as the \
            host has it once every command is answered is saved there. The exit status is 1 when a command was \
            refused.
            """)

    @Argument(help: "The host: HOST:PORT (PORT defaults to 7400), or [USER@]HOST:PATH to reach the document PATH on HOST over ssh.")
    var address: String

    @Option(help: "The name the others see.")
    var name: String = ProcessInfo.processInfo.environment["USER"] ?? "guest"

    @Option(help: "The host's shared secret, if it has one.")
    var token: String?

    @Option(help: "A file whose first line is the host's shared secret (or set TEMPERA_TOKEN).")
    var tokenFile: String?

    @Option(help: "Commands to send, one a line ('-' reads standard input), instead of opening the editor.")
    var script: String?

    @Option(help: "Theme: dark, light, high-contrast, or a file's name in ~/.config/tempera/themes.")
    var theme: String?

    @Option(name: .shortAndLong, help: "Save the shared document here at the end.")
    var output: String?

    @Option(help: "Where this player's sound sits, -1 (left only) to 1 (right only), to tell players apart.")
    var pan: Double = 0

    /// The participant the address names: TCP to HOST:PORT, or ssh to [USER@]HOST for the document PATH.
    func makeParticipant() throws -> (Participant, SshLink?) {
        let token = try TokenSource.resolve(token: self.token, file: tokenFile)
        if let (target, path) = SshLink.split(address) {
            let link = SshLink(target: target, path: path)
            let p = Participant(host: target, port: 0, name: name, token: token)
            p.connector = { try link.connect() }
            return (p, link)
        }
        do {
            let (host, port) = try Participant.split(address)
            return (Participant(host: host, port: port, name: name, token: token), nil)
        } catch {
            throw CommandLineFailure.report("tempera: \(error)")
        }
    }

    func run() throws {
        let (participant, link) = try makeParticipant()
        guard let script else { return try runEditor(participant) }
        let text: String
        do {
            text = String(decoding: try DocumentFile.readFile(script == "-" ? "/dev/stdin" : script), as: UTF8.self)
        } catch let error as CommandError {
            throw CommandLineFailure.report("tempera: \(error.message)")
        }
        let done = DispatchSemaphore(value: 0)
        let notices = NoticeBox()
        participant.onEvent = { event in
            switch event {
            case .notice(let n): notices.add(n)
            case .disconnected: done.signal()
            default: break
            }
        }
        do {
            try participant.connect()
        } catch {
            throw CommandLineFailure.report("tempera: \(error)")
        }
        var lines: [Int: Int] = [:]
        for (k, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            lines[participant.send(line)] = k + 1
        }
        // Wait until every command is answered and the copy holds every change made up to then.
        var target = -1
        while true {
            let (open, seq, connected) = participant.sync { ($0.unanswered.count, $0.seq, $0.connected) }
            if !connected && notices.contains("token") { break }
            if participant.sync({ $0.endedBeforeWelcome }) {
                let why = link?.lastError() ?? notices.lastSaidByHost ?? "the host closed the connection"
                throw CommandLineFailure.report("tempera: " + why)
            }
            if open == 0 {
                if target < 0 { target = participant.sync { $0.lastReplySeq } }
                if seq >= target { break }
            }
            if done.wait(timeout: .now() + .milliseconds(5)) == .success, !participant.sync({ $0.connected }) {
                throw CommandLineFailure.report("tempera: the host closed the connection"
                    + (notices.last.map { ": \($0)" } ?? ""))
            }
        }
        if let n = notices.last, !participant.sync({ $0.connected }) { throw CommandLineFailure.report("tempera: \(n)") }
        var refused = 0
        let answers = participant.sync { $0.answers }
        for id in lines.keys.sorted() {
            if let error = answers[id]?.error {
                refused += 1
                ServeCommand.report("\(script):\(lines[id]!): \(error)")
            }
        }
        if let output {
            do {
                try DocumentFile.save(participant.sync { $0.document }, to: output)
            } catch let error as CommandError {
                throw CommandLineFailure.report("tempera: \(error.message)")
            }
        }
        participant.cut()
        if refused > 0 { throw ExitCode.failure }
    }
}

extension JoinCommand {
    /// The key map and theme the editor uses, or the one line saying what is wrong with them.
    static func editorSettings(theme: String?, paths: ConfigPaths) throws -> (KeyMap, Theme) {
        do {
            let keyMap = try KeyMap.load(paths: paths)
            let settings = try Settings.load(paths: paths)
            let name = theme ?? settings.theme
            guard let t = try Theme.named(name, paths: paths) else { throw CommandLineFailure.report("tempera: no theme '\(name)'") }
            return (keyMap, t)
        } catch let e as ExitCode {
            throw e
        } catch {
            throw CommandLineFailure.report("tempera: \(error)")
        }
    }

    func runEditor(_ participant: Participant) throws {
        let paths = ConfigPaths()
        let (keyMap, chosen) = try JoinCommand.editorSettings(theme: theme, paths: paths)
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw CommandLineFailure.report("tempera: the editor needs a terminal (or give --script)")
        }
        guard pan.isFinite, (-1...1).contains(pan) else { throw CommandLineFailure.report("tempera: --pan is -1...1") }
        let joined: JoinedEditor
        do {
            joined = try JoinedEditor(participant: participant)
        } catch {
            throw CommandLineFailure.report("tempera: \(error)")
        }
        try joined.run(player: AudioEngine.sharedPlayer(pan: pan), offline: StudioFiles(), keyMap: keyMap, theme: chosen,
                       paths: paths)
    }
}

/// Notices from the host, gathered on the participant's queue.
final class NoticeBox: Sendable {
    private let items = Mutex<[String]>([])
    func add(_ s: String) { items.withLock { $0.append(s) } }
    var last: String? { items.withLock { $0.last } }
    /// The last notice the host sent (not the participant's own word that the connection ended).
    var lastSaidByHost: String? {
        items.withLock { list in list.last { !$0.hasPrefix("the connection ended before") } ?? list.last }
    }
    func contains(_ s: String) -> Bool { items.withLock { $0.contains { $0.contains(s) } } }
}

extension AudioEngine {
    /// The engine of a player of a shared document: a larger buffer (playback is aimed at moments anyway), the
    /// output's timing asked for rather than interpolated, its sound at `pan`; started.
    static func sharedPlayer(pan: Double) -> AudioEngine {
        let engine = AudioEngine()
        engine.outputLatency = AudioEngine.aimedLatency
        engine.aimed = true
        engine.pan = pan
        engine.start()
        return engine
    }
}
