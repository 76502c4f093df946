import Foundation
import TemperaCore
import TemperaTestSupport
import XCTest

/// The editor under a session manager: a real `tempera` in tmux with `NSM_URL` set, and a small NSM server
/// (`scripts/nsm-test-server`, python3-liblo) that follows the published protocol as nsmd does: it answers the
/// announce, sends open and save, reads is_dirty and is_clean, and ends the client with SIGTERM.
final class NSMTests: XCTestCase {
    var dir = ""
    var manager: Process?
    var tmux: TmuxSession?

    override func tearDown() {
        tmux?.kill()
        if let manager, manager.isRunning { manager.terminate() }
        if !dir.isEmpty { try? FileManager.default.removeItem(atPath: dir) }
    }

    /// The manager's log, one line a message from the client.
    func log() -> [String] {
        ((try? String(contentsOfFile: dir + "/log", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits (at most `seconds`) for a log line starting with `prefix` after the first `after` lines; the line.
    func waitForLine(_ prefix: String, after: Int = 0, seconds: Double = 10) -> String? {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if let line = log().dropFirst(after).first(where: { $0.hasPrefix(prefix) }) { return line }
            usleep(20_000)
        }
        return nil
    }

    func command(_ line: String) throws {
        let handle = FileHandle(forWritingAtPath: dir + "/commands")!
        handle.seekToEndOfFile()
        handle.write(Data((line + "\n").utf8))
        try handle.close()
    }

    /// The editor in tmux under the manager (`url`), with a home of its own; its exit status goes to `status`.
    func launchEditor(_ url: String, name: String) -> TmuxSession {
        let t = TmuxSession(server: "tempera-nsm-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        let home = dir + "/home"
        t.start("env NSM_URL=\(url) HOME=\(home) XDG_CONFIG_HOME=\(home)/.config XDG_STATE_HOME=\(home)/.state "
                + "LANG=C.UTF-8 TERM=xterm-256color \(TestPaths.binary) --audio null; echo $? > \(dir)/status.\(name)",
                width: 100, height: 30)
        tmux = t
        return t
    }

    func editorTempo(_ path: String) -> Double? { (try? DocumentFile.load(path))?.transport.tempo }

    func testTheEditorOpensSavesSaysDirtyAndCleanAndQuitsOnSIGTERMUnderASessionManager() throws {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        dir = TestPaths.temporaryDirectory("nsm")
        try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir + "/commands", contents: Data())
        // A regular file where a folder should be: the client cannot create its document under it.
        _ = FileManager.default.createFile(atPath: dir + "/blocker", contents: Data("x".utf8))
        let m = Process()
        m.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        m.arguments = [TestPaths.packageRoot + "/scripts/nsm-test-server", dir]
        try m.run()
        manager = m
        var url = ""
        for _ in 0..<250 where url.isEmpty {
            url = ((try? String(contentsOfFile: dir + "/url", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if url.isEmpty { usleep(20_000) }
        }
        XCTAssertFalse(url.isEmpty, "the test server wrote its URL")

        // 1. Announce, then open a path with no file yet: the document is created there at once.
        let t = launchEditor(url, name: "1")
        let announce = try XCTUnwrap(waitForLine("announce"), "the editor announced itself: \(t.screen())")
        let words = announce.split(separator: " ").map(String.init)
        XCTAssertEqual(Array(words.prefix(6)), ["announce", "tempera", ":dirty:", "tempera", "1", "2"])
        XCTAssertTrue(t.wait(timeout: 10) { $0.contains("session manager nsm-test-server") }.met, t.screen())
        let base = dir + "/session/tempera.nTEST"
        let file = base + ".tempera"
        try command("open \(base)")
        XCTAssertEqual(waitForLine("reply /nsm/client/open"), "reply /nsm/client/open opened \(file)")
        XCTAssertEqual(editorTempo(file), 1, "a new document saved at once")
        XCTAssertNotNil(waitForLine("is_clean"))

        // 2. An edit: dirty; a save from the manager: the file has it, and clean.
        var seen = log().count
        t.type(":tempo 1.5")
        t.keys(["Enter"])
        XCTAssertNotNil(waitForLine("is_dirty", after: seen), "\(log()) \(t.screen())")
        seen = log().count
        try command("save")
        XCTAssertEqual(waitForLine("reply /nsm/client/save", after: seen), "reply /nsm/client/save saved \(file)")
        XCTAssertNotNil(waitForLine("is_clean", after: seen), "\(log())")
        XCTAssertEqual(editorTempo(file), 1.5)

        // 3. Another edit, then SIGTERM: the editor ends at once, status 0, the edit not saved (the manager asks
        //    for saves itself).
        seen = log().count
        t.type(":tempo 2")
        t.keys(["Enter"])
        XCTAssertNotNil(waitForLine("is_dirty", after: seen))
        try command("term")
        let exited = try XCTUnwrap(waitForLine("exited", after: seen, seconds: 15), "\(log())")
        XCTAssertLessThan(Double(exited.split(separator: " ")[1]) ?? 99, 2, exited)
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: dir + "/status.1") { usleep(20_000) }
        XCTAssertEqual(try? String(contentsOfFile: dir + "/status.1", encoding: .utf8), "0\n")
        XCTAssertEqual(editorTempo(file), 1.5)
        t.kill()

        // 4. A second editor: a path that cannot be created is an error with NSM's code for it; then the existing
        //    file opens as it was saved (a save rewrites it unchanged) and quits on SIGTERM.
        let t2 = launchEditor(url, name: "2")
        seen = log().count
        XCTAssertNotNil(waitForLine("announce", after: seen), t2.screen())
        try command("open \(dir)/blocker/tempera.nTEST")
        let refused = try XCTUnwrap(waitForLine("error /nsm/client/open", after: seen), "\(log())")
        XCTAssertTrue(refused.hasPrefix("error /nsm/client/open -10 "), refused)
        try command("open \(base)")
        XCTAssertEqual(waitForLine("reply /nsm/client/open", after: seen), "reply /nsm/client/open opened \(file)")
        try command("save")
        XCTAssertEqual(waitForLine("reply /nsm/client/save", after: seen), "reply /nsm/client/save saved \(file)")
        XCTAssertEqual(editorTempo(file), 1.5, "the saved document was opened, not a new one")
        try command("term")
        XCTAssertNotNil(waitForLine("exited", after: seen, seconds: 15), "\(log())")
        try command("stop")
        print("NSM: " + log().joined(separator: " | "))
    }
}
