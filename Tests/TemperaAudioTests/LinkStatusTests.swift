import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The editor's status line with `--link`, in a real terminal: a tmux server started inside a network namespace
/// with nothing but loopback (every program it runs is in that namespace too, so Link never reaches the
/// machine's network), driven from here through its socket, which is a file.
final class LinkStatusTests: XCTestCase {
    var dir = ""
    var tmux = TmuxSession(server: "unused")

    override func tearDown() {
        tmux.kill()
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// The command that runs tempera with a home of its own (`name`) and no audio server.
    func tempera(_ arguments: String, home name: String) throws -> String {
        let home = dir + "/" + name
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        return "cd '\(dir)' && env PULSE_SERVER=unix:\(dir)/no-server HOME=\(home) XDG_CONFIG_HOME=\(home)/.config "
            + "XDG_STATE_HOME=\(home)/.state LANG=C.UTF-8 TERM=xterm-256color '\(TestPaths.binary)' \(arguments)"
    }

    /// The last line of tmux session `name`'s screen (named exactly: a bare name may match a window's name).
    func status(_ name: String) -> String {
        tmux.tmux(["capture-pane", "-p", "-t", "=\(name):"]).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().last.map(String.init) ?? ""
    }

    /// "link … bpm" as a status line shows it, or "".
    static func sessionText(_ line: String) -> String {
        guard let from = line.range(of: "link "), let to = line.range(of: " bpm", range: from.upperBound..<line.endIndex)
        else { return "" }
        return String(line[from.lowerBound..<to.upperBound])
    }

    /// Seconds until session `name`'s status line contains `text` (nil: not within `timeout`).
    func until(_ name: String, shows text: String, timeout: Double = 10) -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < timeout {
            if status(name).contains(text) { return Date().timeIntervalSince(start) }
            usleep(20_000)
        }
        return nil
    }

    func assertShows(_ name: String, _ text: String, within limit: Double, _ what: String, figures: inout [String],
                     file: StaticString = #filePath, line: UInt = #line) {
        guard let t = until(name, shows: text) else {
            XCTFail("\(what): '\(text)' never showed; the line: '\(status(name))'", file: file, line: line)
            return
        }
        figures.append(String(format: "%@ %.0f ms", what, t * 1000))
        XCTAssertLessThan(t, limit, "\(what) took \(t) s", file: file, line: line)
    }

    func testTheStatusLineShowsTheSessionsPeersAndTempoAndTheEditorsTempoGoesToTheSession() throws {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        let probe = Spawn.run("/usr/bin/unshare", ["--net", "sh", "-c", LinkTests.loopbackOnly])
        guard probe.status == 0 else { throw XCTSkip("no loopback-only network namespace here: \(probe.stderr)") }
        dir = TestPaths.temporaryDirectory("link-status")
        tmux = TmuxSession(server: "tempera-link-status-\(getpid())")
        // Two documents: 120 BPM (beat 0.5 s at x1) and 90 BPM (x0.75), which the second editor gives up on joining.
        let doc = Fixture.document(tracks: [[(0, nil)]], slots: [], span: 2)
        try DocumentFile.save(doc, to: dir + "/a.tempera")
        var slow = doc
        slow.transport.tempo = 0.75
        try DocumentFile.save(slow, to: dir + "/b.tempera")

        // The tmux server starts inside the namespace (after checking it has nothing but loopback) and stays there.
        let start = Spawn.run("/usr/bin/unshare", ["--net", "sh", "-c", LinkTests.loopbackOnly + "\n"
            + "exec tmux -L '\(tmux.server)' -f /dev/null new-session -d -x 100 -y 30 -s t "
            + "\"\(try tempera("a.tempera --link", home: "a"))\""])
        XCTAssertEqual(start.status, 0, "Link must run only in a loopback-only namespace: \(start.stderr)")
        guard start.status == 0 else { return }
        var figures: [String] = []
        assertShows("t", "link alone 120.0 bpm", within: 10, "alone", figures: &figures)
        // Link's rule: of two sessions that meet, the one started more than half a second earlier is kept (closer
        // than that, either may be). This one is given a second.
        sleep(1)

        // A second editor joins: each sees the other, and the one that joined plays the session's 120, not its 90.
        tmux.tmux(["new-session", "-d", "-x", "100", "-y", "30", "-s", "b", try tempera("b.tempera --link", home: "b")])
        assertShows("t", "link 1 peer 120.0 bpm", within: 3, "a peer joins", figures: &figures)
        assertShows("b", "link 1 peer 120.0 bpm", within: 3, "the joiner takes the session's tempo", figures: &figures)

        // A tempo set in one editor (the command, then the key) is the session's, on the other's line.
        tmux.tmux(["send-keys", "-t", "=b:", ":"])
        tmux.tmux(["send-keys", "-t", "=b:", "-l", "bpm 150"])
        tmux.tmux(["send-keys", "-t", "=b:", "Enter"])
        assertShows("t", "link 1 peer 150.0 bpm", within: 1, "bpm 150 in the other editor", figures: &figures)
        tmux.tmux(["send-keys", "-t", "=t:", ":"])
        tmux.tmux(["send-keys", "-t", "=t:", "-l", "tempo 0.5"])
        tmux.tmux(["send-keys", "-t", "=t:", "Enter"])
        assertShows("b", "link 1 peer 60.0 bpm", within: 1, "tempo 0.5 in this editor", figures: &figures)
        // The key that makes the tempo faster (a tenth): the new tempo is the other editor's too.
        tmux.tmux(["send-keys", "-t", "=t:", "}"])
        let faster = Date()
        var shown = (a: "", b: "")
        while Date().timeIntervalSince(faster) < 3 {
            shown = (Self.sessionText(status("t")), Self.sessionText(status("b")))
            if shown.a.hasPrefix("link 1 peer ") && shown.a != "link 1 peer 60.0 bpm" && shown.a == shown.b { break }
            usleep(20_000)
        }
        XCTAssertTrue(shown.a == "link 1 peer 66.0 bpm" && shown.a == shown.b, "after the key (x1.1): \(shown)")
        figures.append(String(format: "the tempo key %.0f ms (%@)", Date().timeIntervalSince(faster) * 1000, shown.b))

        // A third peer sets the tempo: both editors count it while it is there, and keep its tempo after it left.
        tmux.tmux(["new-session", "-d", "-s", "c", try tempera("link --bpm 132.5", home: "c") + " > link.out"])
        assertShows("t", "link 2 peers", within: 3, "a second peer joins", figures: &figures)
        assertShows("t", "link 2 peers 132.5 bpm", within: 2, "its tempo", figures: &figures)
        assertShows("b", "132.5 bpm", within: 2, "its tempo on the other editor", figures: &figures)
        assertShows("t", "link 1 peer 132.5 bpm", within: 5, "it leaves", figures: &figures)

        // The other editor quits: alone again, at the session's tempo; the document's own tempo is not touched.
        tmux.tmux(["kill-session", "-t", "=b"])
        assertShows("t", "link alone 132.5 bpm", within: 3, "the other editor leaves", figures: &figures)
        let screen = tmux.tmux(["capture-pane", "-p", "-t", "=t:"])
        XCTAssertTrue(screen.contains(" 66 bpm ×0.55"), "the transport shows the document's own tempo: \(screen)")
        print("Link status line: " + figures.joined(separator: "; "))
    }
}
