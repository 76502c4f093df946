import ArgumentParser
import Dispatch
import Foundation
import TemperaCore
import TemperaNet

/// `tempera join HOST:PORT --script FILE`: a participant that sends a script's commands to a shared document.
struct JoinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join a document shared by tempera serve and send it a script's commands.",
        discussion: """
            Each line of SCRIPT is sent to the host as it is (the command language; '#' comments and blank lines \
            are skipped), without waiting for the answers; the host runs them against this participant's own \
            cursor and selection. Each refusal is printed as SCRIPT:LINE: message. With -o the document as the \
            host has it once every command is answered is saved there. The exit status is 1 when a command was \
            refused.
            """)

    @Argument(help: "The host: HOST:PORT (PORT defaults to 7400).")
    var address: String

    @Option(help: "The name the others see.")
    var name: String = ProcessInfo.processInfo.environment["USER"] ?? "guest"

    @Option(help: "The host's shared secret, if it has one.")
    var token: String?

    @Option(help: "Commands to send, one a line ('-' reads standard input).")
    var script: String

    @Option(name: .shortAndLong, help: "Save the shared document here at the end.")
    var output: String?

    func run() throws {
        let (host, port): (String, Int)
        do {
            (host, port) = try Participant.split(address)
        } catch {
            throw CommandLineFailure.report("tempera: \(error)")
        }
        let text: String
        do {
            text = String(decoding: try DocumentFile.readFile(script == "-" ? "/dev/stdin" : script), as: UTF8.self)
        } catch let error as CommandError {
            throw CommandLineFailure.report("tempera: \(error.message)")
        }
        let participant = Participant(host: host, port: port, name: name, token: token)
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

/// Notices from the host, gathered on the participant's queue.
final class NoticeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
    var last: String? { lock.lock(); defer { lock.unlock() }; return items.last }
    func contains(_ s: String) -> Bool { lock.lock(); defer { lock.unlock() }; return items.contains { $0.contains(s) } }
}
