import Foundation
import TemperaCore
import TemperaNet
import TemperaStudio
import TemperaTerminal
#if canImport(Glibc)
import Glibc
#endif

/// `tempera serve FILE --stdio`: what an ssh participant runs on the document's machine. The document has one
/// host there, on a Unix socket in the user's runtime folder (`$XDG_RUNTIME_DIR/tempera`, else
/// `/tmp/tempera-UID`, mode 0700); the first participant starts it (`serve FILE --socket PATH`, in its own
/// session, its log beside the socket), later ones join it. Standard input and output are then relayed to the
/// socket, byte for byte, until either side ends.
enum StdioRelay {
    static func folder() throws -> String {
        let base = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 + "/tempera" }
            ?? "/tmp/tempera-\(getuid())"
        if mkdir(base, 0o700) != 0, errno != EEXIST {
            throw CommandLineFailure.report("tempera: cannot make \(base): \(String(cString: strerror(errno)))")
        }
        var s = stat()
        guard lstat(base, &s) == 0, s.st_uid == getuid(), s.st_mode & S_IFMT == S_IFDIR, s.st_mode & 0o077 == 0 else {
            throw CommandLineFailure.report("tempera: \(base) must be a folder of this user's only (mode 0700)")
        }
        return base
    }

    /// The socket of a document's host: its name and a hash of its full path.
    static func socketPath(for file: String, in folder: String) -> String {
        let absolute = Autosave.absolute(file)
        let name = String((absolute as NSString).lastPathComponent.prefix(40))
        return folder + "/" + name + "-" + Autosave.hash(absolute) + ".sock"
    }

    static func run(file: String) throws {
        let dir = try folder()
        let path = socketPath(for: file, in: dir)
        let fd: Int32
        if let connected = try? LocalSocket.connect(path: path) {
            fd = connected
        } else {
            fd = try start(file: file, socket: path)
        }
        relay(fd)
    }

    /// Starts the document's host (unless another participant did meanwhile) and connects to it.
    static func start(file: String, socket path: String) throws -> Int32 {
        let lockFD = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockFD >= 0 else { throw CommandLineFailure.report("tempera: cannot lock \(path).lock") }
        defer { close(lockFD) }
        flock(lockFD, LOCK_EX)
        if let fd = try? LocalSocket.connect(path: path) { return fd }
        unlink(path)
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, String(path.dropLast(5)) + ".log", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        posix_spawnattr_setflags(&attr, Int16(0x80))  // POSIX_SPAWN_SETSID: a session of its own
        let words: [String] = [exe, "serve", Autosave.absolute(file), "--socket", path]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, exe, &actions, &attr, argv, environ) == 0 else {
            throw CommandLineFailure.report("tempera: cannot start the document's host")
        }
        let end = Date().addingTimeInterval(10)
        while Date() < end {
            if let fd = try? LocalSocket.connect(path: path) { return fd }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let log = (try? String(contentsOfFile: String(path.dropLast(5)) + ".log", encoding: .utf8)) ?? ""
                let last = log.split(separator: "\n").last.map(String.init) ?? "the document's host ended at once"
                throw CommandLineFailure.report(last.hasPrefix("tempera") ? last : "tempera: \(last)")
            }
            usleep(20_000)
        }
        throw CommandLineFailure.report("tempera: the document's host did not start in 10 s")
    }

    /// Copies standard input to the socket and the socket to standard output until either ends.
    static func relay(_ fd: Int32) -> Never {
        signal(SIGPIPE, SIG_IGN)
        let upstream = Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                if !writeAll(fd, buffer, n) { break }
            }
            shutdown(fd, Int32(SHUT_WR))
        }
        upstream.start()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            if !writeAll(1, buffer, n) { break }
        }
        exit(0)
    }

    static func writeAll(_ fd: Int32, _ buffer: [UInt8], _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + done, count - done) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }
}
