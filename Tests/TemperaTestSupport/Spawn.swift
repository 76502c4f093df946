import Foundation

/// Runs a program to its end with posix_spawn and waitpid, its output going through files: a daemon the
/// program starts (the tmux server, PulseAudio) inherits its descriptors and keeps them open, which makes
/// Foundation's `Process` wait for ever on a pipe.
public enum Spawn {
    /// The program's exit status (128 + the signal when a signal ended it; -1 when it could not start),
    /// standard output and standard error. `environment` is added to this process's own.
    @discardableResult
    public static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:])
        -> (status: Int32, stdout: String, stderr: String) {
        let base = NSTemporaryDirectory() + "tempera-run-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, base + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, base + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, path, &actions, nil, argv, envp) == 0 else { return (-1, "", "cannot run \(path)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let o = FileManager.default.contents(atPath: base + ".out") ?? Data()
        let e = FileManager.default.contents(atPath: base + ".err") ?? Data()
        // WEXITSTATUS and WTERMSIG, spelled out: the macros are not imported.
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
}

extension Spawn {
    /// Runs a program to its end like `run`, and also says how long it took and its peak resident memory in
    /// bytes, as GNU time counts it. (The kernel's own count through `wait4` would start from this test
    /// process's size: a spawned child shares its memory until it runs the program.)
    public static func measured(_ path: String, _ arguments: [String], environment: [String: String] = [:])
        -> (status: Int32, stdout: String, stderr: String, seconds: Double, peakBytes: Int) {
        let peakFile = NSTemporaryDirectory() + "tempera-peak-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: peakFile) }
        let t0 = Date()
        let r = run("/usr/bin/time", ["-q", "-o", peakFile, "-f", "%M", path] + arguments, environment: environment)
        let seconds = Date().timeIntervalSince(t0)
        let text = (try? String(contentsOfFile: peakFile, encoding: .utf8)) ?? ""
        let kb = text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? -1
        return (r.status, r.stdout, r.stderr, seconds, kb * 1024)
    }
}
