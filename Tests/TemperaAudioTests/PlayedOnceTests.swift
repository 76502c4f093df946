import Foundation
@testable import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// Edits published while the loop plays sound every marker at most once per pass: a marker that already sounded
/// and is moved ahead of the playhead waits for the next pass; one moved from ahead to behind waits too.
/// The engine runs on the null output, block by block, and every onset is checked on its exact frame.
final class PlayedOnceTests: XCTestCase {
    var dir = ""
    var click = ""

    override func setUp() {
        dir = TestPaths.temporaryDirectory("once")
        click = try! Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "click.wav")
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A one-second loop at tempo 1 with a click on each time, edited through a session as the editor does.
    func session(_ times: [Double]) -> Session {
        Session(document: Fixture.document(tracks: [times.map { ($0, .clip(1)) }], slots: [ClipSlot(file: click)]))
    }

    func playing(_ doc: Document) -> AudioEngine {
        let engine = AudioEngine(output: .null)
        engine.load(document: doc, baseDirectory: dir)
        engine.start()
        engine.play()
        return engine
    }

    func testAMarkerShiftedLaterAcrossThePlayheadSoundsOnceInThePassThenOnItsNewFrame() throws {
        let s = session([0, 0.25, 0.5, 0.75])
        let engine = playing(s.document)
        var out = pump(engine, 14_336)        // 0.29867 s: the click at 0.25 s has sounded
        try s.run(line: "select at 0.25")
        let id = try XCTUnwrap(s.selection[0]?.first)
        try s.run(line: "shift 0.1")          // to 0.35 s: just ahead of the playhead
        XCTAssertEqual(try XCTUnwrap(s.document.tracks[0].markers.time(of: id)), 0.35, accuracy: 1e-12,
                       "the same marker, moved")
        engine.update(document: s.document)
        out += pump(engine, 96_000 - 14_336)
        XCTAssertEqual(Onsets.soundStarts(out), [0, 12_000, 24_000, 36_000,           // not again at 16 800
                                                  48_000, 64_800, 72_000, 84_000])     // the next pass: at 0.35 s
    }

    func testAMarkerShiftedEarlierAcrossThePlayheadIsSilentUntilTheNextPass() throws {
        let s = session([0, 0.5, 0.75])
        let engine = playing(s.document)
        var out = pump(engine, 14_336)        // 0.29867 s: only the click at 0 has sounded
        try s.run(line: "select at 0.5")
        try s.run(line: "shift -0.3")         // to 0.2 s: just behind the playhead, never played this pass
        engine.update(document: s.document)
        out += pump(engine, 96_000 - 14_336)
        XCTAssertEqual(Onsets.soundStarts(out), [0, 36_000,
                                                  48_000, 57_600, 84_000])
    }

    func testRepeatedEditsWithinOnePassSoundEachMarkerOnce() throws {
        let s = session([0, 0.25, 0.5, 0.75])
        let engine = playing(s.document)
        var out = pump(engine, 14_336)        // 0.29867 s: 0 and 0.25 have sounded
        try s.run(line: "select at 0.25")
        // Dragged back and forth across the playhead, one block between steps, as a held key does: to 0.35 (ahead),
        // 0.25 (behind), 0.3 (behind) and 0.4 (ahead).
        for by in [0.1, -0.1, 0.05, 0.1] {
            try s.run(line: "shift \(by)")
            engine.update(document: s.document)
            out += pump(engine, 512)
        }
        // The one at 0.75 s, ahead all along, moves to 0.7 s and on to 0.8 s before it is reached.
        try s.run(line: "select at 0.75")
        for by in [-0.05, 0.1] {
            try s.run(line: "shift \(by)")
            engine.update(document: s.document)
            out += pump(engine, 512)
        }
        out += pump(engine, 96_000 - 14_336 - 6 * 512)
        XCTAssertEqual(Onsets.soundStarts(out), [0, 12_000, 24_000, 38_400,
                                                  48_000, 67_200, 72_000, 86_400])
    }

    func testTheSwingSliderMovedJustAfterTheOffBeatSoundsOneOffBeatPerBeat() throws {
        // Four beats of swing on a two-second loop, auditioned as the designer does at s = 0.5: the off-beat sits
        // 7/24 of a second (14 000 frames) after each downbeat, at s = 1 a third of a second (16 000 frames).
        var doc = Fixture.document(tracks: [[(0, .clip(1))]], slots: [ClipSlot(file: click)], span: 2)
        doc.designer = TemperamentPreset.swing.temperament
        doc.designer.slider = 0.5
        let half = doc.designer.audition(document: doc, track: 0)
        doc.designer.slider = 1
        let one = doc.designer.audition(document: doc, track: 0)
        XCTAssertEqual(half.tracks[0].markers.map(\.id), one.tracks[0].markers.map(\.id),
                       "a slider step keeps every dot's id")
        let engine = playing(half)
        var out = pump(engine, 62_464)        // 1.30133 s: the third beat's off-beat (1.29167 s) has just sounded
        engine.update(document: one)          // and now moves to 1.33333 s, ahead of the playhead
        out += pump(engine, 192_000 - 62_464)
        XCTAssertEqual(Onsets.soundStarts(out), [0, 14_000, 24_000, 38_000, 48_000, 62_000, 72_000, 88_000,
                                                  96_000, 112_000, 120_000, 136_000, 144_000, 160_000, 168_000, 184_000])
    }

    func testASliderStepThatBringsInADotOfTheNextCycleKeepsTheOthersIds() {
        // One pair of 1 against 2 over half the loop: at s = 1.5 the dot sits at 0.75 of its cycle; past s = 2 it
        // leaves its cycle and the previous cycle's dot comes in at the loop start.
        let doc = Fixture.document(tracks: [[]], slots: [ClipSlot(file: click)])
        var t = Temperament(span: 0.5, top: .init(division: 1, beats: [0]), bottom: .init(division: 2, beats: [1]),
                            map: [.init(top: 0, bottom: 1)], slider: 1.5)
        let before = t.audition(document: doc, track: 0).tracks[0].markers
        t.slider = 2.2
        let after = t.audition(document: doc, track: 0).tracks[0].markers
        XCTAssertEqual(before.map(\.time), [0.375, 0.875])
        XCTAssertEqual(after.count, 2)
        XCTAssertEqual(after[0].time, 0.05, accuracy: 1e-12)
        XCTAssertEqual(after[1].time, 0.55, accuracy: 1e-12)
        // The dot at 0.55 is cycle 0's moved on, the one at 0.05 cycle -1's come in.
        XCTAssertEqual(after[1].id, before[0].id)
        XCTAssertFalse(before.map(\.id).contains(after[0].id))
    }

    func testALoopRegionChangeStartsTheRecordAfresh() throws {
        let s = session([0, 0.1, 0.5])
        let engine = playing(s.document)
        var out = pump(engine, 14_336)        // 0.29867 s: 0 and 0.1 have sounded
        try s.run(line: "loop 0 0.2")         // the playhead is outside the new region: it starts again from 0
        engine.update(document: s.document)
        out += pump(engine, 20_000)
        XCTAssertEqual(Onsets.soundStarts(out), [0, 4_800,
                                                  14_336, 19_136, 23_936, 28_736, 33_536])
    }

    func testMarkersOfACopiedTrackThatShareIdsBothSound() {
        var doc = Fixture.document(tracks: [[(0.25, .clip(1))]], slots: [ClipSlot(file: click)], amp: 0.5)
        doc.tracks.append(doc.tracks[0])
        XCTAssertEqual(doc.tracks[0].markers[0].id, doc.tracks[1].markers[0].id)
        let engine = playing(doc)
        let out = pump(engine, 24_000)
        XCTAssertEqual(Onsets.soundStarts(out), [12_000])
        // Both tracks: the first frame of the attack is 0.5 x 0.5 / 48 from each.
        XCTAssertEqual(out[2 * 12_000], 2 * 0.5 * 0.5 / 48, accuracy: 1e-7)
    }

    func testTheRecordForgetsAtEachPassAndStopsRecordingWhenFull() {
        var played = PlayedMarkers.make()
        defer { played.deallocate() }
        let a = PlayedMarkers.key(track: 0, marker: 7), b = PlayedMarkers.key(track: 1, marker: 7)
        XCTAssertTrue(played.record(a), "first time: it sounds")
        XCTAssertFalse(played.record(a), "again in the same pass: it does not")
        XCTAssertTrue(played.contains(a))
        XCTAssertFalse(played.contains(b), "the same id on another track is another marker")
        played.clear()
        XCTAssertFalse(played.contains(a))
        XCTAssertTrue(played.record(a), "a new pass")
        played.clear()
        for m in 0..<UInt32(PlayedMarkers.limit) { XCTAssertTrue(played.record(PlayedMarkers.key(track: 2, marker: m))) }
        XCTAssertEqual(played.count, PlayedMarkers.limit)
        XCTAssertTrue(played.record(b), "full: a marker not recorded still sounds")
        XCTAssertTrue(played.record(b), "and is not recorded, as before the record existed")
        XCTAssertFalse(played.record(PlayedMarkers.key(track: 2, marker: 12_000)), "those recorded still count")
        played.clear()
        XCTAssertEqual(played.count, 0)
        XCTAssertTrue(played.record(PlayedMarkers.key(track: 2, marker: 12_000)))
    }
}
