import XCTest
@testable import TemperaCore

/// Tracks, transport and slot settings: each an undo step, each validated.
final class SessionSettingsTests: XCTestCase {
    func testTransportCommandsSetExactValuesAndUndo() throws {
        let s = Fixture.session([[0]])
        let original = s.document.transport
        try s.run(.length(4))
        XCTAssertEqual(s.document.transport.length, 4)
        XCTAssertEqual(s.document.transport.loopEnd, 4, "a default loop region follows the length")
        try s.run(.loopRange(0.5, 1.5))
        try s.run(.loop(on: false))
        try s.run(.tempo(1.25))
        try s.run(.volume(0.5))
        let t = s.document.transport
        XCTAssertEqual([t.loopStart, t.loopEnd, t.tempo, t.volume], [0.5, 1.5, 1.25, 0.5])
        XCTAssertFalse(t.loopOn)
        try s.run(.undo(5))
        XCTAssertEqual(s.document.transport, original)
    }

    func testTransportCommandsRefuseOutOfRangeValues() {
        let s = Fixture.session([[0]])
        for c in [Command.length(0), .loopRange(1, 1), .loopRange(-1, 1), .tempo(100), .volume(1.5), .volume(.nan)] {
            XCTAssertThrowsError(try s.run(c), "\(c)")
        }
        XCTAssertFalse(s.canUndo)
    }

    func testSlotChangesOnlyTheGivenSettings() throws {
        let s = Fixture.session([[0]])
        try s.run(.slot(3, .init(file: "sounds/bell.flac", gain: 0.5, mode: .gate, attack: 5, release: 80)))
        var slot = s.document.slot(3)
        XCTAssertEqual(slot.name, "bell")
        XCTAssertEqual(slot.file, "sounds/bell.flac")
        XCTAssertEqual(slot.gain, 0.5)
        XCTAssertEqual(slot.mode, .gate)
        XCTAssertEqual(slot.attack, 5)
        XCTAssertEqual(slot.release, 80)
        try s.run(.slot(3, .init(note: 72)))
        slot = s.document.slot(3)
        XCTAssertEqual(slot.note, 72)
        XCTAssertEqual(slot.file, "sounds/bell.flac")
        XCTAssertThrowsError(try s.run(.slot(0, .init(note: 60))))
        XCTAssertThrowsError(try s.run(.slot(3, .init(note: -1))))
        XCTAssertThrowsError(try s.run(.slot(3, .init(attack: -1))))
        try s.run(.undo(2))
        XCTAssertEqual(s.document.slot(3), Document.defaultKit[2])
    }

    func testTrackSelectionIsOneBasedAndValidated() throws {
        let s = Fixture.session([[0], [0]])
        try s.run(.trackSelect(2))
        XCTAssertEqual(s.currentTrack, 1)
        XCTAssertThrowsError(try s.run(.trackSelect(0)))
        XCTAssertThrowsError(try s.run(.trackSelect(3))) {
            XCTAssertEqual(($0 as? CommandError)?.message, "no track 3 (the document has 2)")
        }
        try s.run(.trackAdd(name: nil))
        XCTAssertEqual(s.document.tracks[2].name, "track 3")
    }

    func testMuteAndSoloSetOrToggleOneTrackAndUndoOneStepEach() throws {
        let s = Fixture.session([[0], [0], [0]])
        try s.run(.trackSelect(2))
        XCTAssertEqual(try s.run(.trackMute(track: nil, on: nil)), "track 2 (t2) muted")
        XCTAssertEqual(s.document.tracks.map(\.mute), [false, true, false])
        XCTAssertEqual(s.undoName, "mute track 2")
        XCTAssertEqual(try s.run(line: "track mute"), "track 2 (t2) unmuted")
        XCTAssertEqual(try s.run(line: "track 3 mute on"), "track 3 (t3) muted")
        XCTAssertEqual(s.currentTrack, 1, "addressing a track by number does not make it current")
        XCTAssertEqual(s.document.tracks.map(\.mute), [false, false, true])
        XCTAssertEqual(try s.run(line: "track 1 solo"), "track 1 (t1) soloed")
        XCTAssertEqual(try s.run(line: "track 2 solo on"), "track 2 (t2) soloed; 1 other track soloed")
        XCTAssertEqual(s.document.tracks.map(\.solo), [true, true, false])
        XCTAssertEqual(s.undoName, "solo track 2")
        try s.run(.undo(1))
        XCTAssertEqual(s.document.tracks.map(\.solo), [true, false, false])
        try s.run(.undo(4))
        XCTAssertEqual(s.document.tracks.map(\.mute), [false, false, false])
        XCTAssertEqual(s.document.tracks.map(\.solo), [false, false, false])
        XCTAssertFalse(s.canUndo, "five steps in all, each undone alone")
    }

    func testSettingAMuteItAlreadyHasRecordsNoStep() throws {
        let s = Fixture.session([[0]])
        try s.run(line: "track mute off")
        try s.run(line: "track solo off")
        XCTAssertFalse(s.canUndo)
        XCTAssertEqual(s.revision, 0)
    }

    func testTrackGainSetsTheLinearValueFromDecibelsAndUndoes() throws {
        let s = Fixture.session([[0], [0]])
        XCTAssertEqual(try s.run(line: "track gain -20dB"), "track 1 (t1) gain 0.1 (-20.0 dB)")
        XCTAssertEqual(s.document.tracks[0].gain, 0.1)
        XCTAssertEqual(try s.run(line: "track gain -6dB"), "track 1 (t1) gain 0.501 (-6.0 dB)")
        XCTAssertEqual(s.document.tracks[0].gain, pow(10, -6.0 / 20))
        try s.run(.undo(1))
        XCTAssertEqual(try s.run(line: "track 2 gain 4"), "track 2 (t2) gain 4 (+12.0 dB)")
        XCTAssertEqual(try s.run(line: "track 2 gain 0"), "track 2 (t2) gain 0 (-inf dB)")
        XCTAssertEqual(s.document.tracks.map(\.gain), [0.1, 0])
        XCTAssertEqual(s.undoName, "gain of track 2")
        try s.run(.undo(2))
        XCTAssertEqual(s.document.tracks.map(\.gain), [0.1, 1])
        try s.run(.undo(1))
        XCTAssertEqual(s.document.tracks.map(\.gain), [1, 1])
    }

    func testTrackNameRenamesAndUndoes() throws {
        let s = Fixture.session([[0], [0]])
        XCTAssertEqual(try s.run(line: "track 2 name \"low tom\""), "track 2 is now low tom")
        XCTAssertEqual(s.document.tracks.map(\.name), ["t1", "low tom"])
        try s.run(.undo(1))
        XCTAssertEqual(s.document.tracks.map(\.name), ["t1", "t2"])
        try s.run(.redo(1))
        XCTAssertEqual(s.document.tracks.map(\.name), ["t1", "low tom"])
    }

    func testTrackSettingsRefuseBadValuesAndChangeNothing() {
        let s = Fixture.session([[0], [0]])
        let before = s.document
        let refused: [(Command, String)] = [
            (.trackGain(track: nil, gain: 4.5), "track gain: 4.5 is out of range (0-4)"),
            (.trackGain(track: nil, gain: -0.25), "track gain: -0.25 is out of range (0-4)"),
            (.trackGain(track: nil, gain: .nan), "track gain: nan is out of range (0-4)"),
            (.trackGain(track: 3, gain: 1), "no track 3 (the document has 2)"),
            (.trackMute(track: 3, on: true), "no track 3 (the document has 2)"),
            (.trackSolo(track: 0, on: nil), "no track 0 (the document has 2)"),
            (.trackName(track: nil, name: ""), "track name: the name is empty"),
            (.trackName(track: nil, name: "a\nb"), "track name: a name cannot hold control characters"),
        ]
        for (command, message) in refused {
            XCTAssertThrowsError(try s.run(command), "\(command)") {
                XCTAssertEqual(($0 as? CommandError)?.message, message)
            }
        }
        XCTAssertEqual(s.document, before)
        XCTAssertFalse(s.canUndo)
        let empty = Session(document: Document(tracks: []))
        XCTAssertThrowsError(try empty.run(.trackMute(track: nil, on: nil))) {
            XCTAssertEqual(($0 as? CommandError)?.message, "the document has no track: use 'track add'")
        }
    }

    func testEventsLeaveOutMutedTracksAndListOnlySoloedOnes() throws {
        let s = Fixture.session([[0, 0.5], [0.25], [0.75]], contents: [[.clip(1), .clip(1)], [.clip(2)], [.clip(3)]])
        func tracks() -> [Int] { Schedule(document: s.document, sampleRate: 48_000).onsets(loops: 1).map(\.track) }
        func frames() -> [Int64] { Schedule(document: s.document, sampleRate: 48_000).onsets(loops: 1).map(\.frame) }
        XCTAssertEqual(tracks(), [1, 2, 1, 3])
        try s.run(line: "track 1 mute")
        XCTAssertEqual(tracks(), [2, 3])
        XCTAssertEqual(frames(), [12_000, 36_000])
        try s.run(line: "track 3 solo on")
        XCTAssertEqual(tracks(), [3])
        try s.run(line: "track 1 solo on")
        XCTAssertEqual(tracks(), [3], "a muted track stays silent though soloed")
        try s.run(line: "track 1 mute off")
        XCTAssertEqual(tracks(), [1, 1, 3])
        XCTAssertEqual(frames(), [0, 24_000, 36_000])
        try s.run(.undo(4))
        XCTAssertEqual(tracks(), [1, 2, 1, 3])
    }

    func testCursorRefusesNegativeTimes() {
        let s = Fixture.session([[0]])
        XCTAssertThrowsError(try s.run(.cursor(-0.5)))
        XCTAssertEqual(s.cursor, 0)
    }
}
