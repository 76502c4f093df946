import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// MIDI clock through a private JACK server: what tempera sends (`--clock out`), recorded with frame times.
final class JackClockTests: JackTestCase {
    override var directoryName: String { "jack-clock" }

    /// Plays `doc` through a private server with clock out on, recording it: `playing` frames, a pause of 0.3 s,
    /// a continue and a second more (counted in frames rendered: a loaded machine's server runs behind the wall
    /// clock), then a pause.
    func recordClockOut(_ doc: Document, playing: Int) throws -> JackRecording {
        let server = try startServer()
        let rec = try server.startClient()
        let engine = startEngine(doc, recorder: rec) { $0.sendsClock = true }
        XCTAssertEqual(engine.state.studio, "jack clock out", "what the transport bar says")
        let f0 = engine.renderedFrames
        engine.play()
        XCTAssertTrue(waitUntil(15) { engine.renderedFrames > f0 + playing })
        engine.pause()
        usleep(300_000)
        engine.play()
        let f1 = engine.renderedFrames
        XCTAssertTrue(waitUntil(10) { engine.renderedFrames > f1 + 48_000 })
        engine.pause()
        usleep(100_000)
        engine.stop()
        return try rec.finish()
    }

    /// A clock sender's messages: Start at frame 0, a clock on each of the `ideal` frames, every one but the first
    /// moved by up to ±2 ms (±96 frames, drawn from `seed`), and Stop one tick after the last clock.
    func jitteredClocks(_ ideal: [Double], lastTick: Double, seed: UInt64) -> [(frame: Int, bytes: [UInt8])] {
        var random = SeededRandom(seed: seed)
        var sends: [(frame: Int, bytes: [UInt8])] = [(0, [0xFA])]
        for (n, f) in ideal.enumerated() {
            sends.append((max(0, Int(f.rounded()) + (n == 0 ? 0 : Int.random(in: -96...96, using: &random))), [0xF8]))
        }
        sends.append((Int(ideal.last! + lastTick), [0xFC]))
        return sends
    }

    /// A loop of 2 s at `bpm` (beat 0.5 s) with a click sample at 0: its onset marks where the music starts.
    func anchoredLoop(bpm: Double) throws -> Document {
        let slots = try clickSlots("anchor")
        var t = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2)
        t.beat = 0.5
        t.tempo = bpm * t.beat / 60
        return Document(tracks: [Track(name: "t1", markers: MarkerList([Marker(id: 0, time: 0, amp: 1, content: .clip(1))]))],
                        slots: slots, transport: t)
    }

    func testClockOutAt123BpmPutsEveryClockOnItsFormulasFrameWithStartStopSongPositionAndContinue() throws {
        let doc = try anchoredLoop(bpm: 123)
        let recording = try recordClockOut(doc, playing: 72_000)

        let anchor = try XCTUnwrap(Onsets.soundStarts(recording.stereo).map(recording.frame).first)
        let messages = recording.midi.filter { $0.bytes.first.map { $0 >= 0xF0 } ?? false }
        let tick = 60.0 / 123 / 24 * 48_000
        // Start on the music's first frame, then clock 0 on the same frame.
        XCTAssertEqual(messages.first?.bytes, [0xFA])
        XCTAssertEqual(messages.first?.frame, anchor)
        let stops = messages.enumerated().filter { $0.element.bytes == [0xFC] }.map(\.offset)
        XCTAssertEqual(stops.count, 2)
        let firstRun = messages[1..<stops[0]]
        XCTAssertGreaterThan(firstRun.count, 24 * 2, "more than two beats of clocks")
        for (n, m) in firstRun.enumerated() {
            XCTAssertEqual(m.bytes, [0xF8])
            let formula = Double(anchor) + (Double(n) * tick).rounded()
            XCTAssertEqual(Double(m.frame), formula, accuracy: 1, "clock \(n)")
        }
        // Paused: the music stands where the Stop is; playing again goes on from there.
        let stopFrame = messages[stops[0]].frame
        let standing = Double(stopFrame - anchor) / 48_000 * (123.0 / 120)   // music seconds at x1
        let position = messages[stops[0] + 1]
        let resume = messages[stops[0] + 2]
        XCTAssertEqual(position.bytes.first, 0xF2)
        XCTAssertEqual(resume.bytes, [0xFB])
        XCTAssertEqual(position.frame, resume.frame)
        let sixteenths = Int(position.bytes[1]) | Int(position.bytes[2]) << 7
        XCTAssertEqual(sixteenths, Int((standing / (0.5 / 4)).rounded(.up)), "the next sixteenth from where it stood")
        let secondRun = messages[(stops[0] + 3)..<stops[1]]
        XCTAssertGreaterThan(secondRun.count, 24)
        for (k, m) in secondRun.enumerated() {
            XCTAssertEqual(m.bytes, [0xF8])
            let music = Double(sixteenths * 6 + k) * 0.5 / 24
            let formula = Double(resume.frame) + ((music - standing) / (123.0 / 120) * 48_000).rounded()
            XCTAssertEqual(Double(m.frame), formula, accuracy: 1, "clock \(sixteenths * 6 + k)")
        }
    }

    /// Through a tempo ramp (90 to 120 BPM, linear over the loop's two bars of 4 beats, beat 0.5 s): clock n is on
    /// the frame where the music reaches n·beat/24, through the ramp's closed-form play time, pass after pass; a
    /// pause and a continue send Stop, Song Position and Continue on their frames.
    func testClockOutThroughALinearRampPutsEveryClockOnItsFormulasFrame() throws {
        var doc = try anchoredLoop(bpm: 90)
        doc.transport.loopEnd = 4
        doc.transport.length = 4
        // Tempo (x1 = 120 BPM at this beat) 0.75 at 0, rising linearly to 1 at 4 s: 90 to 120 BPM.
        doc.transport.tempoMap = TempoMap([TempoMap.Point(time: 0, tempo: 0.75, shape: .linear),
                                           TempoMap.Point(time: 4, tempo: 1)])
        let span = 4.0, tau0 = 0.75, k = (1 - 0.75) / 4
        // The play time of music m (seconds at x1 from pass 0's start, unwrapped): P(0, x) = ln(τ(x)/τ0) / k per pass.
        let passPlay = log(1 / tau0) / k
        func play(_ m: Double) -> Double {
            let pass = (m / span).rounded(.down), x = m - pass * span
            return pass * passPlay + log((tau0 + k * x) / tau0) / k
        }
        // Its inverse: the music at play time s.
        func music(_ s: Double) -> Double {
            let pass = (s / passPlay).rounded(.down), r = s - pass * passPlay
            return pass * span + tau0 * (exp(k * r) - 1) / k
        }
        // Through the ramp (4.6 s) and a second into the next pass.
        let recording = try recordClockOut(doc, playing: 48_000 * 6)

        let anchor = try XCTUnwrap(Onsets.soundStarts(recording.stereo).map(recording.frame).first)
        let messages = recording.midi.filter { $0.bytes.first.map { $0 >= 0xF0 } ?? false }
        XCTAssertEqual(messages.first?.bytes, [0xFA], "Start")
        XCTAssertEqual(messages.first?.frame, anchor, "Start on the music's first frame")
        let stops = messages.enumerated().filter { $0.element.bytes == [0xFC] }.map(\.offset)
        XCTAssertEqual(stops.count, 2)
        let firstRun = messages[1..<stops[0]]
        XCTAssertGreaterThan(firstRun.count, 24 * 8 + 24, "the whole ramp's 8 beats of clocks and more")
        var gaps: [Int] = []
        for (n, m) in firstRun.enumerated() {
            XCTAssertEqual(m.bytes, [0xF8])
            let formula = Double(anchor) + (play(Double(n) * 0.5 / 24) * 48_000).rounded()
            XCTAssertEqual(Double(m.frame), formula, accuracy: 1, "clock \(n)")
            if n > 0 { gaps.append(m.frame - firstRun[firstRun.startIndex + n - 1].frame) }
        }
        // The clocks speed up through the ramp: about 1,333 frames apart at 90 BPM, 1,000 at 120 (a rounding each end).
        func clockFrames(bpm: Double) -> Double { 48_000 * 60 / bpm / 24 }
        XCTAssertEqual(Double(gaps[0]), clockFrames(bpm: 90), accuracy: 4)
        XCTAssertEqual(Double(gaps[24 * 8 - 2]), clockFrames(bpm: 120), accuracy: 4)
        XCTAssertEqual(Double(gaps[24 * 8]), clockFrames(bpm: 90), accuracy: 4, "the next pass starts at 90 again")

        // Paused in the second pass: Song Position (the next sixteenth from where the music stood) and Continue on
        // the frame playing resumes, then the clocks on through the ramp from there.
        let standing = music(Double(messages[stops[0]].frame - anchor) / 48_000)
        let position = messages[stops[0] + 1]
        let resume = messages[stops[0] + 2]
        XCTAssertEqual(position.bytes.first, 0xF2)
        XCTAssertEqual(resume.bytes, [0xFB])
        XCTAssertEqual(position.frame, resume.frame)
        let sixteenths = Int(position.bytes[1]) | Int(position.bytes[2]) << 7
        XCTAssertEqual(sixteenths, Int((standing / (0.5 / 4)).rounded(.up)))
        let secondRun = messages[(stops[0] + 3)..<stops[1]]
        XCTAssertGreaterThan(secondRun.count, 24)
        for (n, m) in secondRun.enumerated() {
            XCTAssertEqual(m.bytes, [0xF8])
            let at = Double(sixteenths * 6 + n) * 0.5 / 24
            let formula = Double(resume.frame) + ((play(at) - play(standing)) * 48_000).rounded()
            XCTAssertEqual(Double(m.frame), formula, accuracy: 1, "clock \(sixteenths * 6 + n)")
        }
    }

    /// A sender at 97 BPM whose clocks wander ±2 ms, then at 120 BPM: tempera's beats (onsets on every beat) land
    /// within 1 ms of the sender's from the third beat on, and again one beat after the change.
    func testClockInFollowsAJitteryClockWithinAMillisecondAfterTwoBeatsAndATempoChangeWithinABeat() throws {
        let slots = try clickSlots("beat")
        var t = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2)
        t.beat = 0.5
        let doc = Document(tracks: [Track(name: "t1", markers: MarkerList((0..<4).map {
            Marker(id: MarkerID($0), time: Double($0) * 0.5, amp: 1, content: .clip(1))
        }))], slots: slots, transport: t)

        // The sender's clocks: Start, then 8 beats at 97 BPM and 6 at 120, each clock off by up to ±2 ms.
        let slow = 60.0 / 97 / 24 * 48_000, fast = 60.0 / 120 / 24 * 48_000
        var ideal: [Double] = []
        for n in 0..<(24 * 14) { ideal.append(n < 192 ? Double(n) * slow : 192 * slow + Double(n - 192) * fast) }
        let sends = jitteredClocks(ideal, lastTick: fast, seed: 0x5eed)

        let server = try startServer()
        let rec = try server.startClient()
        let engine = startEngine(doc, recorder: rec) { $0.followsClock = true }
        let sender = try server.startClient(name: "clock", send: sends, onlySend: true, lead: 9_600)
        XCTAssertNotNil(sender.waitReady())
        // The editor's part: the engine takes the clock's tempo as it is looked at.
        XCTAssertTrue(waitUntil(20) { _ = engine.isPlaying; return engine.clockTempo != nil && !engine.isPlaying && engine.renderedFrames > 48_000 * 7 })
        XCTAssertTrue(engine.state.studio.hasPrefix("jack clock in 1"), engine.state.studio)
        XCTAssertEqual(try XCTUnwrap(engine.clockTempo), 120, accuracy: 0.3)
        usleep(100_000)
        engine.stop()
        let sent = try sender.finish().sent
        let recording = try rec.finish()
        XCTAssertEqual(sent.count, sends.count)
        let start = sent[0]
        let beats = Onsets.soundStarts(recording.stereo).map(recording.frame)
        func beatFrame(_ k: Int) -> Double { Double(start) + ideal[24 * k] }
        var checked = 0
        for k in 2..<14 where k != 8 {
            let want = beatFrame(k)
            let nearest = beats.min { abs(Double($0) - want) < abs(Double($1) - want) }!
            XCTAssertEqual(Double(nearest), want, accuracy: 48, "beat \(k) within 1 ms of the sender's")
            checked += 1
        }
        XCTAssertEqual(checked, 11)
    }

    /// Following a clock at 132 BPM (±2 ms of jitter) through a song whose sections have their own tempos (A at
    /// x1.5, B ramping x0.6 to x1.2) and a document with a tempo map: the clock rules, as a Link session does.
    /// Every section plays at the clock's one tempo, and every beat of every section lands within 1 ms of the
    /// sender's from the third on, once each, across the sections' boundaries.
    func testClockInPlaysEverySectionOfASongAtTheClocksTempo() throws {
        let slots = try clickSlots("beat")
        var t = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2)
        t.beat = 0.5
        t.tempoMap = TempoMap([TempoMap.Point(time: 0, tempo: 0.7, shape: .linear), TempoMap.Point(time: 2, tempo: 1.3)])
        var doc = Document(tracks: [Track(name: "t1", markers: MarkerList((0..<4).map {
            Marker(id: MarkerID($0), time: Double($0) * 0.5, amp: 1, content: .clip(1))
        }))], slots: slots, transport: t)
        var b = Song.Section(name: "B", start: 1, end: 2, repeats: 1, tempo: 0.6)
        b.tempoEnd = 1.2
        // A twice, then B: six beats a song pass, the song looping.
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 1, repeats: 2, tempo: 1.5), b], on: true, loop: true)

        let beats = 14
        let tick = 60.0 / 132 / 24 * 48_000
        let sends = jitteredClocks((0..<(24 * beats)).map { Double($0) * tick }, lastTick: tick, seed: 0xbea7)

        let server = try startServer()
        let rec = try server.startClient()
        let engine = startEngine(doc, recorder: rec) { $0.followsClock = true }
        let sender = try server.startClient(name: "clock", send: sends, onlySend: true, lead: 9_600)
        XCTAssertNotNil(sender.waitReady())
        var sections = Set<Int>()
        XCTAssertTrue(waitUntil(20) {
            _ = engine.isPlaying
            if let s = engine.songPosition, engine.isPlaying { sections.insert(s.section) }
            return engine.clockTempo != nil && !engine.isPlaying && engine.renderedFrames > 48_000 * 6
        })
        XCTAssertEqual(sections, [0, 1], "both sections played")
        XCTAssertEqual(try XCTUnwrap(engine.clockTempo), 132, accuracy: 0.3)
        usleep(100_000)
        engine.stop()
        let sent = try sender.finish().sent
        let recording = try rec.finish()
        XCTAssertEqual(sent.count, sends.count)
        let heard = Onsets.soundStarts(recording.stereo).map(recording.frame)
        func beatFrame(_ k: Int) -> Double { Double(sent[0]) + Double(24 * k) * tick }
        for k in 2..<beats {
            let want = beatFrame(k)
            let near = heard.filter { abs(Double($0) - want) < tick * 12 }
            XCTAssertEqual(near.count, 1, "beat \(k) sounds once")
            if let f = near.first { XCTAssertEqual(Double(f), want, accuracy: 48, "beat \(k) within 1 ms of the sender's") }
        }
    }
}
