import Foundation
import Synchronization
import TemperaCore
@testable import TemperaNet
import TemperaTestSupport
import XCTest

/// `tempera serve` as a program: started on a free port, its log in a file, stopped with SIGTERM.
final class ServeProcess: Sendable {
    let pid: pid_t
    let log: String
    let port: Int

    init(_ arguments: [String], in dir: String, port fixed: Int = 0, environment: [String: String] = [:],
         binary: String = TestPaths.binary) throws {
        log = dir + "/serve.log"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, dir + "/serve.out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var env = ProcessInfo.processInfo.environment
        env["XDG_STATE_HOME"] = dir + "/state"
        env["XDG_CONFIG_HOME"] = dir + "/config"
        env.merge(environment) { $1 }
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let argv = ([binary, "serve"] + arguments + ["--port", "\(fixed)"]).map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, binary, &actions, nil, argv, envp) == 0 else {
            throw NetError("cannot start tempera serve")
        }
        self.pid = pid
        var found: Int?
        // A large document takes a while to load before the host listens (a host that ended is not waited for).
        for _ in 0..<60_000 {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let r = text.range(of: #":(\d+)\n"#, options: .regularExpression) {
                found = Int(text[r].dropFirst().dropLast())
                break
            }
            if kill(pid, 0) != 0 { break }
            usleep(10_000)
        }
        guard let found else {
            kill(pid, SIGKILL)
            throw NetError("tempera serve did not start: " + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? ""))
        }
        port = found
    }

    /// The wait status, once the process was waited for. Its pid is then free, and on a busy machine soon another
    /// process's (another test group's host, say): it is never signalled again.
    private let waited = Mutex<Int32?>(nil)

    var isRunning: Bool { reap(blocking: false) == nil }

    /// SIGKILL, and waits for the end.
    func crash() {
        signal(SIGKILL)
        _ = reap(blocking: true)
    }

    /// Sends `sig` while the process was not waited for.
    private func signal(_ sig: Int32) {
        waited.withLock { if $0 == nil { kill(pid, sig) } }
    }

    /// Waits for the process once (`blocking`, or only if it ended): its wait status, nil while it runs.
    private func reap(blocking: Bool) -> Int32? {
        waited.withLock { done -> Int32? in
            if let done { return done }
            var status: Int32 = 0, r: pid_t
            repeat { r = waitpid(pid, &status, blocking ? 0 : WNOHANG) } while r < 0 && errno == EINTR
            guard r == pid else { return nil }
            done = status
            return status
        }
    }

    /// The peak resident memory so far (VmHWM), and now (VmRSS), in bytes.
    var memory: (peak: Int, now: Int) {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return -1 }
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1) * 1024
        }
        return (field("VmHWM"), field("VmRSS"))
    }

    /// Starts counting the peak resident memory again from now (the kernel's `clear_refs` 5).
    func resetPeak() {
        try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)
    }

    /// SIGTERM, then the exit status.
    func stop() -> Int32 {
        signal(SIGTERM)
        let status = reap(blocking: true) ?? 0
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
}

final class ServeTests: XCTestCase {

    /// Two `tempera join --script` runs at once against `tempera serve`: the host's saved file and both
    /// participants' saved copies are the same bytes.
    func testTwoJoinedScriptsAndTheHostSaveTheSameBytes() throws {
        let dir = TestPaths.temporaryDirectory("serve")
        let file = dir + "/shared.json"
        let server = try ServeProcess([file, "--name", "studio"], in: dir)
        var scripts: [String] = []
        for (k, seed) in [UInt64(5), 9].enumerated() {
            var random = RandomCommands(seed: seed)
            let path = dir + "/script\(k).txt"
            try (0..<300).map { _ in random.next() }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            scripts.append(path)
        }
        let group = DispatchGroup()
        let collected = Mutex<[(Int32, String)]>([])
        for (k, script) in scripts.enumerated() {
            group.enter()
            Thread.detachNewThread {
                let r = Spawn.run(TestPaths.binary, ["join", "127.0.0.1:\(server.port)", "--name", "p\(k)", "--script", script,
                                                     "-o", dir + "/copy\(k).json"])
                collected.withLock { $0.append((r.status, r.stderr)) }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success)
        let results = collected.withLock { $0 }
        // Random commands are refused now and then (nothing selected...): each refusal is a SCRIPT:LINE line.
        for (status, stderr) in results {
            XCTAssertEqual(status, 1)
            for line in stderr.split(separator: "\n") { XCTAssertTrue(line.contains(".txt:"), String(line)) }
        }
        // Both copies were saved after their own last answer; the later one holds every change.
        XCTAssertEqual(server.stop(), 0)
        let hostBytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let copies = try (0..<2).map { try Data(contentsOf: URL(fileURLWithPath: dir + "/copy\($0).json")) }
        XCTAssertTrue(copies.contains(hostBytes), "neither copy is the host's saved file")
        XCTAssertTrue(server.logText.contains("p0 joined"))
    }

    func testAListenerBeyondLoopbackNeedsATokenAndChecksIt() throws {
        var options = DocumentHost.Options()
        options.port = 0
        options.listen = "0.0.0.0"
        XCTAssertThrowsError(try DocumentHost(session: Session(document: Document.newDocument()), options: options)) {
            XCTAssertEqual("\($0)", "listening on 0.0.0.0 needs --token: anyone who can reach it could edit")
        }
        options.token = "s3cret"
        let host = try DocumentHost(session: Session(document: Document.newDocument()), options: options)
        defer { host.stop() }
        let intruder = Participant(host: "127.0.0.1", port: host.port, name: "x", token: "guess")
        let notices = NoticeList()
        intruder.onEvent = { if case .notice(let n) = $0 { notices.add(n) } }
        try intruder.connect()
        XCTAssertTrue(waitUntil(5) { notices.items.contains("wrong or missing token") })
        XCTAssertFalse(intruder.sync { $0.connected })
        let friend = Participant(host: "127.0.0.1", port: host.port, name: "y", token: "s3cret")
        try friend.connect()
        XCTAssertTrue(waitUntil(5) { friend.sync { $0.connected } })
    }

    /// Random bytes, a 10 MB line, a half-written message and a flood of 10,000 commands: the host stays
    /// up, answers the others, and every change it accepted is in the file it saves.
    func testGarbageOversizeLinesHalfMessagesAndFloodsNeitherStopTheHostNorLoseChanges() throws {
        let dir = TestPaths.temporaryDirectory("serve-faults")
        let file = dir + "/shared.json"
        try DocumentFile.save(Document(tracks: [Track(name: "one")]), to: file)
        let server = try ServeProcess([file], in: dir)

        let calm = Participant(host: "127.0.0.1", port: server.port, name: "calm")
        try calm.connect()
        XCTAssertTrue(waitUntil(5) { calm.sync { $0.connected } })

        func raw(_ bytes: [UInt8], close: Bool = true) throws -> Int32 {
            let fd = try Sockets.connect(host: "127.0.0.1", port: server.port)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            var off = 0
            while off < bytes.count {
                let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + off, bytes.count - off, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { break }
                off += n
            }
            if close { Glibc.close(fd) }
            return fd
        }
        // Random bytes, newlines among them.
        var random = SeededRandom(seed: 99)
        _ = try raw((0..<200_000).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        // A 10 MB line.
        _ = try raw(Array(repeating: UInt8(ascii: "a"), count: 10 << 20) + [10])
        // A half-written message, the connection left open.
        let half = try raw(Array("{\"hello\":2,\"name\":\"half\"}\n{\"id\":1,\"run\":\"marker add".utf8), close: false)
        // A flood of 10,000 commands on one connection, sent back to back.
        let flood = Participant(host: "127.0.0.1", port: server.port, name: "flood")
        try flood.connect()
        XCTAssertTrue(waitUntil(5) { flood.sync { $0.connected } })
        let floodThread = Thread {
            for k in 0..<10_000 { flood.send("marker add \(k)/1000") }
        }
        floodThread.start()

        // Meanwhile the calm participant is answered. Its answers come after the flood's changes it must
        // also receive and apply, so the bound is the flood's own.
        for k in 0..<20 { calm.send("marker add \(20 + k)/7") }
        XCTAssertTrue(waitUntil(180) { calm.sync { $0.unanswered.isEmpty } }, "the host stopped answering")
        XCTAssertEqual(calm.sync { $0.answers.values.filter { $0.error != nil }.count }, 0)
        // Every command sent, then every one answered (the sender thread may not have sent them all yet).
        XCTAssertTrue(waitUntil(180) { flood.sync { $0.unanswered.isEmpty && $0.answers.count == 10_000 } },
                      "the flood was not all answered")
        let floodAnswers = flood.sync { $0.answers }
        XCTAssertEqual(floodAnswers.count, 10_000)
        XCTAssertEqual(floodAnswers.values.filter { $0.error != nil }.count, 0)
        XCTAssertTrue(server.isRunning)
        Glibc.close(half)

        XCTAssertEqual(server.stop(), 0)
        let saved = try DocumentFile.load(file)
        XCTAssertEqual(saved.tracks[0].markers.count, 10_000 + 20)
        let log = server.logText
        XCTAssertTrue(log.contains("refused a line of more than"), log)
        XCTAssertTrue(log.contains("refused a line that is not UTF-8 text") || log.contains("malformed"), log)
    }
}

final class NoticeList: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ s: String) { list.withLock { $0.append(s) } }
    var items: [String] { list.withLock { $0 } }
}
