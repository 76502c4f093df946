import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Following the studio through a private JACK server: a MIDI clock that loses, doubles or delays a clock, a
/// clock from `jack_midi_clock`, the transport's small wavering, and MIDI in's hits for takes (their latency, and
/// the ones a flood drops).
final class JackFollowTests: JackTestCase {
    override var directoryName: String { "jack-follow" }

    /// A loop of 2 s (beat 0.5 s) with a 200-frame click on each of its 4 beats.
    func beats() throws -> Document {
        let slots = try clickSlots("beat")
        var t = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2)
        t.beat = 0.5
        return Document(tracks: [Track(name: "t1", markers: MarkerList((0..<4).map {
            Marker(id: MarkerID($0), time: Double($0) * 0.5, amp: 1, content: .clip(1))
        }))], slots: slots, transport: t)
    }

    /// A clock at 120 BPM (±1 ms of jitter) that loses clock 110, sends clock 206 twice and clock 300 half a clock
    /// late: every beat from the third on lands within 1 ms of the sender's, the ones right after each fault too.
    func testClockInAbsorbsALostADoubledAndALateClockWithinTheNextBeat() throws {
        let tick = 60.0 / 120 / 24 * 48_000
        var random = SeededRandom(seed: 0xc10c)
        var sends: [(frame: Int, bytes: [UInt8])] = [(0, [0xFA])]
        let count = 24 * 16
        for n in 0..<count where n != 110 {
            var f = Int((Double(n) * tick).rounded()) + (n == 0 ? 0 : Int.random(in: -48...48, using: &random))
            if n == 300 { f += Int(tick / 2) }
            sends.append((max(0, f), [0xF8]))
            if n == 206 { sends.append((max(0, f), [0xF8])) }
        }
        sends.append((Int(Double(count) * tick), [0xFC]))

        let server = try startServer()
        let rec = try server.startClient()
        let engine = startEngine(try beats(), recorder: rec) { $0.followsClock = true }
        let sender = try server.startClient(name: "clock", send: sends, onlySend: true, lead: 9_600)
        XCTAssertNotNil(sender.waitReady())
        XCTAssertTrue(waitUntil(25) { _ = engine.isPlaying; return !engine.isPlaying && engine.renderedFrames > 48_000 * 9 })
        usleep(100_000)
        engine.stop()
        let sent = try sender.finish().sent
        let recording = try rec.finish()
        XCTAssertEqual(sent.count, sends.count)
        let heard = Onsets.soundStarts(recording.stereo).map(recording.frame)
        for k in 2..<16 {
            let want = Double(sent[0]) + Double(24 * k) * tick
            let near = heard.filter { abs(Double($0) - want) < tick * 12 }
            XCTAssertEqual(near.count, 1, "beat \(k) sounds once")
            if let f = near.first { XCTAssertEqual(Double(f), want, accuracy: 48, "beat \(k) within 1 ms of the sender's") }
        }
    }

    /// `jack_midi_clock` (at 132 BPM) started by the transport: tempera starts on its Start and every beat from the
    /// third lands within 1 ms of the generator's beats (the line through its clocks).
    func testClockInFollowsJackMidiClock() throws {
        let tool = "/usr/bin/jack_midi_clock"
        guard FileManager.default.isExecutableFile(atPath: tool) else { throw XCTSkip("jack_midi_clock is not installed") }
        let server = try startServer()
        let rec = try server.startClient(midiPorts: [])
        let engine = startEngine(try beats(), recorder: rec) { $0.followsClock = true }
        let clock = Process()
        clock.executableURL = URL(fileURLWithPath: tool)
        clock.arguments = ["-b", "132", "-B", "tempera:midi_in", "rec:midi_in"]
        clock.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": server.name]) { $1 }
        clock.standardOutput = FileHandle.nullDevice
        clock.standardError = FileHandle.nullDevice
        try clock.run()
        defer { if clock.isRunning { clock.terminate(); clock.waitUntilExit() } }
        usleep(500_000)
        rec.command("start")
        XCTAssertTrue(waitUntil(10) { engine.isPlaying })
        let f0 = engine.renderedFrames
        XCTAssertTrue(waitUntil(15) { engine.renderedFrames > f0 + 48_000 * 4 })
        rec.command("stop")
        XCTAssertTrue(waitUntil(5) { !engine.isPlaying })
        engine.stop()
        let recording = try rec.finish()
        let messages = recording.midi.filter { $0.bytes == [0xF8] || $0.bytes == [0xFA] }
        let start = try XCTUnwrap(messages.firstIndex { $0.bytes == [0xFA] })
        let clocks = messages[(start + 1)...].filter { $0.bytes == [0xF8] }.map(\.frame)
        XCTAssertGreaterThan(clocks.count, 24 * 6)
        let heard = Onsets.soundStarts(recording.stereo).map(recording.frame)
        let tick = 60.0 / 132 / 24 * 48_000
        // The generator's beats without its jitter: the straight line through all its clocks.
        let n = Double(clocks.count)
        let xs: [Double] = (0..<clocks.count).map { Double($0) }
        let ys: [Double] = clocks.map { Double($0) }
        let mx: Double = xs.reduce(0, +) / n
        let my: Double = ys.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for (x, y) in zip(xs, ys) {
            sxy += (x - mx) * (y - my)
            sxx += (x - mx) * (x - mx)
        }
        let slope = sxy / sxx
        XCTAssertEqual(slope, tick, accuracy: 5, "about 132 BPM")
        var checked = 0
        for k in 2..<(clocks.count / 24) {
            let want = my + slope * (Double(24 * k) - mx)
            let near = heard.filter { abs(Double($0) - want) < tick * 12 }
            XCTAssertEqual(near.count, 1, "beat \(k) sounds once")
            if let f = near.first { XCTAssertEqual(Double(f), want, accuracy: 48, "beat \(k) within 1 ms of the generator's") }
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 4)
    }

    /// Following the transport with clock out on: the transport moved by 100 frames while rolling (the server's
    /// frame time wavering) is no relocation, and clock followers hear no Stop, Song Position and Continue; moved
    /// by 2 s it is one, and they do.
    func testClockFollowersHearARelocationOnlyWhenTheTransportReallyMoves() throws {
        let server = try startServer()
        let rec = try server.startClient(transportLog: true)
        let engine = startEngine(try beats(), recorder: rec) {
            $0.jackTransport = .follow
            $0.sendsClock = true
        }
        rec.command("start")
        XCTAssertTrue(waitUntil(5) { engine.isPlaying })
        var f = engine.renderedFrames
        XCTAssertTrue(waitUntil(10) { engine.renderedFrames > f + 24_000 })
        rec.command("nudge:100")
        f = engine.renderedFrames
        XCTAssertTrue(waitUntil(10) { engine.renderedFrames > f + 24_000 })
        rec.command("nudge:96000")
        f = engine.renderedFrames
        XCTAssertTrue(waitUntil(10) { engine.renderedFrames > f + 24_000 })
        rec.command("stop")
        XCTAssertTrue(waitUntil(5) { !engine.isPlaying })
        usleep(100_000)
        engine.stop()
        let recording = try rec.finish()
        let positions = recording.transport.filter(\.rolling).map(\.position)
        let steps = zip(positions, positions.dropFirst()).map { $1 - $0 }.filter { $0 != 256 }
        // JACK takes a locate a period or two after it is asked (through Starting): the small one lands within a
        // period of where the transport would have been, the large one 2 s on.
        XCTAssertTrue(steps.contains { $0 > 0 && $0 < 512 }, "the transport moved by less than a period: \(steps)")
        XCTAssertTrue(steps.contains { $0 > 95_000 }, "and by 2 s: \(steps)")
        let system = recording.midi.filter { [0xFA, 0xFB, 0xFC, 0xF2].contains($0.bytes.first ?? 0) }.map { $0.bytes[0] }
        XCTAssertEqual(system, [0xFA, 0xFC, 0xF2, 0xFB, 0xFC], "Start, one relocation (the 2 s one), Stop")
    }

    /// The latency the output shows is the one MIDI in's hits are placed with; a flood of MIDI in (700 notes in
    /// a third of a second, nobody reading) keeps the ring's 512 and counts the 188 it dropped.
    func testTheLatencyShownIsTheOneUsedAndAFloodSaysHowManyNotesItDropped() throws {
        let a = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "a.wav")
        var snare = ClipSlot(name: "hit", file: a)
        snare.midiInNote = 38
        var slots = [snare]
        while slots.count < 16 { slots.append(ClipSlot()) }
        let doc = Document(tracks: [Track(name: "t1")], slots: slots,
                           transport: Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2))
        let sends = (0..<700).map { (frame: $0 * 24, bytes: [UInt8(0x99), 38, 100]) }
        let server = try startServer()
        let engine = AudioEngine(output: .jack)
        XCTAssertEqual(engine.load(document: doc, baseDirectory: dir), [])
        engine.start()
        XCTAssertTrue(waitUntil(5) { isRunning(engine) && engine.outputLatencyFrames > 0 })
        guard case .running(let shown) = engine.status else { return XCTFail("running") }
        XCTAssertEqual(shown, Double(engine.outputLatencyFrames) / 48, accuracy: 1e-9, "the latency shown, in ms")
        let sender = try server.startClient(name: "keys", send: sends, onlySend: true)
        XCTAssertNotNil(sender.waitReady())
        XCTAssertTrue(waitUntil(10) { engine.droppedMidiHits >= 188 })
        usleep(200_000)
        let hits = engine.takeMidiHits()
        XCTAssertEqual(hits.count, 512, "the ring's worth kept")
        XCTAssertEqual(engine.droppedMidiHits, 188, "and the rest counted")
        engine.stop()
        XCTAssertEqual(try sender.finish().sent.count, 700)
    }
}
