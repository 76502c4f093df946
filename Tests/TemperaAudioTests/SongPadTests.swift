import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Pads while the song plays: the playhead clock counts song time across the sections, and a hit is placed in
/// the region of the section that was sounding when it was heard.
final class SongPadTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = TestPaths.temporaryDirectory("song-pads") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A [0,2) x2 at x1 (4 s), B [4,5) x3 at x2 (1.5 s), C [2,4) x1 at x0.5 (4 s): 9.5 s a pass of the song; a pad
    /// on slot 1.
    func engine(loop: Bool = false) throws -> AudioEngine {
        let a = try Fixture.wav(Fixture.block(frames: 300, level: 0.2), in: dir, name: "a.wav")
        var doc = Fixture.document(tracks: [[]], slots: [ClipSlot(file: a)], span: 5)
        doc.song = Song(sections: [Song.Section(name: "A", start: 0, end: 2, repeats: 2, tempo: 1),
                                   Song.Section(name: "B", start: 4, end: 5, repeats: 3, tempo: 2),
                                   Song.Section(name: "C", start: 2, end: 4, repeats: 1, tempo: 0.5)],
                        on: true, loop: loop)
        let e = AudioEngine(output: .null)
        XCTAssertEqual(e.load(document: doc, baseDirectory: dir), [])
        e.start()
        return e
    }

    func testAHitInTheSecondSectionsSecondRepeatIsRecordedAtItsTimeInsideThatRegion() throws {
        let e = try engine()
        e.play(loops: 2)
        _ = pump(e, 222_000)   // 4.625 s: section B, pass 1, 0.125 s in at x2
        let hit = e.hitPad(slot: 1, velocity: 1, arrival: e.playheadClock.nanos)
        XCTAssertEqual(hit.clock.song, 4.625)
        XCTAssertEqual(hit.place, SongTiming.Place(songPass: 0, section: 1, pass: 1, time: 4.25))
        XCTAssertEqual(hit.timeline?.pass, 1)
        XCTAssertEqual(hit.timeline?.time, 4.25)
        // 62.5 ms later heard: 125 ms further into B's region at x2.
        let later = e.hitPad(slot: 1, velocity: 1, arrival: hit.clock.nanos + 62_500_000)
        XCTAssertEqual(later.place!.section, 1)
        XCTAssertEqual(later.place!.pass, 1)
        XCTAssertEqual(later.place!.time, 4.375, accuracy: 1e-9)
    }

    func testAHitHeardBeforeTheSectionChangeIsPlacedInTheSectionThatWasSounding() throws {
        let e = try engine()
        e.play(loops: 2)
        _ = pump(e, 193_500)   // 4.03125 s rendered: B has started
        XCTAssertEqual(e.songPosition?.section, 1)
        var hit = e.hitPad(slot: 1, velocity: 1, arrival: e.playheadClock.nanos)
        XCTAssertEqual(hit.place, SongTiming.Place(songPass: 0, section: 1, pass: 0, time: 4.0625))
        // With 62.5 ms of output latency the listener still hears the end of A's second pass.
        hit.clock.latency = 0.0625
        XCTAssertEqual(hit.heardSong, 3.96875)
        XCTAssertEqual(hit.place, SongTiming.Place(songPass: 0, section: 0, pass: 1, time: 1.96875))
        XCTAssertEqual(hit.timeline?.time, 1.96875)
        // Right on the boundary: B's start.
        hit.clock.latency = 0.03125
        XCTAssertEqual(hit.place, SongTiming.Place(songPass: 0, section: 1, pass: 0, time: 4))
    }

    func testTheSecondPassOfTheSongOverdubsTheSameRegionsAndAfterTheLastPassNothingIsPlaced() throws {
        let e = try engine()
        e.play(loops: 2)
        _ = pump(e, 678_000)   // 14.125 s: song pass 1, B's pass 1 again
        let hit = e.hitPad(slot: 1, velocity: 1, arrival: e.playheadClock.nanos)
        XCTAssertEqual(hit.clock.song, 14.125)
        XCTAssertEqual(hit.place, SongTiming.Place(songPass: 1, section: 1, pass: 1, time: 4.25))
        // Two passes asked: heard past the second's end (the stamp not yet stopped) is nowhere.
        var past = hit
        past.clock.song = 19.25
        XCTAssertNil(past.place)
        XCTAssertNil(past.timeline)
        _ = pump(e, 256_000)   // 19.46 s: both passes over, stopped
        XCTAssertNil(e.hitPad(slot: 1, velocity: 1).timeline)
    }

    func testALoopingSongPlacesEveryPassAndAHitJustBeforeTheStartBelongsToTheSongsEnd() throws {
        let e = try engine(loop: true)
        e.play()
        _ = pump(e, 480)   // 10 ms in
        var early = e.hitPad(slot: 1, velocity: 1, arrival: e.playheadClock.nanos)
        // 50 ms of latency: the listener is 40 ms before the song's start, 40 ms before C's end at x0.5.
        early.clock.latency = 0.05
        XCTAssertEqual(early.heardSong!, -0.04, accuracy: 1e-12)
        XCTAssertEqual(early.place?.songPass, -1)
        XCTAssertEqual(early.place?.section, 2)
        XCTAssertEqual(early.place?.pass, 0)
        XCTAssertEqual(early.place!.time, 3.98, accuracy: 1e-12)
        _ = pump(e, 48_000 * 95 / 10 * 3 + 264_000 - 480)   // 3 passes and 5.5 s: song pass 3, C's start
        let hit = e.hitPad(slot: 1, velocity: 1, arrival: e.playheadClock.nanos)
        XCTAssertEqual(hit.clock.song, 9.5 * 3 + 5.5)
        XCTAssertEqual(hit.place, SongTiming.Place(songPass: 3, section: 2, pass: 0, time: 2))
    }

    func testTheLoopStillPlacesItsHitsOnTheLoopRegion() throws {
        let e = try engine()
        var doc = Fixture.document(tracks: [[]], slots: [ClipSlot(file: dir + "/a.wav")], span: 0.5)
        doc.transport.loopStart = 0.25
        doc.transport.loopEnd = 0.75
        doc.transport.length = 1
        e.update(document: doc)
        e.play()
        _ = pump(e, 36_000)   // 0.75 s: pass 1, 0.25 s in
        let hit = e.hitPad(slot: 1, velocity: 1, arrival: e.playheadClock.nanos)
        XCTAssertNil(hit.song)
        XCTAssertNil(hit.place)
        XCTAssertEqual(hit.timeline?.pass, 1)
        XCTAssertEqual(hit.timeline!.time, 0.5, accuracy: 1e-12)
    }
}
