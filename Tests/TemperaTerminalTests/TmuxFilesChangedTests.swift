import Foundation
import TemperaCore
import TemperaTestSupport
import XCTest

/// The editor and files that others change: another program writing the file the editor has open, a second
/// editor on the same file, a crash followed by a `touch`. Real editors in tmux, killed with SIGKILL.
final class TmuxFilesChangedTests: XCTestCase {
    nonisolated(unsafe) static var counter = 0
    var home = ""
    var servers: [String] = []

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: TestPaths.binary), "build the program first: swift build")
        TmuxFilesChangedTests.counter += 1
        home = NSTemporaryDirectory() + "tempera-files-\(getpid())-\(TmuxFilesChangedTests.counter)"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    override func tearDown() {
        for s in servers { TmuxSession(server: s).kill() }
        try? FileManager.default.removeItem(atPath: home)
    }

    /// An editor on `path` in a tmux server of its own; the pane says how it ended.
    func editor(_ path: String) -> TmuxSession {
        let name = "tempera-files-\(getpid())-\(TmuxFilesChangedTests.counter)-\(servers.count)"
        servers.append(name)
        let t = TmuxSession(server: name)
        let env = "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=\(home) XDG_CONFIG_HOME=\(home)/config "
            + "XDG_STATE_HOME=\(home)/state PULSE_SERVER=unix:\(home)/no-server"
        t.start("\(env) \(TestPaths.binary) '\(path)'; echo tempera-exited-$?; sleep 60", width: 120, height: 40)
        return t
    }

    @discardableResult
    func waitFor(_ t: TmuxSession, _ text: String, timeout: Double = 8, file: StaticString = #filePath, line: UInt = #line) -> String {
        let (met, s) = t.wait(timeout: timeout) { $0.contains(text) }
        if !met { XCTFail("timed out waiting for '\(text)'; the screen:\n\(s)", file: file, line: line) }
        return s
    }

    func command(_ t: TmuxSession, _ text: String) {
        t.keys([":"])
        t.type(text)
        t.keys(["Enter"])
    }

    /// The tempera process running in a tmux server's pane.
    func editorPID(_ t: TmuxSession) -> pid_t {
        let pane = t.tmux(["display-message", "-p", "-t", "t", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let child = Spawn.run("/usr/bin/pgrep", ["-P", pane, "-f", "tempera"]).stdout.split(separator: "\n").first
        let pid = child.flatMap { pid_t($0) } ?? 0
        XCTAssertGreaterThan(pid, 1, "no tempera process under the pane")
        return pid
    }

    func crash(_ t: TmuxSession) {
        let pid = editorPID(t)
        guard pid > 1 else { return }
        kill(pid, SIGKILL)
        let end = Date().addingTimeInterval(5)
        while kill(pid, 0) == 0, Date() < end { usleep(20_000) }
        XCTAssertNotEqual(kill(pid, 0), 0, "the editor is gone")
    }

    func markers(_ path: String) throws -> [Double] {
        try DocumentFile.load(path).tracks.flatMap { $0.markers.map(\.time) }.sorted()
    }

    func testSavingOverAFileAnotherProgramChangedAsksFirst() throws {
        let path = home + "/song.tempera"
        try DocumentFile.save(.newDocument(), to: path)
        let t = editor(path)
        waitFor(t, "timeline")
        command(t, "marker add 0.3 amp=0.5")
        waitFor(t, "song.tempera ●")
        // Another program changes the file under the editor.
        let script = home + "/other.txt"
        try "marker add 0.7\n".write(toFile: script, atomically: true, encoding: .utf8)
        XCTAssertEqual(Spawn.run(TestPaths.binary, ["script", path, script]).status, 0)
        let theirs = try markers(path)
        t.keys(["C-s"])
        waitFor(t, "song.tempera changed on disk since it was read: save over it? (y/n)")
        t.keys(["n"])
        waitFor(t, "not saved: \(path) was changed by another program")
        XCTAssertEqual(try markers(path), theirs, "the other program's change is still there")
        t.keys(["C-s"])
        waitFor(t, "save over it? (y/n)")
        t.keys(["y"])
        waitFor(t, "saved \(path)")
        XCTAssertEqual(try markers(path).filter { $0 == 0.3 }.count, 1)
        // Saved: the file is the editor's own again, and the next save does not ask.
        command(t, "marker add 0.4 amp=0.5")
        t.keys(["C-s"])
        let s = waitFor(t, "saved \(path)")
        XCTAssertFalse(s.contains("save over it"))
    }

    func testTwoEditorsOnOneFileAreToldAndAfterBothCrashEachOnesWorkIsRecovered() throws {
        let path = home + "/song.tempera"
        try DocumentFile.save(.newDocument(), to: path)
        let a = editor(path)
        waitFor(a, "timeline")
        let b = editor(path)
        waitFor(b, "song.tempera is open in another editor too")
        command(a, "marker add 0.3 amp=0.5")
        command(b, "marker add 0.6 amp=0.5")
        waitFor(a, "song.tempera ●")
        waitFor(b, "song.tempera ●")
        // Both autosave (5 s after the first change), then both are killed.
        let autosaves = home + "/state/tempera/autosave"
        let end = Date().addingTimeInterval(12)
        func copies() -> Int {
            ((try? FileManager.default.contentsOfDirectory(atPath: autosaves)) ?? []).filter { $0.hasSuffix(".tempera") }.count
        }
        while copies() < 2, Date() < end { usleep(100_000) }
        XCTAssertEqual(copies(), 2, "one recovery file each")
        crash(a)
        crash(b)

        // The next two editors on the file are offered one crash's work each.
        let c = editor(path)
        waitFor(c, "an autosave holds changes the file does not: recover it? (y/n)")
        c.keys(["y"])
        waitFor(c, "recovered")
        let d = editor(path)
        waitFor(d, "an autosave holds changes the file does not: recover it? (y/n)")
        d.keys(["y"])
        waitFor(d, "recovered")
        c.keys(["C-s"])
        waitFor(c, "saved \(path)")
        XCTAssertEqual(try markers(path).filter { $0 == 0.3 || $0 == 0.6 }, [0.3], "the first editor's work")
        // The second saves after the first: it is asked, since the file changed under it.
        d.keys(["C-s"])
        waitFor(d, "save over it? (y/n)")
        d.keys(["y"])
        waitFor(d, "saved \(path)")
        XCTAssertEqual(try markers(path).filter { $0 == 0.3 || $0 == 0.6 }, [0.6], "the second editor's work")
    }

    func testACrashFollowedByATouchStillOffersTheWork() throws {
        let path = home + "/song.tempera"
        try DocumentFile.save(.newDocument(), to: path)
        let a = editor(path)
        waitFor(a, "timeline")
        command(a, "marker add 0.3 amp=0.5")
        let end = Date().addingTimeInterval(12)
        let dir = home + "/state/tempera/autosave"
        while ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter({ $0.hasSuffix(".tempera") }).isEmpty,
              Date() < end { usleep(100_000) }
        crash(a)
        // The file becomes newer than its autosave.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: path)
        let b = editor(path)
        waitFor(b, "an autosave holds changes the file does not: recover it? (y/n)")
        b.keys(["y"])
        waitFor(b, "recovered")
        b.keys(["C-s"])
        waitFor(b, "saved \(path)")
        XCTAssertEqual(try markers(path).filter { $0 == 0.3 }.count, 1)
    }
}
