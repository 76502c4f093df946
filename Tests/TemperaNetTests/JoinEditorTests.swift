import Foundation
import TemperaCore
import TemperaNet
import TemperaTestSupport
import XCTest

/// `tempera join` as a participant sees it: the editor in tmux beside a participant in this process.
final class JoinEditorTests: XCTestCase {
    func testAnEditByOneParticipantIsOnTheOthersScreenWithin100Milliseconds() throws {
        let dir = TestPaths.temporaryDirectory("join-editor")
        let server = try ServeProcess([dir + "/shared.json"], in: dir)
        defer { _ = server.stop() }
        let tmux = TmuxSession(server: "tempera-join-\(getpid())")
        defer { tmux.kill() }
        let env = "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=\(dir) XDG_CONFIG_HOME=\(dir)/config "
            + "XDG_STATE_HOME=\(dir)/state PULSE_SERVER=unix:\(dir)/no-pulse"
        tmux.start("\(env) \(TestPaths.binary) join 127.0.0.1:\(server.port) --name ed; sleep 60", width: 120, height: 40)
        XCTAssertTrue(tmux.wait(timeout: 30) { $0.contains("timeline") }.met, tmux.screen())

        let ana = Participant(host: "127.0.0.1", port: server.port, name: "ana")
        try ana.connect()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !ana.sync({ $0.connected }) { usleep(2000) }
        // Presence: the editor's title says who is there, and ana's cursor shows with her name.
        ana.send("cursor 1")
        XCTAssertTrue(tmux.wait(timeout: 10) { $0.contains("with ana") }.met, tmux.screen())

        // 50 edits; a run a loaded machine held up past the bound is done again (at most three), each printed.
        var edit = 0
        for attempt in 1...3 {
            var latencies: [Double] = []
            for _ in 0..<50 {
                let name = "e\(edit)z"
                edit += 1
                let start = monotonicSeconds()
                ana.send("track 1 name \(name)")
                var seen = false
                while monotonicSeconds() - start < 5 {
                    if tmux.screen().contains(" \(name) ") {
                        seen = true
                        break
                    }
                }
                XCTAssertTrue(seen, "edit \(name) never reached the editor's screen")
                latencies.append(monotonicSeconds() - start)
            }
            latencies.sort()
            let median = (latencies[24] + latencies[25]) / 2, worst = latencies[49]
            print(String(format: "join latency over 50 edits: median %.1f ms, worst %.1f ms", median * 1000, worst * 1000))
            if worst >= 0.1 && attempt < 3 { continue }
            XCTAssertLessThan(median, 0.1)
            XCTAssertLessThan(worst, 0.1)
            break
        }

        // The other way: a command typed in the editor reaches ana's copy, and the editor's cursor her presence.
        tmux.type(":")
        tmux.type("marker add 1.375")
        tmux.keys(["Enter"])
        let until = Date().addingTimeInterval(10)
        while Date() < until, !ana.sync({ $0.document.tracks[0].markers.contains { $0.time == 1.375 } }) { usleep(5000) }
        XCTAssertTrue(ana.sync { $0.document.tracks[0].markers.contains { $0.time == 1.375 } }, tmux.screen())
        tmux.type(":")
        tmux.type("cursor 0.75")
        tmux.keys(["Enter"])
        let moved = Date().addingTimeInterval(10)
        while Date() < moved, !ana.sync({ $0.presence.contains { $0.name == "ed" && $0.cursor == 0.75 } }) { usleep(5000) }
        XCTAssertTrue(ana.sync { $0.presence.contains { $0.name == "ed" && $0.cursor == 0.75 } })
    }
}
