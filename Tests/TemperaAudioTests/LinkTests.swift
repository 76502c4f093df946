import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Ableton Link, heard: two `tempera play --link` instances and a third peer that changes the tempo, all inside
/// a network namespace with nothing but loopback (Link announces itself by multicast on every interface it
/// sees, so it never runs on the machine's network here), playing to one private PulseAudio server whose socket
/// is a file both reach. One instance's clicks are panned hard left, the other's hard right; the recording
/// gives each instance's onsets, to the frame.
final class LinkTests: XCTestCase {
    static let rate = 48_000.0

    /// Onsets of one channel: frames where it sounds after at least `gap` frames of (near) silence.
    static func onsets(_ stereo: [Float], channel: Int, gap: Int = 2_400) -> [Int] {
        var starts: [Int] = []
        var silent = gap
        for i in 0..<(stereo.count / 2) {
            if abs(stereo[2 * i + channel]) > 1e-6 {
                if silent >= gap { starts.append(i) }
                silent = 0
            } else {
                silent += 1
            }
        }
        return starts
    }

    /// The first onset after `after` (seconds) from which the beats last `interval` seconds (±2 ms) for at least
    /// four beats: where the channel plays that tempo.
    static func settled(_ onsets: [Int], interval: Double, after: Double) -> Double? {
        let t = onsets.map { Double($0) / rate }.filter { $0 >= after }
        guard t.count >= 5 else { return nil }
        for k in 0..<(t.count - 4) where (k..<(k + 4)).allSatisfy({ abs(t[$0 + 1] - t[$0] - interval) <= 0.002 }) {
            return t[k]
        }
        return nil
    }

    /// The start of the first beat after `after` (seconds) that does not last `interval` seconds (±2 ms).
    static func firstChange(_ onsets: [Int], interval: Double, after: Double) -> Double? {
        let t = onsets.map { Double($0) / rate }.filter { $0 >= after }
        guard t.count >= 2 else { return nil }
        for k in 0..<(t.count - 1) where abs(t[k + 1] - t[k] - interval) > 0.002 { return t[k] }
        return nil
    }

    /// Refuses (exit 97) to start anything unless the namespace's only network interface is loopback.
    static let loopbackOnly = """
        ip link set lo up || exit 96
        interfaces=$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/self/net/dev | tr '\\n' ' ')
        [ "$interfaces" = "lo " ] || { echo "not a loopback-only namespace: $interfaces" >&2; exit 97; }
        """

    /// What one run of the two players heard, and what they said.
    struct Session {
        var left: [Int]
        var right: [Int]
        /// Seconds of recording.
        var seconds: Double
        /// From when the players had found each other and settled, in seconds of the recording (at the latest:
        /// the recording starts a little after its wall-clock stamp).
        var measureFrom: Double
        /// Until the players were told to stop, half a second earlier (the recording's own start may lag its stamp
        /// by that much): they are stopped one after the other, and the one stopped last plays on meanwhile.
        var measureTo: Double
        var changes: [String]
        var logs: [String]
        var underruns: Bool { logs.contains { $0.contains("underrun") } }
    }

    /// The recorder starts first (its start disturbs the server), then the left player, the right one, and
    /// once they have found each other a third peer sets 140 BPM and later 90. With `editor`, the left player is
    /// the editor in tmux (started with Space once the right one has found it) and only 140 BPM is set.
    /// `song` plays `song-left.tempera` and `song-right.tempera` with `--song` (see `prepareSong`).
    func playTogether(in dir: String, server: PulseTestServer, editor: Bool = false, song: Bool = false) throws -> Session {
        for f in ["rec.wav", "left.err", "right.err", "changes", "start", "measure", "stopping", "before.screen", "after.screen"] {
            try? FileManager.default.removeItem(atPath: dir + "/" + f)
        }
        let script = """
            set -u
            \(Self.loopbackOnly)
            cd '\(dir)'
            export PULSE_SERVER='\(server.address)'
            T='\(TestPaths.binary)'
            parecord --device=out.monitor --format=float32le --rate=48000 --channels=2 --file-format=wav rec.wav &
            P=$!
            date +%s.%N > start
            sleep 0.8
            \(editor ? Self.editorScript(song ? "song-" : "", server: Self.tmuxServer(dir))
                : Self.playersScript(song ? "--song" : "", prefix: song ? "song-" : ""))
            kill -INT $P; wait $P
            """
        try script.write(toFile: dir + "/run.sh", atomically: true, encoding: .utf8)
        let run = Spawn.run("/usr/bin/unshare", ["--net", "sh", dir + "/run.sh"])
        XCTAssertNotEqual(run.status, 97, "Link must run only in a loopback-only namespace: \(run.stderr)")
        var logs = ["left.err", "right.err"].map { (try? String(contentsOfFile: "\(dir)/\($0)", encoding: .utf8)) ?? "" }
        if editor {
            // The editor's underruns while the onsets were measured (one as the idle sink takes its first write,
            // before, is no matter), from its transport line.
            func count(_ file: String) -> Int {
                let line = (try? String(contentsOfFile: "\(dir)/\(file)", encoding: .utf8)) ?? ""
                guard let r = line.range(of: " underrun") else { return 0 }
                return Int(line[..<r.lowerBound].reversed().prefix { $0.isNumber }.reversed().map(String.init).joined()) ?? 0
            }
            let more = count("after.screen") - count("before.screen")
            if more > 0 { logs[0] += "the editor: \(more) underrun(s) while measured\n" }
        }
        XCTAssertTrue(logs[1].contains("1 peer") && (editor || logs[0].contains("1 peer")),
                      "the instances did not find each other: \(logs)")

        func time(_ file: String) -> Double {
            Double(((try? String(contentsOfFile: dir + "/" + file, encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        let start = time("start")
        let changes = ((try? String(contentsOfFile: dir + "/changes", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(changes.count, editor ? 2 : 4, "tempera link prints a line before and after each change: \(changes)")
        let rec = try AudioFile.read(dir + "/rec.wav")
        return Session(left: Self.onsets(rec.samples, channel: 0), right: Self.onsets(rec.samples, channel: 1),
                       seconds: Double(rec.samples.count / 2) / Self.rate,
                       measureFrom: time("measure") - start, measureTo: time("stopping") - start - 0.5,
                       changes: changes, logs: logs)
    }

    static func playersScript(_ options: String = "", prefix: String = "") -> String { """
        "$T" play \(prefix)left.tempera --link --forever \(options) 2> left.err &
        L=$!
        sleep 0.4
        "$T" play \(prefix)right.tempera --link --forever \(options) 2> right.err &
        R=$!
        for _ in $(seq 200); do
            grep -q '1 peer' left.err && grep -q '1 peer' right.err && break
            sleep 0.05
        done
        sleep 1
        date +%s.%N > measure
        sleep 3
        "$T" link --bpm 140 | while read -r line; do echo "$(date +%s.%N) $line" >> changes; done
        sleep 3
        "$T" link --bpm 90 | while read -r line; do echo "$(date +%s.%N) $line" >> changes; done
        sleep 6
        date +%s.%N > stopping
        kill -INT $L $R; wait $L $R
        """
    }

    /// The tmux server of the test in `dir`: a name of its own, so a server still ending from an earlier test
    /// (in that test's namespace, with its environment) is never the one a new session goes to.
    static func tmuxServer(_ dir: String) -> String { "tempera-" + (dir as NSString).lastPathComponent }

    /// The editor runs in a tmux server started here, inside the namespace, on a socket of its own (`server`).
    /// `prefix` "song-" plays the song documents (the editor plays a document's song when it is on).
    static func editorScript(_ prefix: String = "", server: String) -> String { """
        mkdir -p home
        tmux -L \(server) -f /dev/null new-session -d -x 100 -y 30 -s t \\
            "env HOME=$PWD/home XDG_CONFIG_HOME=$PWD/home/.config XDG_STATE_HOME=$PWD/home/.state LANG=C.UTF-8 \\
             TERM=xterm-256color $T \(prefix)left.tempera --link 2> left.err"
        sleep 0.4
        "$T" play \(prefix)right.tempera --link --forever \(prefix.isEmpty ? "" : "--song") 2> right.err &
        R=$!
        for _ in $(seq 200); do grep -q '1 peer' right.err && break; sleep 0.05; done
        sleep 0.5
        tmux -L \(server) send-keys -t t Space
        sleep 2.5
        date +%s.%N > measure
        tmux -L \(server) capture-pane -p -t t | head -n 1 > before.screen
        sleep 3
        "$T" link --bpm 140 | while read -r line; do echo "$(date +%s.%N) $line" >> changes; done
        sleep 6
        date +%s.%N > stopping
        # The editor's transport line, which counts its underruns, as the measuring began and at the end.
        tmux -L \(server) capture-pane -p -t t | head -n 1 > after.screen
        tmux -L \(server) kill-server
        kill -INT $R; wait $R
        """
    }

    /// A loopback-only namespace can be made (else the test is skipped: Link never runs outside one), the
    /// program is built, a private server runs (with real-time priority where allowed), and the two documents
    /// are written: beat 0.5 s, 4 beats a bar, a click on each beat of a one-bar loop, panned hard left in
    /// `left.tempera` and hard right in `right.tempera`; 120 BPM until a peer says otherwise.
    static func prepare() throws -> (dir: String, server: PulseTestServer) {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        let probe = Spawn.run("/usr/bin/unshare", ["--net", "sh", "-c", Self.loopbackOnly])
        guard probe.status == 0 else { throw XCTSkip("no loopback-only network namespace here: \(probe.stderr)") }
        let dir = TestPaths.temporaryDirectory("link")
        let server = try PulseTestServer()
        // A desktop's server has real-time priority (rtkit gives it); the private one gets it too where allowed,
        // so a loaded machine starves it less.
        if let pid = try? String(contentsOfFile: server.dir + "/run/pid", encoding: .utf8) {
            Spawn.run("/usr/bin/chrt", ["-f", "-a", "-p", "5", pid.trimmingCharacters(in: .whitespacesAndNewlines)])
        }
        try AudioFile.write([Float](repeating: 0.5, count: 480), sampleRate: 48_000, to: dir + "/click.wav",
                            as: .wavFloat)
        for (name, pan) in [("left", -1.0), ("right", 1.0)] {
            var doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1)), (1, .clip(1)), (1.5, .clip(1))]],
                                       slots: [ClipSlot(file: "click.wav")], span: 2)
            doc.slots[0].pan = pan
            try DocumentFile.save(doc, to: "\(dir)/\(name).tempera")
        }
        return (dir, server)
    }

    /// Song documents beside the loop ones: a click on every beat of two bars, [0, 2) loud and [2, 4) at a quarter
    /// of the level; the song plays section A = [0, 2) twice, then B = [2, 4) once at its own tempo x1.5 (which
    /// Link sets aside: the session has one tempo), and loops.
    func prepareSong(in dir: String) throws {
        try AudioFile.write([Float](repeating: 0.125, count: 480), sampleRate: 48_000, to: dir + "/soft.wav",
                            as: .wavFloat)
        for (name, pan) in [("left", -1.0), ("right", 1.0)] {
            var doc = Fixture.document(tracks: [[(0, .clip(1)), (0.5, .clip(1)), (1, .clip(1)), (1.5, .clip(1)),
                                                 (2, .clip(2)), (2.5, .clip(2)), (3, .clip(2)), (3.5, .clip(2))]],
                                       slots: [ClipSlot(file: "click.wav"), ClipSlot(file: "soft.wav")], span: 4)
            doc.slots[0].pan = pan
            doc.slots[1].pan = pan
            doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 2),
                                       Song.Section(name: "B", start: 2, end: 4, repeats: 1, tempo: 1.5)],
                            on: true, loop: true)
            try DocumentFile.save(doc, to: "\(dir)/song-\(name).tempera")
        }
    }

    /// Each onset's level in one channel: loud (the click, 0.5) or soft (0.125), as letters.
    static func levels(_ stereo: [Float], _ onsets: [Int], channel: Int) -> String {
        String(onsets.map { o -> Character in
            let peak = (o..<min(o + 480, stereo.count / 2)).map { abs(stereo[2 * $0 + channel]) }.max() ?? 0
            return peak > 0.3 ? "L" : peak > 0.05 ? "S" : "?"
        })
    }

    func testTwoInstancesPlayingTheSongUnderLinkAreInPhaseWithinAMillisecondAndPlayItsSectionsAtTheSessionTempo()
        throws {
        let (dir, server) = try Self.prepare()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
        try prepareSong(in: dir)
        let s = try playUntilTogether(in: dir, server: server, song: true, changes: [(120, 140), (140, 90)])
        XCTAssertTrue(s.changes.count == 4 && s.changes[1].hasSuffix("\"bpm\":140.000}")
            && s.changes[3].hasSuffix("\"bpm\":90.000}"), "\(s.changes)")
        Self.assertTogether(s, changes: [(120, 140), (140, 90)])
        // The song, in order, from its start, at the session's tempo: eight loud beats (A twice) and four soft
        // ones (B, at the session's tempo, not its own x1.5, which would show as a change of beat above), again.
        let rec = try AudioFile.read(dir + "/rec.wav")
        for (channel, onsets) in [(0, s.left), (1, s.right)] {
            let pattern = Self.levels(rec.samples, onsets, channel: channel)
            let song = String(repeating: "LLLLLLLLSSSS", count: pattern.count / 12 + 1).prefix(pattern.count)
            XCTAssertGreaterThanOrEqual(pattern.count, 20)
            XCTAssertEqual(pattern, String(song), "channel \(channel)")
            print("Link song, channel \(channel): \(pattern)")
        }
    }

    func testTheEditorPlayingTheSongUnderLinkIsInPhaseWithAPlayerOfTheSong() throws {
        let (dir, server) = try Self.prepare()
        defer {
            Spawn.run("/usr/bin/tmux", ["-L", Self.tmuxServer(dir), "kill-server"])
            server.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
        try prepareSong(in: dir)
        let s = try playUntilTogether(in: dir, server: server, editor: true, song: true, changes: [(120, 140)])
        XCTAssertTrue(s.changes.count == 2 && s.changes[1].hasSuffix("\"bpm\":140.000}"), "\(s.changes)")
        Self.assertTogether(s, changes: [(120, 140)])
        let rec = try AudioFile.read(dir + "/rec.wav")
        for (channel, onsets) in [(0, s.left), (1, s.right)] {
            let pattern = Self.levels(rec.samples, onsets, channel: channel)
            let song = String(repeating: "LLLLLLLLSSSS", count: pattern.count / 12 + 1).prefix(pattern.count)
            XCTAssertEqual(pattern, String(song), "channel \(channel)")
        }
    }

    func testTwoInstancesFollowTheSessionTempoWithinASecondAndItsBeatWithinAMillisecond() throws {
        let (dir, server) = try Self.prepare()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
        // A loaded machine may underrun, which delays one player's stream against the other's until the next
        // blocks take it up: then the two play again, at most three times, like the other tests that listen.
        let s = try playUntilTogether(in: dir, server: server, changes: [(120, 140), (140, 90)])
        XCTAssertTrue(s.changes.count == 4 && s.changes[1].hasSuffix("\"bpm\":140.000}")
            && s.changes[3].hasSuffix("\"bpm\":90.000}"), "\(s.changes)")
        XCTAssertGreaterThan(s.seconds, 12)
        Self.assertTogether(s, changes: [(120, 140), (140, 90)])
    }

    func testBadLinkOptionsAreOneLineAndStartNothing() throws {
        let (dir, server) = try Self.prepare()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
        // Still inside a namespace of its own, in case one of them did start Link.
        var out = ""
        func run(_ args: String) -> (status: Int32, stderr: String) {
            let r = Spawn.run("/usr/bin/unshare", ["--net", "sh", "-c", Self.loopbackOnly + "\ncd '\(dir)'\n"
                + "PULSE_SERVER='\(server.address)' '\(TestPaths.binary)' \(args)"])
            out = r.stdout
            return (r.status, r.stderr)
        }
        XCTAssertTrue(run("link --bpm 5") == (1, "tempera: --bpm must be from 20 to 999 (got 5.0)\n"))
        XCTAssertTrue(run("link --wait=-1") == (1, "tempera: --wait must be from 0 to 600 seconds\n"))
        XCTAssertTrue(run("play left.tempera --link --song")
            == (1, "tempera: left.tempera: the song has no section (add one with 'section add')\n"))
        XCTAssertTrue(run("left.tempera --link --serve") == (1, "tempera: --link and --serve cannot be combined\n"))
        // Alone, `tempera link` waits for no one past --wait and says so.
        XCTAssertTrue(run("link --wait 0") == (0, ""))
        XCTAssertEqual(out, "{\"peers\":0,\"bpm\":120.000}\n")
    }

    /// A peer at 140 BPM (`tempera link --bpm 140`, which says the session's tempo once it has found a peer,
    /// before it sets its own again) and, at a gap after it has joined the network (its Link socket is bound, on
    /// UDP port 20808), `tempera play --link` of a 120-BPM document: 20 runs, 5 gaps from 0 to 0.6 s in each of 4
    /// namespaces side by side. Link lets the older of two sessions
    /// that meet win only when they started more than half a second apart; closer, its random ids decided, and
    /// the player imposed its 120 BPM about half the time. Here the player takes 140 every time and the peer
    /// keeps it.
    func testAPlayerJoiningASessionNeverSetsItsTempoAtAnyGapAfterThePeer() throws {
        guard FileManager.default.isExecutableFile(atPath: TestPaths.binary) else {
            throw XCTSkip("build tempera first (swift build)")
        }
        let probe = Spawn.run("/usr/bin/unshare", ["--net", "sh", "-c", Self.loopbackOnly])
        guard probe.status == 0 else { throw XCTSkip("no loopback-only network namespace here: \(probe.stderr)") }
        let dir = TestPaths.temporaryDirectory("link-join")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [ClipSlot(file: "none.wav")], span: 2)
        try DocumentFile.save(doc, to: dir + "/join.tempera")
        let gaps = ["0", "0.05", "0.15", "0.3", "0.6"]
        let script = Self.loopbackOnly + """

            cd "$D"
            for g in \(gaps.joined(separator: " ")); do
                "$T" link --bpm 140 --wait 3 > "peer.$N.$g" &
                P=$!
                for _ in $(seq 500); do grep -q ':5148 ' /proc/net/udp && break; sleep 0.01; done
                sleep "$g"
                "$T" play join.tempera --link --forever --audio null 2> "player.$N.$g" &
                J=$!
                wait $P
                kill -INT $J; wait $J
            done
            """
        let started = Date()
        var runs: [Process] = []
        for n in 1...4 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            p.arguments = ["--net", "sh", "-c", script]
            p.environment = ProcessInfo.processInfo.environment.merging(["T": TestPaths.binary, "D": dir, "N": "\(n)"]) { $1 }
            try p.run()
            runs.append(p)
        }
        for p in runs { p.waitUntilExit() }
        let seconds = Date().timeIntervalSince(started)
        var imposed: [String] = []
        var report: [String] = []
        for n in 1...4 {
            for g in gaps {
                let peer = (try? String(contentsOfFile: "\(dir)/peer.\(n).\(g)", encoding: .utf8)) ?? ""
                let player = (try? String(contentsOfFile: "\(dir)/player.\(n).\(g)", encoding: .utf8)) ?? ""
                // The peer's first line is the session it found, before it set 140 again.
                let found = peer.split(separator: "\n").first.map(String.init) ?? "(nothing)"
                let joined = player.split(separator: "\n").first { $0.contains("1 peer") }.map(String.init) ?? "(no peer)"
                report.append("\(g) s: peer \(found), player \(joined)")
                if found != "{\"peers\":1,\"bpm\":140.000}" || joined != "tempera: link: 1 peer at 140.00 BPM" {
                    imposed.append("run \(n) at \(g) s: peer \(found), player \(joined)")
                }
            }
        }
        print("Link join: \(imposed.count) of 20 runs set the session's tempo, in \(String(format: "%.1f", seconds)) s")
        XCTAssertEqual(imposed, [], report.joined(separator: "; "))
        XCTAssertLessThan(seconds, 40, "the 20 runs take well under a minute")
    }

    func testTheEditorWithLinkStartsOnTheSessionBarAndFollowsItsTempo() throws {
        let (dir, server) = try Self.prepare()
        defer {
            Spawn.run("/usr/bin/tmux", ["-L", Self.tmuxServer(dir), "kill-server"])
            server.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
        let s = try playUntilTogether(in: dir, server: server, editor: true, changes: [(120, 140)])
        XCTAssertTrue(s.changes.count == 2 && s.changes[1].hasSuffix("\"bpm\":140.000}"), "\(s.changes)")
        Self.assertTogether(s, changes: [(120, 140)])
    }

    /// Plays `playTogether` until the two were together, at most three times: a run in which a player underran,
    /// or the machine woke a thread tens of milliseconds late (`WakeProbe`), and which missed, is made again.
    func playUntilTogether(in dir: String, server: PulseTestServer, editor: Bool = false, song: Bool = false,
                           changes: [(Double, Double)]) throws -> Session {
        var attempt = 1
        while true {
            let probe = WakeProbe()
            let s = try playTogether(in: dir, server: server, editor: editor, song: song)
            let wakes = probe.stop()
            let missed = Self.together(s, changes: changes)
            guard attempt < 3, !missed.isEmpty, s.underruns || wakes.late > 0 else { return s }
            print(String(format: "Link: run %d missed (%@) with %@ and wakes up to %.1f ms late: again", attempt,
                         missed.joined(separator: "; "), s.underruns ? "an underrun" : "no underrun", wakes.worst * 1000))
            attempt += 1
        }
    }

    /// Tempo and phase, read from the recording: each tempo change followed by both within a second, and every
    /// onset of one within a millisecond of the other's.
    static func assertTogether(_ s: Session, changes: [(Double, Double)], file: StaticString = #filePath,
                               line: UInt = #line) {
        for failure in together(s, changes: changes, print: true) { XCTFail(failure, file: file, line: line) }
    }

    /// What `assertTogether` would fail on, each a line (with `print`, the figures printed first).
    static func together(_ s: Session, changes: [(Double, Double)], print printing: Bool = false) -> [String] {
        var failures: [String] = []
        // Tempo: read from the recording (whose first sample has no exact wall-clock time). A change shows as the
        // first beat, in either channel, that does not last the old tempo's beat; from then on each player must
        // play the new tempo's beats within a second.
        var report: [String] = []
        let from = Int(s.measureFrom * Self.rate)
        // Until the two were told to stop: an editor ended by tmux can play on a beat or more while it closes on a
        // loaded machine, the player after it.
        let to = Int(s.measureTo * Self.rate)
        let left = s.left.filter { $0 >= from && $0 <= to }, right = s.right.filter { $0 >= from && $0 <= to }
        var since = 0.0
        for (old, new) in changes {
            guard let change = [left, right].compactMap({ Self.firstChange($0, interval: 60 / old, after: since) }).min()
            else {
                failures.append("no change from \(old) BPM heard")
                break
            }
            var settledAt: [Double] = []
            for (name, o) in [("left", left), ("right", right)] {
                guard let at = Self.settled(o, interval: 60 / new, after: change) else {
                    failures.append("\(name) never settled at \(new) BPM")
                    continue
                }
                settledAt.append(at)
                report.append("\(name) at \(Int(new)) BPM \(String(format: "%.3f", at - change)) s after the change")
                if at - change >= 1.0 { failures.append("\(name) took \(at - change) s to follow \(new) BPM") }
            }
            if settledAt.count == 2 {
                report.append("apart by \(String(format: "%.3f", abs(settledAt[0] - settledAt[1]))) s")
            }
            since = settledAt.max() ?? change
        }

        // Phase: once the two have found each other, every onset of one has the other's within a millisecond.
        var worst = 0.0
        var k = 0
        for r in right {
            while k + 1 < left.count && abs(left[k + 1] - r) <= abs(left[k] - r) { k += 1 }
            let d = Double(r - left[k]) / Self.rate
            if abs(d) > abs(worst) { worst = d }
            if abs(d) > 0.0005 { report.append(String(format: "%.3f ms at %.3f s", d * 1000, Double(r) / Self.rate)) }
        }
        if abs(left.count - right.count) > 1 { failures.append("\(left.count) and \(right.count) beats: not the same on both sides") }
        if right.count < 15 { failures.append("\(right.count) beats on the right, 15 at least expected") }
        report.append("phase worst \(String(format: "%.3f", worst * 1000)) ms over \(right.count) onsets")
        report.append("left: " + s.logs[0].split(separator: "\n").joined(separator: " / "))
        report.append("right: " + s.logs[1].split(separator: "\n").joined(separator: " / "))
        if printing { print("Link: " + report.joined(separator: "; ")) }
        if abs(worst) >= 0.001 { failures.append("phase off by \(worst) s: " + report.joined(separator: "; ")) }
        return failures
    }
}
