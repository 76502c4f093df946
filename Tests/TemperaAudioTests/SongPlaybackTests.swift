import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// The song as heard: the offline render and the engine put every onset on the frame of
/// `SongSchedule`, section after section, each at its own tempo.
final class SongPlaybackTests: XCTestCase {
    var dir = ""
    var click = ""
    var servers: [PulseTestServer] = []

    override func setUp() {
        dir = TestPaths.temporaryDirectory("song")
        click = try! Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "click.wav")
    }

    override func tearDown() {
        for s in servers { s.stop() }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// The manual's song example: clicks at 0, sqrt(2)/4, 2.5 and 3; sections [0,2) x2 at x1, [2,3.5) x3 at x1.25,
    /// [0,2) x1 at x0.8, the song on and looping.
    func specDocument() -> Document {
        var doc = Fixture.document(tracks: [[(0, .clip(1)), (2.0.squareRoot() / 4, .clip(1)), (2.5, .clip(1)),
                                             (3, .clip(1))]], slots: [ClipSlot(file: click)], span: 4)
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 2, tempo: 1),
                                   Song.Section(name: "B", start: 2, end: 3.5, repeats: 3, tempo: 1.25),
                                   Song.Section(name: "A", start: 0, end: 2, repeats: 1, tempo: 0.8)],
                        on: true, loop: true)
        return doc
    }

    /// A short song with a tempo change at its section boundary: [0, 0.5) twice at x1, then [0.5, 0.9) twice at
    /// x1.25; clicks on irregular times.
    func shortSong(loop: Bool = false) -> Document {
        var doc = Fixture.document(tracks: [[(0, .clip(1)), (0.1111, .clip(1)), (2.0.squareRoot() / 8, .clip(1)),
                                             (0.5, .clip(1)), (0.62, .clip(1)), (0.8, .clip(1))]],
                                   slots: [ClipSlot(file: click)], span: 1, volume: 0.9, amp: 0.7)
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 0.5, repeats: 2),
                                   Song.Section(name: "B", start: 0.5, end: 0.9, repeats: 2, tempo: 1.25)],
                        on: true, loop: loop)
        return doc
    }

    func frames(_ doc: Document, rate: Double, passes: Int) -> [Int] {
        let s = SongSchedule(document: doc, sampleRate: rate)
        return (0..<passes).flatMap { s.onsets(songPass: $0) }.map { Int($0.frame) }
    }

    func testTheRenderPutsEveryOnsetOfTwoSongPassesOnItsFrameAt44100And48000() {
        let doc = specDocument()
        for rate in [44_100.0, 48_000] {
            let r = OfflineRenderer(document: doc, baseDirectory: dir, sampleRate: rate, loops: 2, maxTail: 0)
            let out = r.renderAll()
            XCTAssertEqual(out.count / 2, Int((2 * 10.1 * rate).rounded()))
            XCTAssertEqual(Onsets.soundStarts(out), frames(doc, rate: rate, passes: 2), "at \(rate) Hz")
        }
        XCTAssertEqual(frames(doc, rate: 44_100, passes: 1)[4...5], [194_040, 211_680])
    }

    func testTheEngineOnTheNullOutputPlaysTheSongAsTheRenderDoesAndStopsAtItsEnd() {
        let doc = shortSong()
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        _ = pump(engine, 4_800)
        engine.play()
        let offline = OfflineRenderer(document: doc, baseDirectory: dir, loops: 1, maxTail: 1).renderAll()
        let live = pump(engine, offline.count / 2)
        assertSamplesEqual(live, offline)
        XCTAssertEqual(Onsets.soundStarts(live), frames(doc, rate: 48_000, passes: 1))
        _ = pump(engine, 256)
        XCTAssertTrue(engine.isFinished, "song loop off: one pass of the song, then stop")
    }

    func testWithSongLoopOnTheSongStartsAgainOnTheFormulasFrames() {
        let doc = shortSong(loop: true)
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        let out = pump(engine, Int(3 * 1.64 * 48_000))
        XCTAssertEqual(Onsets.soundStarts(out), frames(doc, rate: 48_000, passes: 3))
        XCTAssertTrue(engine.isPlaying)
    }

    func testAnEditToARegionWhileTheSongPlaysIsHeardAtItsNextPass() {
        var doc = shortSong()
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        // 0.3 s in: section A, pass 0, past the clicks at 0, 0.1111 and 0.1768.
        var out = pump(engine, 14_400)
        XCTAssertEqual(engine.songPosition?.section, 0)
        // Move the click at 0.1111 to 0.4 (ahead of the playhead: it already sounded, so it waits a pass) and add
        // one at 0.45 (new: heard in this pass).
        var markers = Array(doc.tracks[0].markers)
        markers[1].time = 0.4
        markers.append(Marker(id: 99, time: 0.45, amp: 0.7, content: .clip(1)))
        doc.tracks[0].markers = MarkerList(markers)
        engine.update(document: doc)
        out += pump(engine, Int(1.64 * 48_000) - 14_400)
        let expected = [0, 5_333, 8_485,            // pass 0 before the edit
                        21_600,                     // 0.45, new; 0.4 already sounded in this pass
                        24_000, 32_485, 43_200, 45_600,   // pass 1 of A, edited
                        48_000, 52_608, 59_520,     // B at x1.25: 0.5, 0.62, 0.8
                        63_360, 67_968, 74_880]
        XCTAssertEqual(Onsets.soundStarts(out), expected)
    }

    func testJumpingToASectionStartsItsFirstPassAtTheNextBlock() {
        let doc = shortSong()
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        var out = pump(engine, 4_800)   // 0.1 s into A
        engine.jump(toSection: 1)
        out += pump(engine, 30_720)
        XCTAssertEqual(engine.songPosition?.section, 1)
        // Section B's onsets, 0.5 → 0, 0.62 → 0.096 s, 0.8 → 0.24 s at x1.25, from frame 4800; then its pass 1.
        XCTAssertEqual(Onsets.soundStarts(out), [0, 4_800, 4_800 + 4_608, 4_800 + 11_520,
                                                 4_800 + 15_360, 4_800 + 19_968, 4_800 + 26_880])
        XCTAssertEqual(engine.songPosition?.pass, 1)
    }

    func testAJumpSentWithTheEditThatTurnsTheSongOnWaitsForTheSong() {
        var doc = shortSong()
        doc.song.on = false
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        var out = pump(engine, 4_800)
        // The jump reaches the ring before the song's snapshot is published.
        engine.jump(toSection: 1)
        doc.song.on = true
        engine.update(document: doc)
        out += pump(engine, 9_600)
        XCTAssertEqual(engine.songPosition?.section, 1)
        XCTAssertEqual(Onsets.soundStarts(out), [0, 4_800, 4_800 + 4_608])
    }

    func testASectionTempoChangeWhileItPlaysReanchorsAtTheMusicalPosition() {
        var doc = shortSong()
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        // 1.1 s in: section B (x1.25) pass 0, 0.125 s of region time past its start, the click at 0.5 played.
        var out = pump(engine, 52_800)
        doc.song.sections[1].tempo = 0.5
        engine.update(document: doc)
        out += pump(engine, 96_000)
        // The playhead is at 0.5 + 0.1 * 1.25 = 0.625 s on the timeline, past 0.62. From here B plays at x0.5:
        // 0.8 comes 0.175 s of timeline later = 0.35 s = 16,800 frames; B's pass 1 starts 0.275 s of timeline
        // later (0.55 s, 26,400 frames), its clicks at 0.62 and 0.8 following at x0.5.
        let change = 52_800
        XCTAssertEqual(Onsets.soundStarts(out), [0, 5_333, 8_485, 24_000, 29_333, 32_485,   // A twice
                                                 48_000, 52_608,                          // B: 0.5 and 0.62 at x1.25
                                                 change + 16_800,                         // 0.8 at x0.5
                                                 change + 26_400, change + 37_920, change + 55_200])  // B pass 1
    }

    func testTheSongShiftCountsWhatATimingEditAndAJumpMovedTheSongTimeByAndNotANudge() {
        var doc = shortSong()
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        _ = pump(engine, 52_800)
        XCTAssertEqual(engine.playheadClock.song, 1.1, accuracy: 1e-9)
        XCTAssertEqual(engine.playheadClock.songShift, 0)
        // 0.125 s of B's timeline past its start: 1.1 s of song time at x1.25, 1 + 0.25 = 1.25 s at x0.5.
        doc.song.sections[1].tempo = 0.5
        engine.update(document: doc)
        _ = pump(engine, 4_800)
        let edited = engine.playheadClock
        XCTAssertEqual(edited.songShift, 0.15, accuracy: 0.5 / 48_000)
        // Song time less the shift is the output's own time since the start: 57,600 frames.
        XCTAssertEqual(edited.song - edited.songShift, 1.2, accuracy: 1e-9)
        engine.nudge(seconds: 0.01)
        _ = pump(engine, 4_800)
        let nudged = engine.playheadClock
        XCTAssertEqual(nudged.songShift, edited.songShift)
        XCTAssertEqual(nudged.song - nudged.songShift, 1.29, accuracy: 1e-9)
        engine.jump(toSection: 0)
        _ = pump(engine, 4_800)
        let jumped = engine.playheadClock
        XCTAssertEqual(jumped.song, 0.1, accuracy: 1e-9)
        XCTAssertEqual(jumped.song - jumped.songShift, 1.39, accuracy: 1e-9)
        engine.rewind()
        _ = pump(engine, 480)
        XCTAssertEqual(engine.playheadClock.songShift, 0, "a start from the beginning counts from nothing")
    }

    func testTurningTheSongOnWhileTheLoopPlaysStartsTheSongFromItsBeginning() {
        var doc = shortSong()
        doc.song.on = false
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        var out = pump(engine, 30_000)
        doc.song.on = true
        engine.update(document: doc)
        out += pump(engine, 30_000)
        let loop = Schedule(document: { var d = doc; d.song.on = false; return d }(), sampleRate: 48_000)
            .onsets(loops: 1).map { Int($0.frame) }.filter { $0 < 30_000 }
        let song = frames(doc, rate: 48_000, passes: 1).map { $0 + 30_000 }.filter { $0 < 60_000 }
        XCTAssertEqual(Onsets.soundStarts(out), loop + song)
        XCTAssertEqual(engine.songPosition?.section, 0)
        XCTAssertEqual(engine.songPosition?.pass, 1, "0.625 s into the song: A's second pass")
    }

    // MARK: - PulseAudio

    func testTheLiveRecordingEqualsTheRenderAcrossATempoChangeAtASectionBoundary() throws {
        let server = try PulseTestServer()
        servers.append(server)
        let doc = shortSong()
        let offline = OfflineRenderer(document: doc, baseDirectory: dir, loops: 2).renderAll()
        let expectedOnsets = frames(doc, rate: 48_000, passes: 2)
        let heard = try server.recordPlayback(of: doc, baseDirectory: dir, loops: 2, in: dir)
        XCTAssertEqual(heard.underruns, 0)
        let played = try XCTUnwrap(heard.aligned(with: offline), "nothing was recorded, or too little")
        XCTAssertEqual(Onsets.soundStarts(played), expectedOnsets)
        // The tempo changes where section B starts: 1 s into each pass of the song.
        XCTAssertTrue(expectedOnsets.contains(48_000))
        assertSamplesEqual(played, offline, accuracy: 1e-6)
    }
}
