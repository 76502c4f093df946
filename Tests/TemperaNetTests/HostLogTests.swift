import Foundation
import TemperaCore
@testable import TemperaNet
import TemperaTestSupport
import XCTest

/// The host's log on standard error that cannot be written — a pipe whose reader left, a file past the
/// file-size limit — loses lines, never the host; and the command line's own edges: `events` cut by a write
/// error, a token file with CRLF line ends, ssh's arguments.
final class HostLogTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = TestPaths.temporaryDirectory("host-log") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Starts `tempera serve FILE --port 0` with standard error on `stderrFD` (closed here after the spawn),
    /// through `sh -c` when `shell` is given (to set a limit first). Returns its pid.
    func spawnServe(stderr: (inout posix_spawn_file_actions_t) -> Void, shell: String? = nil,
                    extra: [String] = []) throws -> pid_t {
        let file = dir + "/doc.tempera"
        if !FileManager.default.fileExists(atPath: file) {
            try DocumentFile.encode(Document(tracks: [Track(name: "one")])).write(toFile: file, atomically: true, encoding: .utf8)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        stderr(&actions)
        var env = ProcessInfo.processInfo.environment
        env["XDG_STATE_HOME"] = dir + "/state"
        env["XDG_CONFIG_HOME"] = dir + "/config"
        let serve = [TestPaths.binary, "serve", file, "--port", "0"] + extra
        let words = shell.map { ["/bin/sh", "-c", $0 + "; exec \"$@\"", "sh"] + serve } ?? serve
        let argv = words.map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, words[0], &actions, nil, argv, envp) == 0 else { throw NetError("cannot start tempera serve") }
        return pid
    }

    /// Sends `count` refused lines, each making a log line, on new connections (each logs its first refusals).
    func provokeLogLines(port: Int, count: Int) throws {
        for k in 0..<count {
            let c = try RawClient(port: port)
            c.send(Wire.hello(name: "p\(k)", token: nil, session: nil, replied: 0) + "\n")
            _ = c.line(containing: "\"reply\"")
            for _ in 0..<5 { c.send("{\"what\":\"\(String(repeating: "x", count: 100))\"}\n") }
            _ = c.line(containing: "\"error\"")
        }
    }

    func welcomes(port: Int) throws -> Bool {
        let c = try RawClient(port: port)
        c.send(Wire.hello(name: "last", token: nil, session: nil, replied: 0) + "\n")
        return c.line(containing: "\"welcome\"") != nil
    }

    func stop(_ pid: pid_t) -> Int32 {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Standard error a pipe whose reader has gone: the next log line fails with EPIPE and the host goes on
    /// (before, SIGPIPE ended it).
    func testTheHostOutlivesAPipeWhoseReaderLeft() throws {
        var pipeFDs: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&pipeFDs), 0)
        let pid = try spawnServe(stderr: { posix_spawn_file_actions_adddup2(&$0, pipeFDs[1], 2) })
        close(pipeFDs[1])
        // The first line says where it listens.
        var text = ""
        var byte: UInt8 = 0
        while !text.hasSuffix("\n"), read(pipeFDs[0], &byte, 1) == 1 { text.append(Character(Unicode.Scalar(byte))) }
        let port = try XCTUnwrap(Int(text.split(separator: ":").last?.dropLast() ?? ""), text)
        close(pipeFDs[0])
        try provokeLogLines(port: port, count: 3)
        XCTAssertEqual(kill(pid, 0), 0, "still running")
        XCTAssertTrue(try welcomes(port: port), "and serving")
        XCTAssertEqual(stop(pid), 0)
    }

    /// Standard error a file past the file-size limit (`ulimit -f`): log lines are lost, the host goes on
    /// (before, the failed write trapped).
    func testTheHostOutlivesALogPastTheFileSizeLimit() throws {
        let log = dir + "/serve.log"
        let pid = try spawnServe(stderr: { posix_spawn_file_actions_addopen(&$0, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600) },
                                 shell: "ulimit -f 2")
        var port: Int?
        for _ in 0..<1000 where port == nil {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let r = text.range(of: #":(\d+)\n"#, options: .regularExpression) { port = Int(text[r].dropFirst().dropLast()) }
            usleep(10_000)
        }
        let p = try XCTUnwrap(port)
        try provokeLogLines(port: p, count: 10)
        let size = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
        XCTAssertLessThanOrEqual(size, 1024, "the limit held the log")
        XCTAssertEqual(kill(pid, 0), 0, "still running")
        XCTAssertTrue(try welcomes(port: p), "and serving")
        XCTAssertEqual(stop(pid), 0)
    }

    /// `tempera events` writing to a full device stops with one line and a non-zero status (it exited 0,
    /// its list silently cut).
    func testEventsCutByAWriteErrorExitsNonZero() throws {
        let file = dir + "/many.tempera"
        let markers = MarkerList((0..<20_000).map { Marker(id: 0, time: Double($0) / 10_000, amp: 0.5, content: .clip(1)) })
        try DocumentFile.encode(Document(tracks: [Track(name: "one", markers: markers)]))
            .write(toFile: file, atomically: true, encoding: .utf8)
        let run = Spawn.run("/bin/sh", ["-c", "exec \"$0\" events \"$1\" > /dev/full", TestPaths.binary, file])
        XCTAssertNotEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "tempera: cannot write the events: No space left on device\n")
    }

    /// A token file with CRLF line ends: the host's token is its first line (it was the whole file).
    func testACRLFTokenFileGivesItsFirstLine() throws {
        let tokenFile = dir + "/token"
        try "s3cret\r\nnot part of it\r\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let server = try ServeProcess([dir + "/t.tempera", "--token-file", tokenFile], in: dir)
        defer { _ = server.stop() }
        let c = try RawClient(port: server.port)
        c.send(Wire.hello(name: "ana", token: "s3cret", session: nil, replied: 0) + "\n")
        XCTAssertNotNil(c.line(containing: "\"welcome\""))
    }

    /// `join USER@HOST:PATH` ends ssh's options before the host, and the remote tempera's before the path: a host
    /// or a path starting with `-` is never taken as an option. (The ssh here records its arguments and fails.)
    func testSshIsGivenTheHostAndThePathAfterDoubleDashes() throws {
        let record = dir + "/args"
        let fake = dir + "/ssh"
        try "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \(record)\nexit 255\n"
            .write(toFile: fake, atomically: true, encoding: .utf8)
        chmod(fake, 0o755)
        let run = Spawn.run(TestPaths.binary, ["join", "--script", "/dev/null", "--", "-oProxyCommand=x@studio:-rf.tempera"],
                            environment: ["TEMPERA_SSH": fake])
        XCTAssertNotEqual(run.status, 0)
        let args = ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        let dash = try XCTUnwrap(args.firstIndex(of: "--"), args.joined(separator: " "))
        XCTAssertEqual(args[dash + 1], "-oProxyCommand=x@studio", "the host follows --")
        XCTAssertTrue(args[dash + 2].hasSuffix("serve --stdio -- '-rf.tempera'"), args[dash + 2])
    }
}
