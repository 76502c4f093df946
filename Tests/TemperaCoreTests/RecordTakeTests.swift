import XCTest
@testable import TemperaCore

/// Recording pad hits: `record` arms, a take is one undo step, hits become markers on the slot's own track.
final class RecordTakeTests: XCTestCase {
    func parse(_ line: String) throws -> Command? { try CommandParser.parse(line) }

    func testRecordFormsReadBackFromTheirText() throws {
        let commands: [Command] = [
            .recordArm(nil), .recordArm(true), .recordArm(false),
            .recordTake([RecordedHit(time: 2.0.squareRoot() / 4, slot: 16, velocity: 1)]),
            .recordTake([RecordedHit(time: 0, slot: 1, velocity: 0), RecordedHit(time: 1.0 / 3, slot: 5, velocity: 0.35)]),
        ]
        for c in commands { XCTAssertEqual(try parse(c.text), c, c.text) }
        XCTAssertEqual(Command.recordTake([RecordedHit(time: 0.25, slot: 5, velocity: 0.8),
                                           RecordedHit(time: 1.5, slot: 12, velocity: 1)]).text,
                       "record take 0.25:5:0.8 1.5:12:1")
        XCTAssertEqual(Command.recordArm(nil).text, "record")
        XCTAssertEqual(Command.recordArm(false).text, "record off")
        XCTAssertEqual(try parse("record take 3/8:2:1/2"), .recordTake([RecordedHit(time: 0.375, slot: 2, velocity: 0.5)]))
    }

    func testBadHitsNameTheirColumn() {
        func error(_ line: String) -> CommandError? {
            do { _ = try parse(line) } catch let e as CommandError { return e } catch {}
            return nil
        }
        XCTAssertEqual(error("record take")?.message, "missing a hit (record take TIME:SLOT:VELOCITY ...)")
        XCTAssertEqual(error("record take 0.5:3")?.message, "a hit is TIME:SLOT:VELOCITY, not '0.5:3'")
        XCTAssertEqual(error("record take 0.5:3")?.column, 13)
        XCTAssertEqual(error("record take 0.5:17:1")?.message, "hit slot must be a whole number from 1 to 16, not 17")
        XCTAssertEqual(error("record take 0.5:17:1")?.column, 17)
        XCTAssertEqual(error("record take 0.5:1:1 1:2:1.5")?.message, "hit velocity must be from 0 to 1, not 1.5")
        XCTAssertEqual(error("record take 0.5:1:1 1:2:1.5")?.column, 25)
        XCTAssertEqual(error("record maybe")?.message, "expected on or off, not 'maybe' (record [on|off] | record take TIME:SLOT:VELOCITY ...)")
    }

    func testHitsGoOntoTheTrackHoldingTheirSlotElseOntoANewTrackNamedAfterTheSlot() throws {
        // Track 1 holds slot 1, track 2 holds slot 2 and slot 1 too; track 3 is current and holds nothing. Slot 9
        // of the default kit is its high tom.
        let s = Fixture.session([[0], [0, 0.5], [0.25]], contents: [[.clip(1)], [.clip(2), .clip(1)], [nil]])
        s.currentTrack = 2
        XCTAssertEqual(try s.run(.recordTake([RecordedHit(time: 0.125, slot: 1, velocity: 0.5),
                                              RecordedHit(time: 0.375, slot: 2, velocity: 0.75),
                                              RecordedHit(time: 0.625, slot: 9, velocity: 1),
                                              RecordedHit(time: 0.75, slot: 9, velocity: 1)])),
                       "recorded 4 hits; new track 'high-tom'")
        XCTAssertEqual(s.times(0), [0, 0.125])
        XCTAssertEqual(s.times(1), [0, 0.375, 0.5])
        XCTAssertEqual(s.times(2), [0.25])
        XCTAssertEqual(s.document.tracks.map(\.name).last, "high-tom")
        XCTAssertEqual(s.times(3), [0.625, 0.75])
        XCTAssertEqual(s.contents(3), [.clip(9), .clip(9)])
        // The current track comes first when it holds the slot itself.
        s.currentTrack = 1
        try s.run(.recordTake([RecordedHit(time: 0.875, slot: 1, velocity: 0.5)]))
        XCTAssertEqual(s.times(1), [0, 0.375, 0.5, 0.875])
        s.checkInvariants()
    }

    func testATakeOfAKitPutsEachSlotOnItsOwnNamedTrackAsOneUndoStep() throws {
        // Kick, snare and hat of a loaded kit, 18 hits, onto a document whose one track holds nothing of them.
        var doc = Fixture.document([[0]], contents: [[nil]])
        for (n, name) in [(1, "Kick"), (2, "Snare"), (3, "Hat")] {
            doc.slots[n - 1] = ClipSlot(name: name, file: "kit/\(name.lowercased()).wav")
        }
        let s = Session(document: doc)
        let before = s.document
        try s.run(.recordArm(true))
        s.beginTake()
        for i in 0..<18 {
            let slot = [1, 3, 2, 3, 1, 3][i % 6]
            try s.run(.recordTake([RecordedHit(time: Double(i) * 0.125, slot: slot, velocity: 0.75)]))
        }
        XCTAssertEqual(s.endTake(), 18)
        XCTAssertEqual(s.document.tracks.map(\.name), [before.tracks[0].name, "Kick", "Hat", "Snare"])
        XCTAssertEqual(s.times(0), [0])
        XCTAssertEqual(s.times(1), [0, 0.5, 0.75, 1.25, 1.5, 2])
        XCTAssertEqual(s.contents(1), Array(repeating: .clip(1), count: 6))
        XCTAssertEqual(s.times(2).count, 9)
        XCTAssertEqual(s.contents(2), Array(repeating: .clip(3), count: 9))
        XCTAssertEqual(s.times(3), [0.25, 1, 1.75])
        XCTAssertEqual(s.undoName, "record")
        try s.run(.undo(1))
        XCTAssertEqual(s.document, before)
        try s.run(.redo(1))
        XCTAssertEqual(s.document.tracks.count, 4)
        s.checkInvariants()
    }

    func testVelocityBecomesAmplitudeAndTimesStayAsHeard() throws {
        let s = Fixture.session([[]])
        let t = 0.123456789012345
        try s.run(line: "record take \(DocumentFile.number(t)):3:0.3 0.5000001:3:1")
        let ms = Array(s.document.tracks[1].markers)
        XCTAssertEqual(ms.map(\.time), [t, 0.5000001])
        XCTAssertEqual(ms.map(\.amp), [0.3, 1])
        XCTAssertEqual(ms.map(\.content), [.clip(3), .clip(3)])
    }

    func testArmRecordTwoPassesAndUndoGivesExactlyThePreRecordingDocument() throws {
        let s = Fixture.session([[0, 0.5], [0.25]], contents: [[.clip(1), .clip(1)], [.clip(2)]])
        try s.run(.markerAdd(time: 0.75, amp: 0.4))
        let before = s.document
        let stepsBefore = s.history.undoSteps.count
        XCTAssertEqual(try s.run(line: "record"), "record armed: starting the transport starts the take")
        XCTAssertTrue(s.recordArmed)
        s.beginTake()
        // Pass 1, then pass 2 overdubbing it: each hit is recorded (and heard) as it comes.
        for time in [0.1, 0.3, 0.6] { try s.run(.recordTake([RecordedHit(time: time, slot: 1, velocity: 0.9)])) }
        for time in [0.11, 0.35, 0.9] { try s.run(.recordTake([RecordedHit(time: time, slot: 2, velocity: 0.6)])) }
        XCTAssertEqual(s.times(0), [0, 0.1, 0.3, 0.5, 0.6, 0.75])
        XCTAssertEqual(s.times(1), [0.11, 0.25, 0.35, 0.9])
        XCTAssertEqual(s.endTake(), 6)
        XCTAssertFalse(s.recordArmed)
        XCTAssertFalse(s.takeOpen)
        XCTAssertEqual(s.history.undoSteps.count, stepsBefore + 1)
        XCTAssertEqual(s.undoName, "record")
        try s.run(.undo(1))
        XCTAssertEqual(s.document, before)
        XCTAssertEqual(DocumentFile.encode(s.document), DocumentFile.encode(before))
        try s.run(.redo(1))
        XCTAssertEqual(s.times(1), [0.11, 0.25, 0.35, 0.9])
    }

    func testATakeWithNoHitsLeavesNoStep() throws {
        let s = Fixture.session([[0]])
        try s.run(.recordArm(true))
        s.beginTake()
        XCTAssertEqual(s.endTake(), 0)
        XCTAssertFalse(s.canUndo)
        XCTAssertFalse(s.isModified)
    }

    func testAHitThatCannotApplyChangesNothing() {
        let s = Fixture.session([[0]])
        XCTAssertThrowsError(try s.run(.recordTake([RecordedHit(time: 1, slot: 1, velocity: 1),
                                                    RecordedHit(time: -1, slot: 2, velocity: 1)])))
        XCTAssertFalse(s.canUndo)
        XCTAssertEqual(s.document.tracks.count, 1)
    }

    func testADocumentWithoutTracksGetsOneForTheSlot() throws {
        let s = Session(document: Document(tracks: []))
        try s.run(.recordTake([RecordedHit(time: 0, slot: 1, velocity: 1)]))
        XCTAssertEqual(s.document.tracks.map(\.name), [s.document.slot(1).name])
        XCTAssertEqual(s.contents(0), [.clip(1)])
    }
}
