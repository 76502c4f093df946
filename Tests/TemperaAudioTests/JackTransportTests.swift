import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// JACK transport through a private server: tempera following a test client's transport, and leading it as
/// timebase master while the client reads bar, beat and tick.
final class JackTransportTests: JackTestCase {
    override var directoryName: String { "jack-transport" }

    /// Four beats on a loop of 2 s at `bpm` (beat 0.5 s, meter 4), a 200-frame click on each.
    func beats(bpm: Double) throws -> Document {
        let slots = try clickSlots("beat")
        var t = Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2)
        t.beat = 0.5
        t.meter = 4
        t.tempo = bpm * t.beat / 60
        return Document(tracks: [Track(name: "t1", markers: MarkerList((0..<4).map {
            Marker(id: MarkerID($0), time: Double($0) * 0.5, amp: 1, content: .clip(1))
        }))], slots: slots, transport: t)
    }

    func testFollowingItStartsStopsAndRelocatesWithTheTransport() throws {
        let doc = try beats(bpm: 120)
        let server = try startServer()
        let rec = try server.startClient(transportLog: true)
        let engine = startEngine(doc, recorder: rec) { $0.jackTransport = .follow }
        XCTAssertEqual(engine.state.studio, "jack transport follow")
        rec.command("start")
        XCTAssertTrue(waitUntil(5) { engine.isPlaying }, "rolling plays")
        usleep(1_200_000)
        rec.command("stop")
        XCTAssertTrue(waitUntil(5) { !engine.isPlaying }, "stopped pauses")
        usleep(200_000)
        rec.command("locate:24000")
        usleep(200_000)
        rec.command("start")
        XCTAssertTrue(waitUntil(5) { engine.isPlaying })
        usleep(1_000_000)
        rec.command("stop")
        XCTAssertTrue(waitUntil(5) { !engine.isPlaying })
        usleep(100_000)
        engine.stop()
        let recording = try rec.finish()
        let heard = Onsets.soundStarts(recording.stereo).map(recording.frame)
        // Every beat sounds on the period frame where the transport's position is the beat's frame.
        let rolling = recording.transport.filter(\.rolling)
        var expected: [Int] = []
        for row in rolling {
            for k in 0..<16 {
                let beat = k * 24_000
                if beat >= row.position && beat < row.position + 256 { expected.append(row.frame + beat - row.position) }
            }
        }
        XCTAssertGreaterThan(expected.count, 3)
        XCTAssertEqual(heard, expected, "beats on the transport's frames, none while stopped")
        // The relocated start played from 0.5 s: its first beat is the one at 1 s.
        let second = rolling.first { $0.position >= 24_000 && $0.position < 24_256 }
        XCTAssertNotNil(second, "the transport rolled again from where it was located")
    }

    /// A song of two sections: A ([0, 1) twice at x1: 2 s) and B ([1, 2) twice, ramping from x0.5 to x1: about
    /// 2.8 s), looping; clicks on irregular times in both regions.
    func song() throws -> Document {
        let slots = try clickSlots("beat")
        let times = [0, 0.3, 0.55, 0.8, 1, 1.2, 1.45, 1.7]
        var doc = Document(tracks: [Track(name: "t1", markers: MarkerList(times.enumerated().map {
            Marker(id: MarkerID($0.offset), time: $0.element, amp: 1, content: .clip(1))
        }))], slots: slots, transport: Transport(tempo: 1, volume: 1, loopStart: 0, loopEnd: 2, loopOn: true, length: 2))
        var b = Song.Section(name: "B", start: 1, end: 2, repeats: 2, tempo: 0.5)
        b.tempoEnd = 1
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 1, repeats: 2, tempo: 1), b], on: true, loop: true)
        return doc
    }

    /// Following the transport while the song plays: a relocation (stopped, and while rolling) puts the music at the
    /// section, pass and time of the located frame in song time, so every onset sounds on the period frame where
    /// the transport's position is the onset's song frame (`SongSchedule`).
    func testFollowingRelocatesTheSongToTheSectionPassAndTimeOfTheLocatedFrame() throws {
        let doc = try song()
        let timing = SongSchedule(document: doc, sampleRate: 48_000)
        let onsets = (0..<2).flatMap { timing.onsets(songPass: $0) }.map { Int($0.frame) }
        let server = try startServer()
        let rec = try server.startClient(transportLog: true)
        let engine = startEngine(doc, recorder: rec) { $0.jackTransport = .follow }
        // Song time 3.8 s: section B's second pass (B's first pass ends where the ramp reaches x0.75, 4·ln 1.5 = 1.62 s
        // after B starts at 2 s).
        let located = 182_400
        let place = try XCTUnwrap(SongTiming(song: doc.song, tempo: 1).place(at: 3.8, looping: true))
        XCTAssertEqual(place.section, 1)
        XCTAssertEqual(place.pass, 1)
        rec.command("locate:\(located)")
        XCTAssertTrue(waitUntil(5) { engine.songPosition.map { $0.section == 1 && $0.pass == 1 } ?? false },
                      "stopped, the song stands at B's second pass")
        rec.command("start")
        XCTAssertTrue(waitUntil(5) { engine.isPlaying }, "rolling plays")
        // 0.8 s of frames (a loaded machine's server runs behind the wall clock).
        var f = engine.renderedFrames
        XCTAssertTrue(waitUntil(10) { engine.renderedFrames > f + 38_400 })
        // While rolling: back into A's first pass, then on through A and into B.
        rec.command("locate:24000")
        XCTAssertTrue(waitUntil(5) { engine.songPosition.map { $0.section == 0 && $0.pass == 0 } ?? false })
        f = engine.renderedFrames
        XCTAssertTrue(waitUntil(10) { engine.renderedFrames > f + 120_000 })
        rec.command("stop")
        XCTAssertTrue(waitUntil(5) { !engine.isPlaying }, "stopped pauses")
        usleep(100_000)
        engine.stop()
        let recording = try rec.finish()
        let heard = Onsets.soundStarts(recording.stereo).map(recording.frame)
        var expected: [Int] = []
        for row in recording.transport.filter(\.rolling) {
            for f in onsets where f >= row.position && f < row.position + 256 { expected.append(row.frame + f - row.position) }
        }
        // B's second pass from 1.8 s into it (its events at 1.2, 1.45 and 1.7 of the region lie ahead), then A from
        // 0.5 s (0.55, 0.8, then its second pass) and into B: more than 8 onsets.
        XCTAssertGreaterThan(expected.count, 8)
        XCTAssertEqual(heard, expected, "every onset on the frame where the transport stands at its song frame")
        let positions = recording.transport.filter(\.rolling).map(\.position)
        XCTAssertTrue(positions.contains { (located..<(located + 256)).contains($0) }, "rolled from the located frame")
        XCTAssertTrue(positions.contains { (24_000..<24_256).contains($0) }, "and from the frame located while rolling")
    }

    /// A song without song loop (A then B, about 4.8 s): the transport rolling past its end plays nothing (tempera
    /// stays stopped, nothing sounds), and located back inside it while rolling, the song plays from there to its
    /// end, then stops again with the transport still rolling.
    func testFollowingPastTheEndOfASongThatDoesNotLoopPlaysNothing() throws {
        var doc = try song()
        doc.song.loop = false
        let onsets = SongSchedule(document: doc, sampleRate: 48_000).onsets(songPass: 0).map { Int($0.frame) }
        let end = Int((SongTiming(song: doc.song, tempo: 1).total * 48_000).rounded())
        let server = try startServer()
        let rec = try server.startClient(transportLog: true)
        let engine = startEngine(doc, recorder: rec) { $0.jackTransport = .follow }
        rec.command("locate:\(end + 48_000)")
        usleep(200_000)
        rec.command("start")
        usleep(700_000)
        XCTAssertFalse(engine.isPlaying, "past the end: nothing to play")
        // Back to 0.4 s before the end, while rolling: the rest of the song, then stopped again.
        rec.command("locate:\(end - 19_200)")
        XCTAssertTrue(waitUntil(5) { engine.isPlaying })
        XCTAssertTrue(waitUntil(5) { !engine.isPlaying }, "the song ended")
        usleep(400_000)
        XCTAssertFalse(engine.isPlaying, "and stays ended while the transport rolls")
        rec.command("stop")
        usleep(100_000)
        engine.stop()
        let recording = try rec.finish()
        let heard = Onsets.soundStarts(recording.stereo).map(recording.frame)
        var expected: [Int] = []
        for row in recording.transport.filter(\.rolling) {
            for f in onsets where f >= row.position && f < row.position + 256 { expected.append(row.frame + f - row.position) }
        }
        XCTAssertGreaterThanOrEqual(expected.count, 1, "B's last beat (1.7 s in its second pass) is in the last 0.4 s")
        XCTAssertEqual(heard, expected)
    }

    func testLeadingAFollowerReadsTheRightBarBeatAndTick() throws {
        let doc = try beats(bpm: 123)
        let server = try startServer()
        let rec = try server.startClient(transportLog: true)
        let engine = startEngine(doc, recorder: rec) { $0.jackTransport = .lead }
        XCTAssertEqual(engine.state.studio, "jack transport lead")
        engine.play()
        usleep(2_500_000)
        engine.pause()
        usleep(200_000)
        engine.stop()
        let recording = try rec.finish()
        let rolling = recording.transport.filter(\.rolling)
        XCTAssertGreaterThan(rolling.count, 300, "about 2.5 s of periods rolled")
        let anchor = try XCTUnwrap(Onsets.soundStarts(recording.stereo).map(recording.frame).first)
        // JACK rolls a couple of periods after it is asked: its frame runs at a constant distance from the music.
        let lag = rolling[0].frame - anchor - rolling[0].position
        XCTAssertTrue((0...1_024).contains(lag), "\(lag)")
        for row in rolling {
            XCTAssertEqual(row.position, row.frame - anchor - lag, "the transport runs with the music")
            // Bar, beat and tick are the music's on this period.
            let beats = Double(row.frame - anchor) / 48_000 * 123 / 60
            let whole = Int(beats.rounded(.down))
            XCTAssertEqual(row.bar, whole / 4 + 1)
            XCTAssertEqual(row.beat, whole % 4 + 1)
            XCTAssertEqual(Double(row.tick), ((beats - Double(whole)) * 1920).rounded(.down), accuracy: 1)
            XCTAssertEqual(row.bpm, 123, accuracy: 1e-6)
        }
        XCTAssertFalse(recording.transport.last?.rolling ?? true, "paused: the transport stopped")
    }
}
