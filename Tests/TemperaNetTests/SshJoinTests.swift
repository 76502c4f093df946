import Foundation
import TemperaCore
@testable import TemperaNet
import TemperaTestSupport
import XCTest

/// `tempera join USER@HOST:PATH` through a real, private `sshd` on 127.0.0.1: a port, host key, user key and
/// configuration of the test's own. The "remote" side is this machine: `tempera serve PATH --stdio` runs there
/// under sshd and starts (then joins) the document's host on a Unix socket.
final class SshJoinTests: XCTestCase {
    var dir = ""
    var sshd: pid_t = 0
    var port = 0

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd"), "openssh-server is not installed")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/ssh"), "openssh-client is not installed")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: TestPaths.binary), "build the program first: swift build")
        dir = TestPaths.temporaryDirectory("ssh")
        // Short paths: a Unix socket's path has at most 107 bytes.
        for key in ["host_key", "id", "wrong"] {
            XCTAssertEqual(Spawn.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", "\(dir)/\(key)"]).status, 0)
        }
        try FileManager.default.copyItem(atPath: dir + "/id.pub", toPath: dir + "/authorized_keys")
        port = freeTCPPort()
        let user = String(cString: getpwuid(getuid())!.pointee.pw_name)
        try """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(dir)/host_key
            PidFile \(dir)/sshd.pid
            AuthorizedKeysFile \(dir)/authorized_keys
            StrictModes no
            PubkeyAuthentication yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            UsePAM no
            PermitRootLogin prohibit-password
            AllowUsers \(user)
            SetEnv XDG_RUNTIME_DIR=\(dir) XDG_STATE_HOME=\(dir)/state XDG_CONFIG_HOME=\(dir)/config
            """.write(toFile: dir + "/sshd_config", atomically: true, encoding: .utf8)
        let hostKey = try String(contentsOfFile: dir + "/host_key.pub", encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
        try "[127.0.0.1]:\(port) \(hostKey)\n".write(toFile: dir + "/known_hosts", atomically: true, encoding: .utf8)
        for (name, key) in [("ssh_config", "id"), ("wrong_config", "wrong")] {
            try """
                Host remote
                  HostName 127.0.0.1
                  Port \(port)
                  User \(user)
                  IdentityFile \(dir)/\(key)
                  IdentitiesOnly yes
                  IdentityAgent none
                  UserKnownHostsFile \(dir)/known_hosts
                  StrictHostKeyChecking yes
                  BatchMode yes
                """.write(toFile: "\(dir)/\(name)", atomically: true, encoding: .utf8)
        }
        // sshd wants its privilege separation folder.
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        var pid: pid_t = 0
        let words: [String] = ["/usr/sbin/sshd", "-D", "-e", "-f", dir + "/sshd_config"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, dir + "/sshd.log", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, dir + "/sshd.log", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        XCTAssertEqual(posix_spawn(&pid, "/usr/sbin/sshd", &actions, nil, argv, environ), 0)
        sshd = pid
        // Listening once a TCP connect succeeds.
        let end = Date().addingTimeInterval(10)
        while Date() < end {
            if let fd = try? Sockets.connect(host: "127.0.0.1", port: port, timeout: 1) {
                close(fd)
                return
            }
            usleep(20_000)
        }
        XCTFail("sshd did not start: " + ((try? String(contentsOfFile: dir + "/sshd.log", encoding: .utf8)) ?? ""))
    }

    override func tearDown() {
        // The document's host started through ssh, then sshd.
        for pid in hostPids() { kill(pid, SIGTERM) }
        if sshd > 0 {
            kill(sshd, SIGTERM)
            waitpid(sshd, nil, 0)
        }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// The `serve --socket` processes started for this test's documents.
    func hostPids() -> [pid_t] {
        Spawn.run("/usr/bin/pgrep", ["-f", "serve \(dir)/shared.tempera --socket"]).stdout.split(separator: "\n").compactMap { pid_t($0) }
    }

    func join(_ config: String, _ script: String, output: String? = nil) -> (status: Int32, stdout: String, stderr: String) {
        SshJoinTests.join(dir: dir, config, script, output: output)
    }

    static func join(dir: String, _ config: String, _ script: String, output: String? = nil, name: String = "p")
        -> (status: Int32, stdout: String, stderr: String) {
        let path = dir + "/s-\(UUID().uuidString.prefix(6)).txt"
        try? script.write(toFile: path, atomically: true, encoding: .utf8)
        return Spawn.run(TestPaths.binary, ["join", "remote:\(dir)/shared.tempera", "--name", name, "--script", path] + (output.map { ["-o", $0] } ?? []),
                         environment: ["TEMPERA_SSH": "/usr/bin/ssh -F \(dir)/\(config)", "TEMPERA_REMOTE": TestPaths.binary])
    }

    func testTwoParticipantsOverSshEditOneDocumentAndConverge() throws {
        try DocumentFile.save(Document(tracks: [Track(name: "one")]), to: dir + "/shared.tempera")
        let dir = self.dir
        let scripts = (0..<2).map { k in (0..<40).map { "marker add \(Double(k) + Double($0) / 100)" }.joined(separator: "\n") }
        let group = DispatchGroup()
        let results = LineList()
        for (k, script) in scripts.enumerated() {
            group.enter()
            Thread.detachNewThread {
                let r = SshJoinTests.join(dir: dir, "ssh_config", script, name: "p\(k)")
                results.add("\(k) \(r.status) \(r.stderr)")
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(results.items.sorted(), ["0 0 ", "1 0 "])
        // Both participants fetch the document again at once: byte-identical copies holding all 80 markers.
        let copies = [dir + "/copy0.tempera", dir + "/copy1.tempera"]
        for (k, copy) in copies.enumerated() {
            group.enter()
            Thread.detachNewThread {
                _ = SshJoinTests.join(dir: dir, "ssh_config", "", output: copy, name: "q\(k)")
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        let bytes = try copies.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        XCTAssertEqual(bytes[0], bytes[1])
        XCTAssertEqual(try DocumentFile.load(copies[0]).tracks[0].markers.count, 80)
        // One host served them all, on a Unix socket in the runtime folder.
        XCTAssertEqual(hostPids().count, 1)
        let socket = try FileManager.default.contentsOfDirectory(atPath: dir + "/tempera").filter { $0.hasSuffix(".sock") }
        XCTAssertEqual(socket.count, 1)
        // Stopped, the host saves the file: the same document.
        for pid in hostPids() { kill(pid, SIGTERM) }
        let end = Date().addingTimeInterval(10)
        while !hostPids().isEmpty, Date() < end { usleep(20_000) }
        XCTAssertEqual(DocumentFile.encode(try DocumentFile.load(dir + "/shared.tempera")), DocumentFile.encode(try DocumentFile.load(copies[0])))
    }

    func testAWrongKeyIsRefusedInOneLine() throws {
        let r = join("wrong_config", "marker add 0.5")
        XCTAssertEqual(r.status, 1)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("tempera: ssh remote: "), r.stderr)
        XCTAssertTrue(r.stderr.contains("Permission denied (publickey)"), r.stderr)
        XCTAssertTrue(hostPids().isEmpty, "nothing started on the other side")
    }
}
