import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Two editors in one Ableton Link session (`--link`), run only inside a network namespace of their own whose
/// one interface is loopback (Link announces itself by multicast on every interface it sees), both playing into
/// one private PulseAudio server, one panned hard left and the other hard right, recorded.
final class LinkPlaybackTests: XCTestCase {
    var dir = ""
    var namespace = ""
    var server: PulseTestServer?
    var sessions: [TmuxSession] = []

    override func setUp() { dir = TestPaths.temporaryDirectory("link-playback") }
    override func tearDown() {
        for s in sessions { s.kill() }
        server?.stop()
        if !namespace.isEmpty { Spawn.run("/usr/sbin/ip", ["netns", "del", namespace]) }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Starts `arguments` in tmux inside the namespace (the tmux server, started there, keeps it).
    func start(_ name: String, _ arguments: String, pulse: String) -> TmuxSession {
        let tmux = TmuxSession(server: "tempera-link-\(name)-\(getpid())")
        sessions.append(tmux)
        let env = "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=\(dir)/\(name) XDG_CONFIG_HOME=\(dir)/\(name)/config "
            + "XDG_STATE_HOME=\(dir)/\(name)/state PULSE_SERVER=\(pulse)"
        let r = Spawn.run("/usr/sbin/ip", ["netns", "exec", namespace, "/usr/bin/tmux", "-L", tmux.server, "-f", "/dev/null",
                                           "new-session", "-d", "-x", "120", "-y", "40", "-s", "t",
                                           "cd \(dir) && \(env) \(TestPaths.binary) \(arguments); sleep 60"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return tmux
    }

    func testTwoEditorsOnLinkAgreeOnTempoWithinASecondAndOnBeatPhaseWithin1Millisecond() throws {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        // Link only ever runs in a namespace with nothing but loopback.
        namespace = "tempera-link-\(getpid())"
        let made = Spawn.run("/usr/sbin/ip", ["netns", "add", namespace])
        guard made.status == 0 else {
            namespace = ""
            throw XCTSkip("no network namespace can be made here (needs root): \(made.stderr)")
        }
        XCTAssertEqual(Spawn.run("/usr/sbin/ip", ["netns", "exec", namespace, "/usr/sbin/ip", "link", "set", "lo", "up"]).status, 0)
        let links = Spawn.run("/usr/sbin/ip", ["netns", "exec", namespace, "/usr/sbin/ip", "-o", "link"]).stdout
        XCTAssertEqual(links.split(separator: "\n").count, 1, "the namespace has one interface: \(links)")
        XCTAssertTrue(links.contains("lo:"), links)

        let server = try PulseTestServer()
        self.server = server
        // One bar of four beats at 120 bpm, an onset on each beat (a 200-frame block: its first frame is the onset).
        try AudioFile.write(Fixture.block(frames: 200, level: 0.3), sampleRate: 48_000, to: dir + "/onset.wav", as: .wavFloat)
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1)), (1, .clip(1)), (1.5, .clip(1))]],
                                   slots: [ClipSlot(file: dir + "/onset.wav")], span: 2, volume: 0.8)
        try DocumentFile.save(doc, to: dir + "/a.tempera")
        try DocumentFile.save(doc, to: dir + "/b.tempera")
        let a = start("a", "a.tempera --link --pan=-1", pulse: server.address)
        let b = start("b", "b.tempera --link --pan=1", pulse: server.address)
        for e in [a, b] {
            let met = e.wait(timeout: 30) { $0.contains("Link: 1 peer") }
            XCTAssertTrue(met.met, met.screen)
        }

        let wav = dir + "/link.wav"
        let recorder = try server.record(to: wav)
        usleep(1_000_000)   // an idle null sink stalls its first writes: let the recording settle first
        let recordStart = Date()
        // Each starts on the session's next bar, whenever its Space comes.
        a.keys(["Space"])
        usleep(1_300_000)
        b.keys(["Space"])
        usleep(6_000_000)

        // A tempo change in one reaches the other.
        a.type(":")
        a.type("bpm 150")
        let changedAt = Date()
        a.keys(["Enter"])
        var followed: Double?
        while Date().timeIntervalSince(changedAt) < 5 {
            if b.screen().contains("150 bpm") {
                followed = Date().timeIntervalSince(changedAt)
                break
            }
            usleep(5_000)
        }
        let change = changedAt.timeIntervalSince(recordStart) + 1   // seconds into the recording
        usleep(6_000_000)
        b.keys(["Space"])
        a.keys(["Space"])
        usleep(500_000)
        PulseTestServer.finish(recorder)
        XCTAssertNotNil(followed, "the other editor never showed 150 bpm: " + b.screen())
        if let followed { XCTAssertLessThan(followed, 1.0, "the tempo reached the other editor after \(followed) s") }

        let samples = try AudioFile.read(wav).samples
        let l = SharedPlaybackTests.onsets(samples, channel: 0), r = SharedPlaybackTests.onsets(samples, channel: 1)
        // Each of the later starter's onsets with the nearest of the other's.
        var before: [Int] = [], after: [Int] = [], settling: [Int] = []
        var j = 0
        for x in r {
            while j + 1 < l.count, abs(l[j + 1] - x) <= abs(l[j] - x) { j += 1 }
            guard j < l.count, abs(l[j] - x) < 4_800 else { continue }
            let d = abs(l[j] - x), at = Double(x) / 48_000
            if at < change { before.append(d) } else if at < change + 1 { settling.append(d) } else { after.append(d) }
        }
        let worst = { (xs: [Int]) in Double(xs.max() ?? 0) / 48 }
        print(String(format: "link: tempo followed in %.0f ms; phase worst %.3f ms over %d onsets before the change, %.3f ms over %d in the second after it, %.3f ms over %d after that",
                     (followed ?? -1) * 1000, worst(before), before.count, worst(settling), settling.count, worst(after), after.count))
        XCTAssertGreaterThan(before.count, 8)
        XCTAssertGreaterThan(after.count, 8)
        XCTAssertLessThanOrEqual(worst(before), 1, "beat phase before the tempo change")
        XCTAssertLessThanOrEqual(worst(after), 1, "beat phase once the tempo change settled")
    }
}
