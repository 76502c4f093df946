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

    func testCursorRefusesNegativeTimes() {
        let s = Fixture.session([[0]])
        XCTAssertThrowsError(try s.run(.cursor(-0.5)))
        XCTAssertEqual(s.cursor, 0)
    }
}
