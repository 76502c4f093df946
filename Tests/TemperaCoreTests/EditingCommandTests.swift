import XCTest
@testable import TemperaCore

/// amp, copy / cut / paste, duplicate, quantize, the `.` token, track delete / move / duplicate, a stored
/// group's span and temper apply in cycles: exact values and undo.
final class EditingCommandTests: XCTestCase {
    // MARK: amp

    func testAmpSetsAndNudgesTheSelectionClampedToZeroAndOne() throws {
        let s = Fixture.session([[0, 0.5, 1]], amps: [[0.2, 0.5, 0.95]], selectTracks: [0])
        XCTAssertEqual(try s.run(line: "amp +0.1"), "amp +0.1 on 3 markers")
        XCTAssertEqual(s.document.tracks[0].markers.map(\.amp), [0.2 + 0.1, 0.5 + 0.1, 1])
        try s.run(line: "amp -0.25")
        XCTAssertEqual(s.document.tracks[0].markers.map(\.amp), [0.2 + 0.1 - 0.25, 0.5 + 0.1 - 0.25, 0.75])
        try s.run(line: "amp -1")
        XCTAssertEqual(s.document.tracks[0].markers.map(\.amp), [0, 0, 0])
        XCTAssertEqual(try s.run(line: "amp 0.6"), "amp 0.6 on 3 markers")
        XCTAssertEqual(s.document.tracks[0].markers.map(\.amp), [0.6, 0.6, 0.6])
        XCTAssertEqual(s.history.undoSteps.map(\.name), ["amp", "amp", "amp", "amp"])
        try s.run(line: "undo 4")
        XCTAssertEqual(s.document.tracks[0].markers.map(\.amp), [0.2, 0.5, 0.95])
    }

    func testAmpRefusesNothingSelectedAndValuesOutOfRange() {
        let s = Fixture.session([[0]])
        XCTAssertThrowsError(try s.run(line: "amp 0.5")) { e in
            XCTAssertEqual((e as? CommandError)?.message, "nothing is selected")
        }
        XCTAssertThrowsError(try s.run(line: "amp 1.5"))
        XCTAssertThrowsError(try s.run(line: "amp +2"))
        XCTAssertEqual(try CommandParser.parse("amp +1/10"), .amp(0.1, relative: true))
        XCTAssertEqual(try CommandParser.parse("amp -0.05"), .amp(-0.05, relative: true))
        XCTAssertEqual(try CommandParser.parse("amp 1/2"), .amp(0.5, relative: false))
        XCTAssertEqual(Command.amp(0.1, relative: true).text, "amp +0.1")
        XCTAssertEqual(Command.amp(0, relative: true).text, "amp +0")
    }

    // MARK: copy, cut, paste, duplicate

    func testCopyIsNoStepAndPasteChainsBars() throws {
        let s = Fixture.session([[0, 0.5, 1, 1.5]], contents: [[.clip(1), .clip(2), .clip(1), .clip(2)]], selectTracks: [0])
        XCTAssertEqual(try s.run(line: "copy"), "copied 4 markers")
        XCTAssertFalse(s.canUndo)
        XCTAssertFalse(s.isModified)
        XCTAssertEqual(s.clipboard?.span, 2)
        s.cursor = 2
        // Past the document's end (2 s) a paste lengthens it to the paste's end.
        XCTAssertEqual(try s.run(line: "paste"), "pasted 4 markers; the document now lasts 4 s")
        XCTAssertEqual(try s.run(line: "paste"), "pasted 4 markers; the document now lasts 6 s")
        XCTAssertEqual(s.document.transport.length, 6)
        assertTimes(s.times(), [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5])
        XCTAssertEqual(s.cursor, 6)
        XCTAssertEqual(s.history.undoSteps.map(\.name), ["paste", "paste"])
        try s.run(line: "undo 2")
        assertTimes(s.times(), [0, 0.5, 1, 1.5])
        XCTAssertEqual(s.document.transport.length, 2)
    }

    func testCutIsOneStepAndPasteRestoresAtTheCursor() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 1]], contents: [[.clip(1), .clip(3), .clip(3), .clip(2)]])
        let ids = s.document.tracks[0].markers.map(\.id)
        s.selection = [0: [ids[1], ids[2]]]
        XCTAssertEqual(try s.run(line: "cut"), "cut 2 markers")
        assertTimes(s.times(), [0, 1])
        // Taken inside the loop but not reaching its last marker: the span runs to the next marker.
        XCTAssertEqual(s.clipboard?.span, 0.75)
        s.cursor = 1.25
        try s.run(line: "paste")
        assertTimes(s.times(), [0, 1, 1.25, 1.5])
        XCTAssertEqual(s.contents(), [.clip(1), .clip(2), .clip(3), .clip(3)])
        try s.run(line: "undo 2")
        assertTimes(s.times(), [0, 0.25, 0.5, 1])
        XCTAssertEqual(s.clipboard?.elements.count, 2, "undo leaves the clipboard alone")
    }

    func testPasteWithAnEmptyClipboardIsOneLine() {
        let s = Fixture.session([[0]])
        XCTAssertThrowsError(try s.run(line: "paste")) { e in
            XCTAssertEqual((e as? CommandError)?.message, "the clipboard is empty: copy or cut first")
        }
    }

    func testDuplicateRepeatsTheSelectionRightAfterItsSpan() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 1], [0.125]], contents: [[.clip(1), .clip(2), .clip(3), nil], [.clip(4)]])
        let ids = s.document.tracks[0].markers.map(\.id)
        s.selection = [0: [ids[0], ids[1]], 1: Set(s.document.tracks[1].markers.map(\.id))]
        s.cursor = 1.75
        XCTAssertEqual(try s.run(line: "duplicate"), "duplicated 3 markers")
        // The span runs to the next marker after the selection (0.5): the copy starts there.
        assertTimes(s.times(0), [0, 0.25, 0.5, 0.5, 0.75, 1])
        assertTimes(s.times(1), [0.125, 0.625])
        XCTAssertEqual(s.selectionCount, 3)
        XCTAssertEqual(s.cursor, 1.75, "duplicate leaves the cursor")
        try s.run(line: "undo")
        assertTimes(s.times(0), [0, 0.25, 0.5, 1])
        assertTimes(s.times(1), [0.125])
    }

    func testDuplicatingADuplicateKeepsTheSpan() throws {
        // An uneven bar inside the loop: the copy lies outside it, yet duplicates again one bar on.
        let s = Fixture.session([[0, 0.3, 1.1]], contents: [[.clip(1), .clip(2), .clip(1)]], selectTracks: [0])
        try s.run(line: "duplicate")
        try s.run(line: "duplicate")
        assertTimes(s.times(), [0, 0.3, 1.1, 2, 2.3, 3.1, 4, 4.3, 5.1])
    }

    // MARK: a stored group's span

    func testAStoredBarStampedFourTimesGivesFourBarsExactly() throws {
        // A bar of 4/4 at beat 0.5 with the loop on it; hats on the off-beats so the last is 0.25 s before the end.
        let s = Fixture.session([[0.25, 0.75, 1.25, 1.75]], contents: [[.clip(3), .clip(3), .clip(3), .clip(3)]])
        try s.run(line: "select all")
        try s.run(line: "group store 1")
        XCTAssertEqual(s.document.groups[1].span, 2)
        s.cursor = 2.25
        try s.run(line: "group stamp 1 times=4")
        let bar: [Double] = [0.25, 0.75, 1.25, 1.75]
        var expected = bar
        for k in 0..<4 { expected += bar.map { (t: Double) -> Double in 2 + Double(k) * 2 + t } }
        XCTAssertEqual(s.times(), expected)
        XCTAssertEqual(s.cursor, 10.25)
    }

    func testStampingAStoredBarThreeTimesOneAfterAnotherDoesNotDrift() throws {
        // Select all, store, then stamp three times in a row: each copy starts exactly one bar after the last.
        let s = Session(document: Document.newDocument())
        try s.run(line: "select all")
        try s.run(line: "group store 1")
        s.cursor = 2
        for _ in 0..<3 { try s.run(line: "draw group 1") }
        XCTAssertEqual(s.times().count, 64)
        XCTAssertEqual(s.times(), (0..<64).map { Double($0) * 0.125 })
    }

    func testSelectAllStoreThenThreeStampsOfTheDemoKickAreWholeBarsApart() throws {
        // `*` then `G` on the demo's kick (last hit 1.625 s, a 2 s loop), then group 1 stamped three times from
        // the loop's end: each copy starts exactly one loop later. (The span used to be the last hit plus the
        // last interval, 1.75 s, so every copy came a quarter second early.)
        // The group keeps the bar's clips (its empty markers are left out), each in its place in the bar.
        let s = Session(document: Document.demo())
        let bar = s.times(0)
        let clips = s.document.tracks[0].markers.filter { $0.content != nil }.map(\.time)
        try s.run(line: "select all")
        try s.run(line: "group store 1")
        XCTAssertEqual(s.document.groups[1].span, 2)
        s.cursor = 2
        for _ in 0..<3 { try s.run(line: "draw group 1") }
        var expected = bar
        for k in 1...3 { expected += clips.map { $0 + 2 * Double(k) } }
        XCTAssertEqual(s.times(0), expected)
    }

    // MARK: quantize

    func testQuantizeMovesToTheNearestStepByTheStrength() throws {
        let s = Fixture.session([[0.3125, 0.5, 0.8, 1.0625]], selectTracks: [0])
        XCTAssertEqual(try s.run(line: "quantize 2 strength=0.5"), "quantized 4 markers to 1/2 beat by 0.5")
        // Eighths of a 0.5 s beat: 0.3125 -> halfway to 0.25; 0.8 -> halfway to 0.75; 1.0625 -> halfway to 1.
        XCTAssertEqual(s.times(), [0.28125, 0.5, 0.775, 1.03125])
        try s.run(line: "quantize 2")
        XCTAssertEqual(s.times(), [0.25, 0.5, 0.75, 1])
        try s.run(line: "undo 2")
        XCTAssertEqual(s.times(), [0.3125, 0.5, 0.8, 1.0625])
    }

    func testQuantizeToFifthsOfABeat() throws {
        let s = Fixture.session([[0.09, 0.33, 0.47]], selectTracks: [0])
        try s.run(line: "quantize 5")
        XCTAssertEqual(s.times(), [0.1, 0.3, 0.5])
        XCTAssertThrowsError(try s.run(line: "quantize 0"))
        XCTAssertThrowsError(try s.run(line: "quantize 4 strength=2"))
        XCTAssertEqual(Command.quantize(3, strength: 0.5).text, "quantize 3 strength=0.5")
        XCTAssertEqual(Command.quantize(3, strength: 1).text, "quantize 3")
    }

    // MARK: the . token

    func testDotInAFillLeavesItsMarkerAsItIs() throws {
        let s = Fixture.session([(0..<8).map { Double($0) * 0.25 }],
                                contents: [[nil, .clip(5), nil, nil, nil, nil, nil, nil]], selectTracks: [0])
        try s.run(line: "fill (1 . . .)x2")
        XCTAssertEqual(s.contents(), [.clip(1), .clip(5), nil, nil, .clip(1), nil, nil, nil])
        XCTAssertThrowsError(try s.run(line: "fill . ."))
        try s.run(line: "undo")
        XCTAssertEqual(s.contents(), [nil, .clip(5), nil, nil, nil, nil, nil, nil])
    }

    func testDotInTypingSkipsAFreeMarkerAndInSelectTakesFreeMarkers() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 0.75]])
        try s.run(line: "type 1 . 2")
        XCTAssertEqual(s.contents(), [.clip(1), nil, .clip(2), nil])
        XCTAssertEqual(s.cursor, 0.75, "typing moves on past the skipped marker")
        s.cursor = 0
        try s.run(line: "select pattern .")
        XCTAssertEqual(s.selectedMarkers(track: 0).map(\.time), [0.25, 0.75])
    }

    // MARK: tracks

    func testTrackDeleteMoveAndDuplicateAreStepsThatUndoExactly() throws {
        let s = Fixture.session([[0], [0.25, 0.5], [0.75]])
        let original = s.document
        try s.run(line: "track 2 solo on")
        s.selection = [2: Set(s.document.tracks[2].markers.map(\.id))]
        try s.run(line: "track 1 move 3")
        XCTAssertEqual(s.document.tracks.map(\.name), ["t2", "t3", "t1"])
        XCTAssertEqual(Array(s.selection.keys), [1], "the selection follows its track")
        try s.run(line: "track 1 duplicate")
        XCTAssertEqual(s.document.tracks.map(\.name), ["t2", "t2", "t3", "t1"])
        XCTAssertEqual(s.currentTrack, 1)
        XCTAssertEqual(s.times(1), [0.25, 0.5])
        XCTAssertTrue(s.document.tracks[1].solo)
        let copyIDs = Set(s.document.tracks[1].markers.map(\.id))
        XCTAssertTrue(copyIDs.isDisjoint(with: s.document.tracks[0].markers.map(\.id)), "a copy has fresh ids")
        XCTAssertEqual(Array(s.selection.keys), [2])
        XCTAssertEqual(try s.run(line: "track 3 delete"), "deleted track 3 (t3)")
        XCTAssertEqual(s.document.tracks.map(\.name), ["t2", "t2", "t1"])
        XCTAssertTrue(s.selection.isEmpty)
        XCTAssertEqual(s.history.undoSteps.map(\.name),
                       ["solo track 2", "move track 1", "duplicate track 1", "delete track 3"])
        try s.run(line: "undo 3")
        XCTAssertEqual(s.document.tracks.map(\.name), ["t1", "t2", "t3"])
        try s.run(line: "redo 3")
        XCTAssertEqual(s.document.tracks.map(\.name), ["t2", "t2", "t1"])
        try s.run(line: "undo 4")
        XCTAssertEqual(s.document, original)
    }

    func testTrackCommandsRefuseWhatCannotBe() {
        let s = Fixture.session([[0]])
        XCTAssertThrowsError(try s.run(line: "track delete")) { e in
            XCTAssertEqual((e as? CommandError)?.message, "cannot delete the only track")
        }
        XCTAssertThrowsError(try s.run(line: "track 1 move 2")) { e in
            XCTAssertEqual((e as? CommandError)?.message, "no track 2 to move to (the document has 1)")
        }
        XCTAssertThrowsError(try s.run(line: "track 4 duplicate"))
        XCTAssertEqual(try CommandParser.parse("track move 2"), .trackMove(track: nil, to: 2))
        XCTAssertEqual(Command.trackDelete(track: 3).text, "track 3 delete")
        XCTAssertEqual(Command.trackDuplicate(track: nil).text, "track duplicate")
    }

    // MARK: temper apply

    func testTemperApplyRetimesAMultipleOfTheDotCountCycleAfterCycle() throws {
        let s = Fixture.session([(0..<8).map { Double($0) * 0.25 }], selectTracks: [0])
        // Straight eighths against triplets over a one-second span, halfway: 2 dots a cycle... four of them.
        try s.run(line: "temper span=1 top=2:0,1 bottom=3:0,2 s=1")
        let dots = s.document.designer.result().count
        XCTAssertEqual(dots, 2)
        XCTAssertEqual(try s.run(line: "temper apply"), "retimed 8 markers in 4 cycles at s = 1")
        assertTimes(s.times(), [0, 2.0 / 3, 1, 1 + 2.0 / 3, 2, 2 + 2.0 / 3, 3, 3 + 2.0 / 3])
        s.selection[0] = Set(s.document.tracks[0].markers.map(\.id).prefix(7))
        XCTAssertThrowsError(try s.run(line: "temper apply")) { e in
            XCTAssertEqual((e as? CommandError)?.message,
                           "temper apply: 7 markers selected, the temperament has 2 beats (select 2 or a multiple of 2)")
        }
    }

    // MARK: text forms

    func testEveryNewCommandReadsBackFromItsText() throws {
        let commands: [Command] = [
            .beat(1.0 / 3), .meter(7), .bpm(93.75), .grid(5), .grid(nil), .click(on: true, level: nil),
            .click(on: false, level: 0.25), .click(on: nil, level: 1), .countIn(2), .amp(0.5, relative: false),
            .amp(0.1, relative: true), .amp(-0.1, relative: true), .copy, .cut, .paste, .duplicate,
            .trackDelete(track: nil), .trackDelete(track: 2), .trackMove(track: 3, to: 1), .trackMove(track: nil, to: 2),
            .trackDuplicate(track: 4), .quantize(3, strength: 0.5), .quantize(32, strength: 1),
        ]
        for c in commands { XCTAssertEqual(try CommandParser.parse(c.text), c, c.text) }
    }
}
