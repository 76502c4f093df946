import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Playing together: an editor hosting a document (`--serve`) and two `tempera join` players in tmux, all
/// playing into one private PulseAudio server and recorded together. The server has a six-channel null sink and
/// on it three stereo remap sinks, one a player, each onto a pair of its channels (host: front, left player:
/// rear, right player: side); the recording of the null sink's monitor holds all three on the one clock of that
/// sink, and each host onset is paired with the nearest of each player's. Each instance plays panned to one
/// side, so the recording also shows that each stream went to its own pair alone. It prints the onsets heard
/// from all three, the worst and median spread of each onset among the three, the underruns each counted and how
/// late the machine woke a thread meanwhile, and holds the spread to 2 ms. 20 s in the suite; `TEMPERA_PHASE_SECONDS=300` for the long run, and
/// `TEMPERA_PHASE_LOG=FILE` writes each onset (host frame, left and right offsets).
final class SharedPlaybackTests: XCTestCase {
    var dir = ""
    var server: PulseTestServer?
    var sessions: [TmuxSession] = []

    override func setUp() { dir = TestPaths.temporaryDirectory("shared-playback") }
    override func tearDown() {
        for s in sessions { s.kill() }
        server?.stop()
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// How long the players play: TEMPERA_PHASE_SECONDS, else 20 s (the suite's share; 300 s is the long run).
    var seconds: Double {
        ProcessInfo.processInfo.environment["TEMPERA_PHASE_SECONDS"].flatMap(Double.init) ?? 20
    }

    func start(_ name: String, _ arguments: String, pulse: String, sink: String? = nil) -> TmuxSession {
        let tmux = TmuxSession(server: "tempera-phase-\(name)-\(getpid())")
        sessions.append(tmux)
        let env = "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=\(dir)/\(name) XDG_CONFIG_HOME=\(dir)/\(name)/config "
            + "XDG_STATE_HOME=\(dir)/\(name)/state PULSE_SERVER=\(pulse)" + (sink.map { " PULSE_SINK=\($0)" } ?? "")
        tmux.start("cd \(dir) && \(env) \(TestPaths.binary) \(arguments); sleep 60", width: 120, height: 40)
        return tmux
    }

    /// The null sink's channels, in the recording's order.
    static let channels = ["front-left", "front-right", "rear-left", "rear-right", "side-left", "side-right"]
    /// Who plays into which remap sink, onto which pair of the null sink's channels, panned where: the pan puts
    /// each one's sound on one channel of its pair, so the recording shows where each stream went.
    static let players = [(name: "host", channels: "front-left,front-right", pan: -1),
                          (name: "left", channels: "rear-left,rear-right", pan: -1),
                          (name: "right", channels: "side-left,side-right", pan: 1)]
    /// The channels of the recording that sound: the host's front-left, the left player's rear-left, the right
    /// player's side-right; the other three stay silent.
    static let sounding = [0, 2, 5]

    func testTheHostAndTwoPlayersPlayTheSameOnsetsWithin2MillisecondsInOneRecording() throws {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        let server = try PulseTestServer()
        self.server = server
        let map = Self.channels.joined(separator: ",")
        server.load("module-null-sink", ["sink_name=six", "rate=48000", "format=float32le", "channels=6",
                                         "channel_map=" + map])
        for p in Self.players {
            server.load("module-remap-sink", ["sink_name=\(p.name)_pair", "master=six", "channels=2",
                                              "master_channel_map=" + p.channels,
                                              "channel_map=front-left,front-right", "remix=no"])
        }

        // Four onsets a pass on a 0.9 s loop, each a 200-frame block (its first frame is the onset).
        try AudioFile.write(Fixture.block(frames: 200, level: 0.3), sampleRate: 48_000, to: dir + "/onset.wav",
                            as: .wavFloat)
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.2, .clip(1)), (0.45, .clip(1)), (0.7, .clip(1))]],
                                   slots: [ClipSlot(file: dir + "/onset.wav")], span: 0.9, volume: 0.8)
        try DocumentFile.save(doc, to: dir + "/shared.tempera")

        let port = freeTCPPort()
        let address = "127.0.0.1:\(port)"
        let (h, l, r) = (Self.players[0], Self.players[1], Self.players[2])
        let host = start("host", "shared.tempera --serve --port \(port) --name host --pan=\(h.pan)",
                         pulse: server.address, sink: "\(h.name)_pair")
        let shown = host.wait(timeout: 30) { $0.contains("timeline") }
        if !shown.met { print("the hosting editor did not start:\n" + shown.screen) }
        XCTAssertTrue(shown.met, shown.screen)
        let left = start("left", "join \(address) --name left --pan=\(l.pan)", pulse: server.address,
                         sink: "\(l.name)_pair")
        let right = start("right", "join \(address) --name right --pan=\(r.pan)", pulse: server.address,
                          sink: "\(r.name)_pair")
        let joined = host.wait(timeout: 30) { $0.contains("left") && $0.contains("right") }
        if !joined.met { print("the players did not join:\n" + joined.screen + "\n" + left.screen() + "\n" + right.screen()) }
        XCTAssertTrue(joined.met, joined.screen)

        for attempt in 1...3 {
            let underrunsBefore = [host, left, right].map { SharedPlaybackTests.underruns($0.screen()) }
            let wav = dir + "/together\(attempt).wav"
            let recorder = try server.record(to: wav, sink: "six", channelMap: Self.channels)
            let probe = WakeProbe()
            usleep(1_000_000)   // an idle null sink stalls its first writes: let the recording settle first
            // Space in one player starts everyone (through the host).
            left.keys(["Space"])
            usleep(useconds_t(seconds * 1_000_000))
            let screens = [host, left, right].map { $0.screen() }
            right.keys(["Space"])
            usleep(500_000)
            PulseTestServer.finish(recorder)
            let wakes = probe.stop()
            XCTAssertEqual(screens.map { $0.contains("playing") }, [true, true, true], "the host and both players play")
            let underruns = zip(screens.map(SharedPlaybackTests.underruns), underrunsBefore).map { $0 - $1 }

            let recording = try AudioFile.read(wav)
            XCTAssertEqual(recording.channels, 6)
            let onsets = (0..<6).map { Onsets.soundStarts(recording.samples, channels: 6, channel: $0) }
            let expected = Int(seconds / 0.9 * 4)
            // Each host onset with the nearest of each player's; the spread of the three is how far apart they left.
            let (hs, ls, rs) = (onsets[0], onsets[2], onsets[5])
            var spreads: [Int] = [], lines: [String] = []
            var j = 0, k = 0
            for a in hs {
                while j + 1 < ls.count, abs(ls[j + 1] - a) <= abs(ls[j] - a) { j += 1 }
                while k + 1 < rs.count, abs(rs[k + 1] - a) <= abs(rs[k] - a) { k += 1 }
                guard j < ls.count, k < rs.count, abs(ls[j] - a) < 4_800, abs(rs[k] - a) < 4_800 else { continue }
                let three = [a, ls[j], rs[k]]
                spreads.append(three.max()! - three.min()!)
                lines.append("\(a) \(ls[j] - a) \(rs[k] - a)")
            }
            if let out = ProcessInfo.processInfo.environment["TEMPERA_PHASE_LOG"] {
                try? (lines.joined(separator: "\n") + "\n").write(toFile: out, atomically: true, encoding: .utf8)
            }
            let worst = spreads.max() ?? 0
            let median = spreads.isEmpty ? 0 : spreads.sorted()[spreads.count / 2]
            print(String(format: "host and two players over %.0f s: %d onsets heard from all three (host %d, left %d, "
                         + "right %d), worst spread %.3f ms, median %.3f ms, underruns host %d left %d right %d; "
                         + "the machine woke a thread up to %.1f ms late (%d wakes over %.0f ms)",
                         seconds, spreads.count, hs.count, ls.count, rs.count, Double(worst) / 48, Double(median) / 48,
                         underruns[0], underruns[1], underruns[2], wakes.worst * 1000, wakes.late, probe.threshold * 1000))
            // An underrun of the loaded server delays the streams until each player catches up, and a machine that
            // kept the players from the processors for tens of milliseconds can leave one reading its output's
            // timing late: such a run is done again, at most three; the last asserts whatever happened.
            let disturbed = underruns.contains(where: { $0 > 0 }) || wakes.late > 0
            if disturbed && attempt < 3 && (worst > 96 || spreads.count <= expected - 8) {
                continue
            }
            // Each stream went onto its own pair and side alone: the other channels never sounded.
            XCTAssertEqual(onsets.map { !$0.isEmpty }, (0..<6).map { Self.sounding.contains($0) },
                           "channels that sounded (host front-left, left player rear-left, right player side-right)")
            for (c, name) in zip(Self.sounding, ["host", "left player", "right player"]) {
                XCTAssertGreaterThan(onsets[c].count, expected - 8, "\(name)'s onsets")
            }
            XCTAssertGreaterThan(spreads.count, expected - 8)
            XCTAssertLessThanOrEqual(worst, 96, "the same onset left the host and the players more than 2 ms apart")
            break
        }
    }

    /// The process a tmux session's shell started (the program it runs), by the parent in /proc.
    static func child(of session: TmuxSession) -> pid_t? {
        guard let shell = Int32(session.tmux(["display", "-p", "-t", "t", "#{pane_pid}"])
            .trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for p in pids {
            guard let pid = Int32(p), let stat = try? String(contentsOfFile: "/proc/\(p)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // After the command's closing parenthesis: the state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == shell { return pid }
        }
        return nil
    }

    /// A song played together keeps the common time, not only the common start: one player is stopped for
    /// 0.3 s (SIGSTOP) while the song plays, its output runs dry and it falls behind, and a few seconds later the
    /// two players' same onsets are again within 2 ms. Without the correction it would stay 0.3 s behind.
    func testInASongAPlayerThatStalledIsBackInPhaseWithin2Milliseconds() throws {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        let server = try PulseTestServer()
        self.server = server
        try AudioFile.write(Fixture.block(frames: 200, level: 0.3), sampleRate: 48_000, to: dir + "/onset.wav",
                            as: .wavFloat)
        // A looping song of 2.52 s: [0, 0.9) twice at x1, then once at x1.25; four onsets a pass of a section.
        var doc = Fixture.document(tracks: [[(0, .clip(1)), (0.2, .clip(1)), (0.45, .clip(1)), (0.7, .clip(1))]],
                                   slots: [ClipSlot(file: dir + "/onset.wav")], span: 0.9, volume: 0.8)
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 0.9, repeats: 2, tempo: 1),
                                   Song.Section(name: "B", start: 0, end: 0.9, repeats: 1, tempo: 1.25)],
                        on: true, loop: true)
        try DocumentFile.save(doc, to: dir + "/song.tempera")

        let port = freeTCPPort()
        let host = start("host", "serve song.tempera --port \(port)", pulse: server.address)
        usleep(500_000)
        let left = start("left", "join 127.0.0.1:\(port) --name left --pan=-1", pulse: server.address)
        let right = start("right", "join 127.0.0.1:\(port) --name right --pan=1", pulse: server.address)
        let joined = left.wait(timeout: 30) { $0.contains("right") && $0.contains("latency") }
        if !joined.met { print("the players did not join:\n" + host.screen() + "\n" + joined.screen + "\n" + right.screen()) }
        XCTAssertTrue(joined.met, joined.screen)
        let stalled = try XCTUnwrap(Self.child(of: right), "the right player's process")

        for attempt in 1...3 {
            let underrunsBefore = [left, right].map { SharedPlaybackTests.underruns($0.screen()) }
            let wav = dir + "/song\(attempt).wav"
            let recorder = try server.record(to: wav)
            let probe = WakeProbe()
            usleep(1_000_000)   // an idle null sink stalls its first writes: let the recording settle first
            left.keys(["Space"])
            usleep(4_000_000)
            kill(stalled, SIGSTOP)
            usleep(300_000)
            kill(stalled, SIGCONT)
            usleep(8_000_000)
            let screens = [left, right].map { $0.screen() }
            right.keys(["Space"])
            usleep(500_000)
            PulseTestServer.finish(recorder)
            let wakes = probe.stop()
            XCTAssertEqual(screens.map { $0.contains("playing") }, [true, true], "both players play")
            let underruns = zip(screens.map(SharedPlaybackTests.underruns), underrunsBefore).map { $0 - $1 }

            let samples = try AudioFile.read(wav).samples
            let l = Onsets.soundStarts(samples, channels: 2, channel: 0), r = Onsets.soundStarts(samples, channels: 2, channel: 1)
            guard let first = l.first else {
                XCTFail("the left player played nothing")
                break
            }
            // From 3 s after the stall on: each left onset with the nearest right one.
            let after = l.filter { $0 >= first + 7 * 48_000 }
            var worst = 0, paired = 0
            for a in after {
                guard let d = r.map({ $0 - a }).min(by: { abs($0) < abs($1) }) else { continue }
                worst = max(worst, abs(d))
                if abs(d) <= 96 { paired += 1 }
            }
            print(String(format: "a song with one player stalled 0.3 s: from 3 s after, %d left onsets, %d within 2 ms, "
                         + "worst %.3f ms; underruns left %d right %d; the machine woke a thread up to %.1f ms late "
                         + "(%d wakes over %.0f ms)", after.count, paired, Double(worst) / 48, underruns[0], underruns[1],
                         wakes.worst * 1000, wakes.late, probe.threshold * 1000))
            // Underruns of the player that was not stopped, and wakes tens of milliseconds late, come from the
            // loaded machine: such a run is done again.
            if (underruns[0] > 0 || wakes.late > 0) && attempt < 3 && (worst > 96 || after.count < 20) { continue }
            // A stop that did not make the player's output run dry (the server itself held up meanwhile) tested
            // nothing: again.
            if underruns[1] == 0 && attempt < 3 {
                print("the stopped player's output did not run dry: again")
                continue
            }
            XCTAssertGreaterThan(underruns[1], 0, "the stopped player's output ran dry: it did fall behind")
            XCTAssertGreaterThanOrEqual(after.count, 20, "left onsets in the last 5 s")
            XCTAssertLessThanOrEqual(worst, 96, "the stalled player was not back within 2 ms of the other")
            break
        }
    }

    /// The underruns an editor's transport shows ("3 underruns"), 0 when it shows none.
    static func underruns(_ screen: String) -> Int {
        guard let r = screen.range(of: #"\d+ underruns?"#, options: .regularExpression) else { return 0 }
        return Int(screen[r].prefix { $0.isNumber }) ?? 0
    }
}
