import Foundation
import TemperaCore
import TemperaNet
import TemperaTestSupport
import XCTest

/// A participant cut off from the host (the host stopped with SIGSTOP: no byte and no close reach it, as when a
/// network drops) is told within 2 s, with the seconds counting and its edits queued, and its edits go through
/// once the host is back.
final class UnreachableHostTests: XCTestCase {
    func testACutOffParticipantSeesHostUnreachableWithin2SecondsAndItsEditsGoThroughAfter() throws {
        let dir = TestPaths.temporaryDirectory("unreachable")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/shared.tempera"
        try DocumentFile.save(Document(tracks: [Track(name: "one")]), to: file)
        let server = try ServeProcess([file], in: dir)
        defer {
            kill(server.pid, SIGCONT)
            _ = server.stop()
        }
        let tmux = TmuxSession(server: "tempera-unreachable-\(getpid())")
        defer { tmux.kill() }
        let env = "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=\(dir) XDG_CONFIG_HOME=\(dir)/config "
            + "XDG_STATE_HOME=\(dir)/state PULSE_SERVER=unix:\(dir)/no-pulse"
        tmux.start("\(env) \(TestPaths.binary) join 127.0.0.1:\(server.port) --name ed; sleep 60", width: 120, height: 40)
        XCTAssertTrue(tmux.wait(timeout: 30) { $0.contains("timeline") }.met, tmux.screen())

        kill(server.pid, SIGSTOP)
        let t0 = monotonicSeconds()
        let told = tmux.wait(timeout: 5) { $0.contains("host unreachable, 1 s — edits queued") }
        let after = monotonicSeconds() - t0
        print(String(format: "host unreachable shown after %.2f s", after))
        XCTAssertTrue(told.met, told.screen)
        XCTAssertLessThan(after, 2)
        XCTAssertTrue(tmux.wait(timeout: 5) { $0.contains("host unreachable, 3 s — edits queued") }.met, "the seconds count")
        tmux.type(":")
        tmux.type("marker add 0.625")
        tmux.keys(["Enter"])

        kill(server.pid, SIGCONT)
        XCTAssertTrue(tmux.wait(timeout: 5) { $0.contains("host reachable again") || $0.contains("marker") }.met, tmux.screen())
        let watcher = Participant(host: "127.0.0.1", port: server.port, name: "watcher")
        try watcher.connect()
        let end = Date().addingTimeInterval(10)
        while Date() < end, !watcher.sync({ $0.document.tracks.first?.markers.contains { $0.time == 0.625 } ?? false }) { usleep(10_000) }
        XCTAssertTrue(watcher.sync { $0.document.tracks.first?.markers.contains { $0.time == 0.625 } ?? false },
                      "the queued edit reached the host")
        watcher.cut()
    }
}
