import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The real editor in a real terminal (tmux) on a private JACK server (`--audio jack`): MIDI in recorded into a
/// take, each note at the music heard on its arrival frame less the reported latency; `--transport follow` and
/// `--transport lead` with `--clock out`, the transport line naming what is in force.
final class JackEditorTmuxTests: XCTestCase {
    private var dir = ""
    private var server: JackTestServer?
    private var sessions: [TmuxSession] = []
    static let rate = 48_000.0

    override func setUpWithError() throws {
        dir = TestPaths.temporaryDirectory("jack-editor")
        try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
        server = try JackTestServer()
    }

    override func tearDown() {
        for s in sessions { s.kill() }
        // The editor's client gone first: a server stopped with a client still leaving takes seconds to quit.
        if let server {
            _ = waitUntil(5) { !self.ports(server).contains("tempera:") }
        }
        server?.stop()
        try? FileManager.default.removeItem(atPath: dir)
        if let server { try? FileManager.default.removeItem(atPath: server.dir) }
    }

    /// Starts `tempera ARGUMENTS` in a tmux session of its own on the private JACK server, and waits for its
    /// transport line to say it runs on JACK.
    func launch(_ arguments: [String], says studio: String) throws -> TmuxSession {
        let s = TmuxSession(server: "tempera-jack-editor-\(getpid())-\(UUID().uuidString.prefix(8))")
        sessions.append(s)
        let home = dir + "/home"
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: TestPaths.binary), "build the package first")
        let server = try XCTUnwrap(self.server)
        s.start("env JACK_DEFAULT_SERVER=\(server.name) HOME=\(home) XDG_CONFIG_HOME=\(home)/.config "
            + "XDG_STATE_HOME=\(home)/.state LANG=C.UTF-8 TERM=xterm-256color \(TestPaths.binary) "
            + arguments.map { "'\($0)'" }.joined(separator: " "), width: 120, height: 40)
        let line = s.wait(timeout: 10) { ($0.split(separator: "\n").first ?? "").contains(studio + " ") }
        XCTAssertTrue(line.met, "the transport line names \(studio): \(line.screen)")
        return s
    }

    func waitFor(_ s: TmuxSession, _ text: String, seconds: Double = 10) -> Bool {
        s.wait(timeout: seconds) { $0.contains(text) }.met
    }

    /// The playhead's position on the transport line ("1.234 s"), nil when none is shown.
    func position(_ s: TmuxSession) -> Double? {
        let screen = s.screen()
        guard let r = screen.range(of: #"[0-9]+\.[0-9]{3} s"#, options: .regularExpression) else { return nil }
        return Double(screen[r].dropLast(2))
    }

    /// Whether the playhead moves within a few tenths of a second.
    func moving(_ s: TmuxSession) -> Bool {
        let a = position(s)
        usleep(400_000)
        return a != position(s)
    }

    /// The playback latency JACK reports for tempera's `out_1`, in frames (`jack_lsp -l`).
    func reportedLatency() throws -> Int {
        let server = try XCTUnwrap(self.server)
        let text = Spawn.run("/usr/bin/jack_lsp", ["-l", "tempera:out_1"], environment: ["JACK_DEFAULT_SERVER": server.name]).stdout
        let r = try XCTUnwrap(text.range(of: #"playback latency = \[ *[0-9]+ +[0-9]+ *\]"#, options: .regularExpression), text)
        let numbers = text[r].split { !$0.isNumber }.compactMap { Int($0) }
        return try XCTUnwrap(numbers.last)
    }

    /// A loop of 2 s with an anchor click at 0 (slot 1) and a hit sound on slot 2 that MIDI note 38 plays.
    func document() throws -> Document {
        try AudioFile.write([Float](repeating: 0.5, count: 200), sampleRate: 48_000, to: dir + "/anchor.wav", as: .wavFloat)
        try AudioFile.write([Float](repeating: 0.25, count: 100), sampleRate: 48_000, to: dir + "/hit.wav", as: .wavFloat)
        var hit = ClipSlot(name: "hit", file: "hit.wav")
        hit.midiInNote = 38
        var slots = [ClipSlot(name: "anchor", file: "anchor.wav"), hit]
        while slots.count < 16 { slots.append(ClipSlot()) }
        var doc = Document(tracks: [Track(name: "loop", markers: MarkerList([Marker(id: 0, time: 0, amp: 1, content: .clip(1))]))],
                           slots: slots)
        doc.transport = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2)
        return doc
    }

    /// Armed on the Pads tab and playing, 8 note-ons sent by a test client on chosen frames over two passes of the
    /// loop: the saved take has each at the music heard on its arrival frame less the latency JACK reports, to the
    /// frame, with velocity v as amp v/127; the take is one undo step.
    func testMidiInRecordedFromTheEditorLandsAtTheArrivalFramesLessTheLatency() throws {
        let path = dir + "/doc.json"
        try DocumentFile.save(try document(), to: path)
        let s = try launch([path, "--audio", "jack"], says: "jack")
        let server = try XCTUnwrap(self.server)
        let rec = try server.startClient()
        XCTAssertNotNil(rec.waitReady())
        s.keys(["F7"])
        XCTAssertTrue(waitFor(s, "[pads]"), s.screen())
        s.keys(["BSpace", "Enter"])
        XCTAssertTrue(waitFor(s, "armed: Space starts the take"), s.screen())
        s.keys(["Space"])
        XCTAssertTrue(waitFor(s, "recording"), s.screen())
        let offsets = [1_000, 13_337, 30_001, 47_999, 70_123, 101_000, 130_555, 150_017]
        let velocities = [64, 127, 1, 100, 90, 33, 77, 120]
        let sends = zip(offsets, velocities).map { (frame: $0.0, bytes: [UInt8(0x99), 38, UInt8($0.1)]) }
        let sender = try server.startClient(name: "keys", send: sends, onlySend: true, lead: 4_800)
        XCTAssertNotNil(sender.waitReady())
        XCTAssertTrue(waitFor(s, "recording: 8 hits", seconds: 15), s.screen())
        let latency = try reportedLatency()
        s.keys(["Space"])
        XCTAssertTrue(waitFor(s, "take: 8 hits recorded, one undo step"), s.screen())
        s.keys(["C-s"])
        XCTAssertTrue(waitFor(s, "saved"), s.screen())
        let sent = try sender.finish().sent
        let recording = try rec.finish()
        XCTAssertEqual(sent.count, 8)
        XCTAssertGreaterThan(latency, 0)

        // The loop's first onset is its pass 0 at time 0.
        let heard = Onsets.soundStarts(recording.stereo).map(recording.frame)
        let anchor = try XCTUnwrap(heard.first)
        let pass = 96_000
        let expected = zip(sent, velocities).map { s, v in
            (time: Double((s - latency - anchor) % pass) / Self.rate, amp: Double(v) / 127)
        }.sorted { $0.time < $1.time }
        let saved = try DocumentFile.load(path)
        let hits = saved.tracks.flatMap(\.markers).filter { $0.content == .clip(2) }.sorted { $0.time < $1.time }
        XCTAssertEqual(hits.count, 8)
        for (h, e) in zip(hits, expected) {
            XCTAssertEqual(h.time * Self.rate, e.time * Self.rate, accuracy: 1e-6, "on its arrival frame less the latency")
            XCTAssertEqual(h.amp, e.amp, accuracy: 1e-9)
        }
        // Each note also sounded on its arrival frame.
        for f in sent { XCTAssertTrue(heard.contains(f), "a note sounds on its frame \(f)") }
    }

    /// `--transport follow`: the test client's transport starts, stops and locates the editor's playback (beats on
    /// the transport's frames), the transport line saying "jack transport follow". Then `--transport lead --clock
    /// out`: Space starts the JACK transport with the music's bar and beat and sends Start and clocks, Space stops
    /// both, the line saying "jack clock out transport lead".
    func testTheTransportFlagFollowsAndLeadsJackTransportAndTheTransportLineSaysSo() throws {
        var doc = try document()
        doc.transport.beat = 0.5
        doc.transport.meter = 4
        doc.tracks[0].markers = MarkerList((0..<4).map { Marker(id: MarkerID($0), time: Double($0) * 0.5, amp: 1, content: .clip(1)) })
        let path = dir + "/beats.json"
        try DocumentFile.save(doc, to: path)
        let server = try XCTUnwrap(self.server)

        let follower = try launch([path, "--audio", "jack", "--transport", "follow"], says: "jack transport follow")
        let rec = try server.startClient(transportLog: true)
        XCTAssertNotNil(rec.waitReady())
        XCTAssertFalse(moving(follower), "stopped before the transport rolls")
        rec.command("locate:12000")
        usleep(200_000)
        rec.command("start")
        XCTAssertTrue(moving(follower), "rolling plays")
        usleep(1_200_000)
        rec.command("stop")
        usleep(300_000)
        XCTAssertFalse(moving(follower), "stopped pauses")
        follower.kill()
        let recording = try rec.finish()
        let heard = Onsets.soundStarts(recording.stereo).map(recording.frame)
        var expected: [Int] = []
        for row in recording.transport.filter(\.rolling) {
            for k in 0..<16 where k * 24_000 >= row.position && k * 24_000 < row.position + 256 {
                expected.append(row.frame + k * 24_000 - row.position)
            }
        }
        XCTAssertGreaterThanOrEqual(expected.count, 2)
        XCTAssertEqual(heard, expected, "the beats on the frames where the transport stands at them, from 0.25 s")

        // The follower's client is gone before the leader opens its own.
        XCTAssertTrue(waitUntil(5) { !ports(server).contains("tempera:") })
        let leader = try launch([path, "--audio", "jack", "--transport", "lead", "--clock", "out"],
                                says: "jack clock out transport lead")
        let rec2 = try server.startClient(transportLog: true)
        XCTAssertNotNil(rec2.waitReady())
        leader.keys(["Space"])
        XCTAssertTrue(moving(leader))
        usleep(1_000_000)
        leader.keys(["Space"])
        usleep(400_000)
        let led = try rec2.finish()
        let rolling = led.transport.filter(\.rolling)
        XCTAssertGreaterThan(rolling.count, 100, "more than half a second of periods rolled (about 1.4 s)")
        XCTAssertFalse(led.transport.last?.rolling ?? true, "Space stopped the transport")
        let anchor = try XCTUnwrap(Onsets.soundStarts(led.stereo).map(led.frame).first)
        for row in rolling {
            let beats = Double(row.frame - anchor) / Self.rate * 120 / 60
            let whole = Int(beats.rounded(.down))
            XCTAssertEqual(row.bar, whole / 4 + 1)
            XCTAssertEqual(row.beat, whole % 4 + 1)
            XCTAssertEqual(row.bpm, 120, accuracy: 1e-6)
        }
        let system = led.midi.filter { $0.bytes.first.map { $0 >= 0xF0 } ?? false }
        XCTAssertEqual(system.first?.bytes, [0xFA], "Start")
        XCTAssertEqual(system.first?.frame, anchor, "on the music's first frame")
        XCTAssertEqual(system.last?.bytes, [0xFC], "Stop")
        XCTAssertGreaterThan(system.filter { $0.bytes == [0xF8] }.count, 24 * 2, "clocks between")
    }

    /// The server's ports (`jack_lsp`).
    func ports(_ server: JackTestServer) -> String {
        Spawn.run("/usr/bin/jack_lsp", [], environment: ["JACK_DEFAULT_SERVER": server.name]).stdout
    }
}
