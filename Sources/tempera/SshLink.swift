import Foundation
import TemperaTerminal
#if canImport(Glibc)
import Glibc
#endif

/// A participant's way to a document on another machine: the system's `ssh` (the user's keys, agent and
/// config; its authentication and encryption) runs `tempera serve --stdio -- PATH` there, and the participant
/// speaks the protocol over ssh's standard input and output, joined into one socket pair.
///
/// `TEMPERA_SSH` replaces the `ssh` command (words split on spaces: `ssh -F ./config -p 2222`), and
/// `TEMPERA_REMOTE` the program run on the other side (`tempera`). What ssh says on standard error goes to a
/// file, not the screen; its last line is what a refusal reports.
final class SshLink: @unchecked Sendable {
    let target: String
    let path: String
    private let errors: String

    init(target: String, path: String) {
        self.target = target
        self.path = path
        errors = NSTemporaryDirectory() + "tempera-ssh-\(getpid())-\(UUID().uuidString.prefix(6)).err"
    }

    deinit { unlink(errors) }

    /// `[USER@]HOST:PATH` as (target, path); nil for `HOST:PORT`, `HOST` or `[V6]:PORT` (TCP).
    static func split(_ address: String) -> (String, String)? {
        guard !address.hasPrefix("["), let colon = address.firstIndex(of: ":") else { return nil }
        let host = String(address[..<colon]), path = String(address[address.index(after: colon)...])
        guard !host.isEmpty, !path.isEmpty, Int(path) == nil else { return nil }
        return (host, path)
    }

    /// Quotes a word for the remote shell.
    static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Starts ssh and returns this end of the socket pair its standard input and output are.
    func connect() throws -> Int32 {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw SshError("cannot make a socket pair: \(String(cString: strerror(errno)))")
        }
        let env = ProcessInfo.processInfo.environment
        let ssh = (env["TEMPERA_SSH"].flatMap { $0.isEmpty ? nil : $0 } ?? "ssh").split(separator: " ").map(String.init)
        let remote = env["TEMPERA_REMOTE"].flatMap { $0.isEmpty ? nil : $0 } ?? "tempera"
        // `--` ends the options, for ssh before the host and for the remote tempera before the path: a host or a
        // path starting with `-` is a name, never an option.
        let words = ssh + ["-T", "-o", "ServerAliveInterval=5", "--", target,
                           "\(remote) serve --stdio -- \(SshLink.quoted(path))"]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, words[0], &actions, nil, argv, environ)
        close(pair[1])
        guard rc == 0 else {
            close(pair[0])
            throw SshError("cannot run \(words[0]): \(String(cString: strerror(rc)))")
        }
        // Reaped when it ends, so no zombie stays behind.
        let child = pid
        Thread.detachNewThread {
            let pid = child
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        return pair[0]
    }

    /// The last line ssh (or the other side) wrote on standard error, for a one-line refusal.
    func lastError() -> String? {
        guard let text = try? String(contentsOfFile: errors, encoding: .utf8) else { return nil }
        guard let last = text.split(separator: "\n").last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            return nil
        }
        let line = last.trimmingCharacters(in: .whitespacesAndNewlines)
        return line.hasPrefix("tempera: ") ? String(line.dropFirst(9)) : "ssh \(target): \(line)"
    }
}

struct SshError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
