import Foundation
import XCTest
@testable import TemperaCore

/// Undo, redo, transactions, `perform`, failures that change nothing, and the modified flag.
final class SessionHistoryTests: XCTestCase {
    func testEveryCommandIsOneStepAndUndoRedoRestoreExactly() throws {
        let s = Fixture.session([[0, 0.5, 1]], selectTracks: [0])
        let original = s.document
        try s.run(.shift(0.25))
        let shifted = s.document
        try s.run(.subdivide(1))
        XCTAssertEqual(s.undoName, "subdivide")
        try s.run(.undo(1))
        XCTAssertEqual(s.document, shifted)
        XCTAssertEqual(s.redoName, "subdivide")
        try s.run(.undo(1))
        XCTAssertEqual(s.document, original)
        try s.run(.redo(5))
        XCTAssertEqual(s.history.undoSteps.count, 2)
        assertTimes(s.times(), [0.25, 0.5, 0.75, 1, 1.25])
        s.checkInvariants()
    }

    func testUndoBeyondTheHistoryUndoesAllOfIt() throws {
        let s = Fixture.session([[0]])
        let original = s.document
        for t in [0.1, 0.2, 0.3] { try s.run(.markerAdd(time: t, amp: nil)) }
        XCTAssertEqual(try s.run(.undo(10)), "undid 3 steps")
        XCTAssertEqual(s.document, original)
        XCTAssertThrowsError(try s.run(.undo(1))) { XCTAssertEqual(($0 as? CommandError)?.message, "nothing to undo") }
        XCTAssertThrowsError(try s.run(.redo(0)))
    }

    func testANewEditClearsRedo() throws {
        let s = Fixture.session([[0]])
        try s.run(.markerAdd(time: 1, amp: nil))
        try s.run(.undo(1))
        XCTAssertTrue(s.canRedo)
        try s.run(.markerAdd(time: 2, amp: nil))
        XCTAssertFalse(s.canRedo)
    }

    func testStepsStoreOnlyWhatTheyTouched() throws {
        let s = Fixture.session([(0..<5000).map { Double($0) / 100 }])
        let ids = s.document.tracks[0].markers.map(\.id)
        s.selection[0] = Set(ids[100..<110])
        try s.run(.shift(0.001))
        XCTAssertEqual(s.history.storedMarkers, 20)
        XCTAssertEqual(s.history.undoSteps[0].markers.count, 1)
    }

    func testCursorAndSelectionAreNotSteps() throws {
        let s = Fixture.session([[0, 1]])
        try s.run(.cursor(0.5))
        try s.run(.select(.init(.all)))
        try s.run(.clipMode(true))
        try s.run(.snap(false))
        try s.run(.chooseClip(.hold))
        XCTAssertFalse(s.canUndo)
        XCTAssertFalse(s.isModified)
    }

    func testAFailingCommandChangesNothingNotEvenTheHistory() {
        let s = Fixture.session([[0, 1]], selectTracks: [0])
        let before = s.document
        XCTAssertThrowsError(try s.run(.scaleHandle(k: 2, to: -1)))
        XCTAssertThrowsError(try s.run(.slot(17, .init(gain: 1))))
        XCTAssertThrowsError(try s.run(.slot(1, .init(note: 128))))
        XCTAssertThrowsError(try s.run(.tempo(0)))
        XCTAssertThrowsError(try s.run(.trackSelect(3)))
        XCTAssertEqual(s.document, before)
        XCTAssertFalse(s.canUndo)
        XCTAssertEqual(s.revision, 0)
    }

    func testADragIsOneStepAndAbortRestoresExactly() throws {
        let s = Fixture.session([[0, 0.5, 1]], selectTracks: [0])
        let original = s.document
        s.beginTransaction("drag")
        for _ in 0..<5 { try s.run(.shift(0.1)) }
        XCTAssertGreaterThanOrEqual(s.revision, 5)
        XCTAssertThrowsError(try s.run(.shift(-10)))
        s.commitTransaction()
        XCTAssertEqual(s.history.undoSteps.count, 1)
        XCTAssertEqual(s.undoName, "drag")
        assertTimes(s.times(), [0.5, 1, 1.5])
        try s.run(.undo(1))
        XCTAssertEqual(s.document, original)

        let selection = s.selection
        s.beginTransaction("drag")
        try s.run(.shift(0.3))
        try s.run(.subdivide(2))
        try s.run(.trackAdd(name: "extra"))
        try s.run(.markerAdd(time: 0.2, amp: nil))
        s.abortTransaction()
        XCTAssertEqual(s.document, original)
        XCTAssertEqual(s.selection, selection)
        XCTAssertEqual(s.history.undoSteps.count, 0)
        XCTAssertTrue(s.canRedo, "an aborted drag leaves redo alone")
    }

    func testUndoDuringADragCommitsTheDragThenUndoesIt() throws {
        let s = Fixture.session([[0]])
        try s.run(.markerAdd(time: 1, amp: nil))
        s.beginTransaction("nudge")
        try s.run(.tempo(1.1))
        try s.run(.tempo(1.2))
        try s.run(.undo(1))
        XCTAssertFalse(s.inTransaction)
        XCTAssertEqual(s.document.transport.tempo, 1)
        XCTAssertEqual(s.redoName, "nudge")
        assertTimes(s.times(), [0, 1])
    }

    func testPerformBuildsOneStepFromPrimitiveEdits() throws {
        let s = Fixture.session([[0, 1]])
        let original = s.document
        let id1 = s.document.tracks[0].markers[1].id
        try s.perform("designer apply") { edit in
            edit.insert(Marker(id: 999, time: 0.5, amp: 0.3, content: .clip(2)), track: 0)
            edit.replace(Marker(id: id1, time: 1.5, amp: 0.2), track: 0)
            edit.setPattern("1 2")
            var t = edit.document.transport
            t.tempo = 1.5
            edit.setTransport(t)
            var designer = edit.document.designer
            designer.slider = 0.25
            edit.setDesigner(designer)
            edit.setGroup(16, Group(elements: [GroupElement(offset: 0, amp: 1, content: nil)], span: 1))
            edit.setTrack(0, name: "bells", mute: true)
        }
        XCTAssertEqual(s.document.tracks[0].name, "bells")
        XCTAssertTrue(s.document.tracks[0].mute)
        XCTAssertEqual(s.history.undoSteps.count, 1)
        assertTimes(s.times(), [0, 0.5, 1.5])
        XCTAssertNotEqual(s.document.tracks[0].markers[1].id, 999, "inserted markers get fresh ids")
        let after = s.document
        try s.undo()
        XCTAssertEqual(s.document, original)
        try s.redo()
        XCTAssertEqual(s.document, after)
    }

    func testAPerformBodyThatThrowsIsRolledBack() {
        let s = Fixture.session([[0, 1]])
        let original = s.document
        XCTAssertThrowsError(try s.perform("broken") { edit in
            edit.insert(Marker(id: 0, time: 3), track: 0)
            edit.remove(id: edit.document.tracks[0].markers[0].id, track: 0)
            throw CommandError("counts do not match")
        })
        XCTAssertEqual(s.document, original)
        XCTAssertFalse(s.canUndo)
    }

    func testAnEditDropsTheMarkersItRemovedFromTheSelectionAndKeepsTheRest() throws {
        let s = Fixture.session([[0, 1, 2], [0, 1]], selectTracks: [0, 1])
        let ids0 = s.document.tracks[0].markers.map(\.id), ids1 = s.document.tracks[1].markers.map(\.id)
        try s.perform("remove") { edit in
            edit.remove(id: ids0[1], track: 0)
            edit.remove(id: ids1[0], track: 1)
            edit.remove(id: ids1[1], track: 1)
        }
        XCTAssertEqual(s.selection, [0: [ids0[0], ids0[2]]])
    }

    func testTrackAddIsUndoneAndTheCurrentTrackStaysValid() throws {
        let s = Fixture.session([[0]])
        try s.run(.trackAdd(name: "bells"))
        XCTAssertEqual(s.currentTrack, 1)
        XCTAssertEqual(s.document.tracks[1].name, "bells")
        try s.run(.markerAdd(time: 0.5, amp: nil))
        try s.run(.undo(2))
        XCTAssertEqual(s.document.tracks.count, 1)
        XCTAssertEqual(s.currentTrack, 0)
        try s.run(.redo(2))
        assertTimes(s.times(1), [0.5])
    }

    func testModifiedFollowsTheHistoryPositionOfTheLastSave() throws {
        let s = Fixture.session([[0]])
        XCTAssertFalse(s.isModified)
        try s.run(.tempo(2))
        XCTAssertTrue(s.isModified)
        try s.run(.undo(1))
        XCTAssertFalse(s.isModified)
        XCTAssertThrowsError(try s.run(.save(nil))) { XCTAssertEqual(($0 as? CommandError)?.message, "no file name: save PATH") }
    }
}

/// The textual path and saving, through the real parser and file writer.
final class SessionLineAndSaveTests: XCTestCase {
    func testRunLineParsesRunsAndNamesTheLineOfAnError() throws {
        let s = Fixture.session([[0, 0.5, 1]])
        XCTAssertNil(try s.run(line: "# a comment"))
        try s.run(line: "select all")
        try s.run(line: "shift 1/8")
        assertTimes(s.times(), [0.125, 0.625, 1.125])
        try s.run(line: "select none")
        XCTAssertThrowsError(try s.run(line: "shift 1/8", lineNumber: 7)) { error in
            XCTAssertEqual((error as? CommandError)?.line, 7)
            XCTAssertEqual((error as? CommandError)?.description, "line 7: nothing is selected")
        }
    }

    func testSaveClearsTheModifiedFlagUntilTheNextEdit() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("session-save-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("song.tempera").path
        let s = Fixture.session([[0, 1]])
        try s.run(.tempo(1.5))
        XCTAssertTrue(s.isModified)
        XCTAssertEqual(try s.run(.save(file)), "saved \(file)")
        XCTAssertFalse(s.isModified)
        XCTAssertEqual(s.path, file)
        XCTAssertEqual(try DocumentFile.load(file).transport.tempo, 1.5)
        try s.run(.volume(0.2))
        XCTAssertTrue(s.isModified)
        try s.run(.undo(1))
        XCTAssertFalse(s.isModified, "back at the saved state")
        try s.run(.undo(1))
        XCTAssertTrue(s.isModified)
        XCTAssertThrowsError(try s.run(.save(dir.appendingPathComponent("missing/x.tempera").path)))
        XCTAssertEqual(s.path, file, "a failed save keeps the old path")
    }
}
