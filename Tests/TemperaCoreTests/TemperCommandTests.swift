import XCTest
@testable import TemperaCore

final class TemperCommandTests: XCTestCase {
    private func message(_ body: () throws -> Any?) -> String? {
        do { _ = try body(); return nil } catch { return (error as? CommandError)?.message ?? "\(error)" }
    }

    func testDefineSetsTheDesignerAsOneUndoableStep() throws {
        let s = Fixture.session([[]])
        let before = s.document.designer
        let text = try s.run(.temperDefine(span: 1, top: 2, topBeats: .all, bottom: 3, bottomBeats: .list([0, 2]),
                                           map: nil, slider: 1))
        XCTAssertEqual(text, "temperament: 2 beats, s = 1")
        XCTAssertEqual(s.document.designer.top.division, 2)
        XCTAssertEqual(s.document.designer.bottom.beats, [0, 2])
        XCTAssertEqual(s.document.designer.slider, 1)
        XCTAssertEqual(s.undoName, "temper")
        try s.undo()
        XCTAssertEqual(s.document.designer, before)
        try s.redo()
        XCTAssertEqual(s.document.designer.bottom.beats, [0, 2])
    }

    func testDefineWithUnequalCountsSaysWhatItPaired() throws {
        let s = Fixture.session([[]])
        let text = try s.run(.temperDefine(span: 2, top: 7, topBeats: .all, bottom: 5, bottomBeats: .all, map: nil, slider: nil))
        XCTAssertEqual(text, "temperament: 5 beats, s = 0.5; paired the first 5 beats; 2 top beats unpaired (give map= to choose)")
    }

    func testBadDefineChangesNothing() {
        let s = Fixture.session([[]])
        let before = s.document
        XCTAssertEqual(message { try s.run(.temperDefine(span: 1, top: 4, topBeats: .all, bottom: 3, bottomBeats: .list([0, 1]),
                                                         map: [.init(top: 0, bottom: 2)], slider: nil)) },
                       "temper: map 0-2: bottom beat 2 is not chosen (bottom: 0,1)")
        XCTAssertEqual(s.document, before)
        XCTAssertFalse(s.canUndo)
    }

    func testSliderChangeIsUndone() throws {
        let s = Fixture.session([[]])
        XCTAssertEqual(s.document.designer.slider, 0.5)
        XCTAssertEqual(try s.run(.temperSlider(0.75)), "s = 0.75")
        XCTAssertEqual(s.document.designer.slider, 0.75)
        XCTAssertEqual(s.undoName, "temper slider")
        try s.undo()
        XCTAssertEqual(s.document.designer.slider, 0.5)
    }

    func testPresetSetsTheDesignerAndUnknownNamesListThePresets() throws {
        let s = Fixture.session([[]])
        XCTAssertEqual(try s.run(.temperPreset("swing")),
                       "preset swing: temper span=0.5 top=2:all bottom=3:0,2 s=0.5")
        XCTAssertEqual(s.document.designer, TemperamentPreset.swing.temperament)
        XCTAssertEqual(message { try s.run(.temperPreset("waltz")) },
                       "temper preset: unknown preset 'waltz' (presets: swing, tigrigna, five-seven)")
        try s.undo()
        XCTAssertEqual(s.document.designer, Document.defaultDesigner)
    }

    func testStampPutsKCyclesAtTheCursorWithTheChosenClip() throws {
        let s = Fixture.session([[0.1], []])
        s.currentTrack = 1
        s.cursor = 1
        s.chosenClip = .clip(3)
        _ = try s.run(.temperPreset("swing"))
        XCTAssertEqual(try s.run(.temperStamp(times: 2)), "stamped 4 markers (2 cycles)")
        assertTimes(s.times(1), [1, 1 + 7.0 / 24, 1.5, 1.5 + 7.0 / 24])
        XCTAssertEqual(s.contents(1), [.clip(3), .clip(3), .clip(3), .clip(3)])
        assertTimes(s.document.tracks[1].markers.map(\.amp), [0.9, 0.6, 0.9, 0.6])
        XCTAssertEqual(s.times(0), [0.1])
        XCTAssertEqual(s.cursor, 2, "the cursor moves past the stamp")
        XCTAssertEqual(s.selection[1]?.count, 4)
        XCTAssertEqual(s.undoName, "temper stamp")
        try s.undo()
        XCTAssertEqual(s.times(1), [])
    }

    func testAStampOntoGridMarkersPutsItsClipsOnThemRatherThanBesideThem() throws {
        // A grid of eighths, clipless, on [0, 1); swing stamps at 0, 7/24, 0.5 and 0.5 + 7/24: 0 and 0.5 are on
        // the grid, the other two between.
        let grid = (0..<8).map { Double($0) / 8 }
        let s = Fixture.session([grid])
        s.chosenClip = .clip(2)
        _ = try s.run(.temperPreset("swing"))
        XCTAssertEqual(try s.run(.temperStamp(times: 2)), "stamped 4 markers (2 cycles)")
        assertTimes(s.times(0), [0, 0.125, 0.25, 7.0 / 24, 0.375, 0.5, 0.625, 0.75, 0.5 + 7.0 / 24, 0.875])
        XCTAssertEqual(s.document.tracks[0].markers.count, 10, "no second marker at 0 or 0.5")
        let byTime = Dictionary(uniqueKeysWithValues: s.document.tracks[0].markers.map { ($0.time, $0) })
        XCTAssertEqual(byTime[0]?.content, .clip(2))
        XCTAssertEqual(byTime[0]?.amp, 0.9)
        XCTAssertEqual(byTime[0.5]?.content, .clip(2))
        XCTAssertEqual(byTime[0.125]?.content, nil)
        XCTAssertEqual(s.selection[0]?.count, 4)
        try s.undo()
        XCTAssertEqual(s.times(0), grid)
        XCTAssertEqual(s.contents(0), Array(repeating: nil, count: 8))
    }

    func testStampLeavesOutDotsBeforeTimeZero() throws {
        let s = Fixture.session([[]])
        _ = try s.run(.temperDefine(span: 1, top: 2, topBeats: .all, bottom: 2, bottomBeats: .all,
                                    map: [.init(top: 0, bottom: 1), .init(top: 1, bottom: 1)], slider: -0.5))
        // Pair 0-1 at s = -0.5: -0.5 * 0.5 = -0.25; pair 1-1: 1.5 * 0.5 - 0.25 = 0.5.
        XCTAssertEqual(try s.run(.temperStamp(times: 1)), "stamped 1 marker (1 cycle); 1 before time 0 left out")
        XCTAssertEqual(s.times(), [0.5])
    }

    func testMorphRampsTheSliderLinearlyOverTheCycles() throws {
        let s = Fixture.session([[]])
        _ = try s.run(.temperPreset("swing"))
        XCTAssertEqual(try s.run(.temperMorph(times: 3, from: 0, to: 1)), "stamped 6 markers (3 cycles)")
        // Off-beats at 1/2, 7/12 and 2/3 of each 0.5 s cycle.
        assertTimes(s.times(), [0, 0.25, 0.5, 0.5 + 7.0 / 24, 1, 1 + 1.0 / 3])
        XCTAssertEqual(s.document.designer.slider, 0.5, "a morph leaves the slider where it was")
        XCTAssertEqual(s.undoName, "temper morph")
        try s.undo()
        XCTAssertEqual(s.times(), [])
    }

    func testMorphOfOneCycleUsesTheStartValue() throws {
        let s = Fixture.session([[]])
        _ = try s.run(.temperPreset("swing"))
        _ = try s.run(.temperMorph(times: 1, from: 1, to: 0))
        assertTimes(s.times(), [0, 1.0 / 3])
    }

    func testGroupPutsTheResultIntoASlot() throws {
        let s = Fixture.session([[]])
        s.chosenClip = .clip(5)
        _ = try s.run(.temperPreset("tigrigna"))
        XCTAssertEqual(try s.run(.temperGroup(4)), "group 4: 5 elements at s = 0.5")
        let g = s.document.groups[4]
        assertTimes(g.elements.map(\.offset), [0, 0.18333333333333333, 0.36666666666666667, 0.55, 0.775])
        XCTAssertEqual(g.span, 1)
        XCTAssertEqual(g.elements.map(\.content), Array(repeating: .clip(5), count: 5))
        XCTAssertEqual(message { try s.run(.temperGroup(17)) }, "temper group: group 17 is out of range (groups are 1-16)")
        try s.undo()
        XCTAssertTrue(s.document.groups[4].isEmpty)
    }

    func testApplyRetimesTheSelectedMarkersRelativeToTheFirst() throws {
        let s = Fixture.session([[0, 2, 2.2, 2.4, 2.6, 2.8, 5]], contents: [[.clip(1), .clip(2), .clip(3), .clip(4), .clip(5), .clip(6), .clip(7)]])
        _ = try s.run(.temperPreset("tigrigna"))
        _ = try s.run(.temperSlider(0))
        let ids = s.document.tracks[0].markers.map(\.id)
        s.selection[0] = Set(ids[1...5])
        XCTAssertEqual(try s.run(.temperApply), "retimed 5 markers at s = 0")
        assertTimes(s.times(), [0, 2, 2 + 1.0 / 6, 2 + 1.0 / 3, 2.5, 2.75, 5])
        XCTAssertEqual(s.contents(), [.clip(1), .clip(2), .clip(3), .clip(4), .clip(5), .clip(6), .clip(7)])
        XCTAssertEqual(s.undoName, "temper apply")
        try s.undo()
        XCTAssertEqual(s.times(), [0, 2, 2.2, 2.4, 2.6, 2.8, 5])
    }

    func testApplyWithMismatchedCountsSaysBothAndChangesNothing() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 0.75]], selectTracks: [0])
        _ = try s.run(.temperPreset("tigrigna"))
        let before = s.document
        XCTAssertEqual(message { try s.run(.temperApply) }, "temper apply: 4 markers selected, the temperament has 5 beats (select 5 or a multiple of 5)")
        XCTAssertEqual(s.document, before)
    }

    func testApplyWithoutSelectionSaysSo() {
        let s = Fixture.session([[0, 1]])
        XCTAssertEqual(message { try s.run(.temperApply) }, "temper apply: no markers selected on the current track")
    }

    func testTheDesignerIsSavedWithTheDocumentState() throws {
        // The designer's state is document state: modified flag and revision move with it.
        let s = Fixture.session([[]])
        let rev = s.revision
        _ = try s.run(.temperSlider(1.25))
        XCTAssertTrue(s.isModified)
        XCTAssertEqual(s.revision, rev + 1)
    }

    func testSetDesignerValidatesAndIsOneStep() throws {
        let s = Fixture.session([[]])
        var t = s.document.designer
        t.top = t.top.toggling(2)
        try s.setDesigner(t, name: "designer: toggle beat")
        XCTAssertEqual(s.document.designer.top.beats, [0, 1, 2, 3, 4, 6])
        XCTAssertEqual(s.undoName, "designer: toggle beat")
        var bad = t
        bad.map = [.init(top: 5, bottom: 0)]
        XCTAssertThrowsError(try s.setDesigner(bad, name: "x"))
        try s.undo()
        XCTAssertEqual(s.document.designer, Document.defaultDesigner)
    }

    func testEveryDesignerCommandUndoneReturnsTheExactOriginal() throws {
        let s = Fixture.session([[0, 0.5, 1, 1.5, 2, 2.5], [0.25]], contents: [[.clip(1), nil, .clip(2), nil, .clip(3), nil], [.clip(4)]])
        let original = s.document
        let commands: [Command] = [
            .temperPreset("tigrigna"), .temperSlider(1.3), .temperStamp(times: 3), .temperMorph(times: 4, from: -0.5, to: 1.5),
            .temperGroup(2),
            .temperDefine(span: 1.5, top: 8, topBeats: .euclid(k: 5, rotation: 2), bottom: 6, bottomBeats: .all,
                        map: nil, slider: 0.2),
        ]
        var steps = 0
        for c in commands {
            _ = try s.run(c)
            steps += 1
        }
        s.selection = [0: Set(s.document.tracks[0].markers.prefix(5).map(\.id))]
        s.currentTrack = 0
        _ = try s.run(.temperApply)
        steps += 1
        try s.undo(steps)
        XCTAssertEqual(s.document, original)
        XCTAssertFalse(s.canUndo)
        try s.redo(steps)
        try s.undo(steps)
        XCTAssertEqual(s.document, original)
    }

    func testTextualFormsDriveTheDesigner() throws {
        let s = Fixture.session([[]])
        try s.run(line: "temper span=2 top=7:euclid(5,6) bottom=5:all s=1/2")
        XCTAssertEqual(s.document.designer, TemperamentPreset.fiveSeven.temperament)
        try s.run(line: "temper span=1 top=4:all bottom=2:all map=0-0,1-0,2-1,3-1 s=0.25")
        XCTAssertEqual(s.document.designer.map?.count, 4)
        assertTimes(s.document.designer.result().map(\.time), [0, 0.1875, 0.5, 0.6875])
        try s.run(line: "temper preset swing")
        try s.run(line: "temper slider 1")
        try s.run(line: "temper morph times=2 from=0 to=1")
        assertTimes(s.times(), [0, 0.25, 0.5, 0.5 + 1.0 / 3])
        try s.run(line: "temper stamp times=1")
        assertTimes(s.times(), [0, 0.25, 0.5, 0.5 + 1.0 / 3, 1, 1 + 1.0 / 3])
        try s.run(line: "temper group 3")
        XCTAssertEqual(s.document.groups[3].elements.count, 2)
        let before = s.document
        XCTAssertThrowsError(try s.run(line: "temper span=1 top=4:0,5 bottom=2:all"))
        XCTAssertThrowsError(try s.run(line: "temper span=1 top=4:0,1 bottom=2:0 map=1-1"))
        XCTAssertEqual(s.document, before)
    }

    func testTheDesignerSurvivesSaveAndLoad() throws {
        let s = Fixture.session([[]])
        try s.run(line: "temper span=3/4 top=4:all bottom=3:0,2 map=0-0,1-0,2-2,3-2 s=-0.35")
        var t = s.document.designer
        t.top.amps = [1, 0.25, 0.5, 0.125]
        try s.setDesigner(t, name: "designer: amplitude")
        let loaded = try DocumentFile.decode(DocumentFile.encode(s.document))
        XCTAssertEqual(loaded.designer, s.document.designer)
    }
}
