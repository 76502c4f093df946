import XCTest
@testable import TemperaCore

/// Shift, scale, subdivide, rotate, reverse and delete, in marker mode and in clip mode, with exact values.
final class SessionModifyTests: XCTestCase {
    // MARK: Shift

    func testShiftMovesSelectedMarkersBySeconds() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 1]])
        s.selection[0] = Set([s.document.tracks[0].markers[1].id, s.document.tracks[0].markers[2].id])
        try s.run(.shift(0.6))
        assertTimes(s.times(), [0, 0.85, 1, 1.1])
        XCTAssertEqual(s.selectedMarkers(track: 0).map(\.time), [0.85, 1.1])
        s.checkInvariants()
    }

    func testShiftBeforeZeroIsRefusedAndChangesNothing() {
        let s = Fixture.session([[0.1, 0.5]], selectTracks: [0])
        let before = s.document
        XCTAssertThrowsError(try s.run(.shift(-0.2)))
        XCTAssertEqual(s.document, before)
        XCTAssertFalse(s.canUndo)
    }

    func testShiftInClipModeWithSnapMovesClipsByMarkersAndTheMarkersStay() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 0.75, 1]], contents: [[.clip(1), .clip(2), nil, nil, .clip(4)]])
        let ids = s.document.tracks[0].markers.map(\.id)
        s.clipMode = true
        s.selection[0] = [ids[0], ids[1]]
        try s.run(.shift(2))
        assertTimes(s.times(), [0, 0.25, 0.5, 0.75, 1])
        XCTAssertEqual(s.contents(), [nil, nil, .clip(1), .clip(2), .clip(4)])
        XCTAssertEqual(s.selection[0], [ids[2], ids[3]])
        try s.run(.shift(-1))
        XCTAssertEqual(s.contents(), [nil, .clip(1), .clip(2), nil, .clip(4)])
    }

    func testShiftInClipModePastTheLastMarkerIsRefused() {
        let s = Fixture.session([[0, 0.5, 1]], contents: [[nil, .clip(1), nil]])
        s.clipMode = true
        s.selection[0] = [s.document.tracks[0].markers[1].id]
        XCTAssertThrowsError(try s.run(.shift(2)))
        XCTAssertThrowsError(try s.run(.shift(0.5)))
        XCTAssertEqual(s.contents(), [nil, .clip(1), nil])
    }

    func testShiftInClipModeWithoutSnapMovesMarkersWithTheirClips() throws {
        let s = Fixture.session([[0, 0.5]], contents: [[.clip(3), nil]], selectTracks: [0])
        s.clipMode = true
        s.snap = false
        s.selection[0] = [s.document.tracks[0].markers[0].id]
        try s.run(.shift(0.75))
        assertTimes(s.times(), [0.5, 0.75])
        XCTAssertEqual(s.contents(), [nil, .clip(3)])
    }

    // MARK: Scale

    func testScaleWithTheLastHandleKeepsTheFirstFixed() throws {
        let s = Fixture.session([[1, 1.5, 2]], selectTracks: [0])
        try s.run(.scale(factor: 2, handle: .last))
        assertTimes(s.times(), [1, 2, 3])
    }

    func testScaleWithTheFirstHandleKeepsTheLastFixed() throws {
        let s = Fixture.session([[1, 1.5, 2]], selectTracks: [0])
        try s.run(.scale(factor: 0.5, handle: .first))
        assertTimes(s.times(), [1.5, 1.75, 2])
    }

    func testScaleAboutInnerHandleKeepsOuterEnds() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 0.75, 1]], selectTracks: [0])
        try s.run(.scaleHandle(k: 3, to: 0.6))
        assertTimes(s.times(), [0, 0.3, 0.6, 0.8, 1])
    }

    func testScaleAboutOuterHandleRescalesTheWholeSelection() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 0.75, 1]], selectTracks: [0])
        try s.run(.scaleHandle(k: 5, to: 2))
        assertTimes(s.times(), [0, 0.5, 1, 1.5, 2])
        try s.run(.scaleHandle(k: 1, to: 1))
        assertTimes(s.times(), [1, 1.25, 1.5, 1.75, 2])
    }

    func testScaleHandleLeavesUnselectedMarkersAlone() throws {
        let s = Fixture.session([[0, 0.5, 1, 3]])
        let ids = s.document.tracks[0].markers.map(\.id)
        s.selection[0] = [ids[0], ids[1], ids[2]]
        try s.run(.scaleHandle(k: 2, to: 0.25))
        assertTimes(s.times(), [0, 0.25, 1, 3])
    }

    func testScaleRefusesAHandleOutsideTheEndsAndAMissingElement() {
        let s = Fixture.session([[0, 0.5, 1]], selectTracks: [0])
        XCTAssertThrowsError(try s.run(.scaleHandle(k: 2, to: 1)))
        XCTAssertThrowsError(try s.run(.scaleHandle(k: 4, to: 0.5)))
        XCTAssertThrowsError(try s.run(.scaleHandle(k: 3, to: 0)))
        XCTAssertThrowsError(try s.run(.scale(factor: 0, handle: .last)))
        assertTimes(s.times(), [0, 0.5, 1])
    }

    func testScaleSpansSeveralTracksAsOneSelection() throws {
        let s = Fixture.session([[0, 1], [0.5]], selectTracks: [0, 1])
        try s.run(.scale(factor: 3, handle: .last))
        assertTimes(s.times(0), [0, 3])
        assertTimes(s.times(1), [1.5])
    }

    // MARK: Subdivide

    func testSubdivideAddsEvenlySpacedMarkersBetweenEachPair() throws {
        let s = Fixture.session([[0, 1]], selectTracks: [0])
        try s.run(.subdivide(3))
        assertTimes(s.times(), [0, 0.25, 0.5, 0.75, 1])
        XCTAssertEqual(s.selectionCount, 5)
        s.checkInvariants()
    }

    func testSubdivideWorksPairByPair() throws {
        let s = Fixture.session([[0, 1, 1.5, 4]])
        let ids = s.document.tracks[0].markers.map(\.id)
        s.selection[0] = [ids[0], ids[1], ids[2]]
        try s.run(.subdivide(1))
        assertTimes(s.times(), [0, 0.5, 1, 1.25, 1.5, 4])
        XCTAssertThrowsError(try s.run(.subdivide(0)))
    }

    // MARK: Rotate

    func testRotateInMarkerModeRotatesIntervalsWithAmpAndContentTravelling() throws {
        let s = Fixture.session([[0, 0.1, 0.3, 0.6, 1.0]],
                                contents: [[.clip(1), .clip(2), .clip(3), .clip(4), .clip(5)]],
                                amps: [[0.1, 0.2, 0.3, 0.4, 0.5]], selectTracks: [0])
        try s.run(.rotate)
        assertTimes(s.times(), [0, 0.4, 0.5, 0.7, 1.0])
        XCTAssertEqual(s.contents(), [.clip(1), .clip(2), .clip(3), .clip(4), .clip(5)])
        XCTAssertEqual(s.document.tracks[0].markers.map(\.amp), [0.1, 0.2, 0.3, 0.4, 0.5])
    }

    func testRotateInClipModeMovesEachClipToTheNextSelectedMarker() throws {
        let s = Fixture.session([[0, 0.1, 0.3, 0.6]], contents: [[.clip(1), .rest, .clip(3), .hold]],
                                amps: [[0.1, 0.2, 0.3, 0.4]], selectTracks: [0])
        s.clipMode = true
        try s.run(.rotate)
        assertTimes(s.times(), [0, 0.1, 0.3, 0.6])
        XCTAssertEqual(s.contents(), [.hold, .clip(1), .rest, .clip(3)])
        XCTAssertEqual(s.document.tracks[0].markers.map(\.amp), [0.1, 0.2, 0.3, 0.4])
    }

    // MARK: Reverse

    func testReverseInMarkerModeMirrorsTimesInsideTheSpan() throws {
        let s = Fixture.session([[0, 0.1, 0.3, 0.6, 1.0]],
                                contents: [[.clip(1), .clip(2), .clip(3), .clip(4), .clip(5)]], selectTracks: [0])
        try s.run(.reverse)
        assertTimes(s.times(), [0, 0.4, 0.7, 0.9, 1.0])
        XCTAssertEqual(s.contents(), [.clip(5), .clip(4), .clip(3), .clip(2), .clip(1)])
    }

    func testReverseInClipModeReversesTheClipsOverTheMarkers() throws {
        let s = Fixture.session([[0, 0.1, 0.3]], contents: [[.clip(1), .clip(2), .rest]], selectTracks: [0])
        s.clipMode = true
        try s.run(.reverse)
        assertTimes(s.times(), [0, 0.1, 0.3])
        XCTAssertEqual(s.contents(), [.rest, .clip(2), .clip(1)])
    }

    // MARK: Delete

    func testDeleteRemovesTheSelectedMarkers() throws {
        let s = Fixture.session([[0, 0.5, 1]], contents: [[.clip(1), .clip(2), nil]])
        s.selection[0] = [s.document.tracks[0].markers[1].id]
        try s.run(.delete)
        assertTimes(s.times(), [0, 1])
        XCTAssertEqual(s.selectionCount, 0)
    }

    func testDeleteInClipModeRemovesOnlyTheClips() throws {
        let s = Fixture.session([[0, 0.5, 1]], contents: [[.clip(1), .clip(2), nil]], selectTracks: [0])
        s.clipMode = true
        try s.run(.delete)
        assertTimes(s.times(), [0, 0.5, 1])
        XCTAssertEqual(s.contents(), [nil, nil, nil])
    }

    func testToolsWithNothingSelectedThrowAndRecordNothing() {
        let s = Fixture.session([[0, 1]])
        for c in [Command.shift(1), .scale(factor: 2, handle: .last), .scaleHandle(k: 1, to: 0.5), .subdivide(2),
                  .rotate, .reverse, .delete] {
            XCTAssertThrowsError(try s.run(c), "\(c)") { error in
                XCTAssertEqual((error as? CommandError)?.message, "nothing is selected")
            }
        }
        XCTAssertFalse(s.canUndo)
        XCTAssertEqual(s.revision, 0)
    }
}

/// The tools whose clip-mode meaning is the marker-mode one, pinned down so a change is deliberate.
final class SessionClipModeTests: XCTestCase {
    func testScaleInClipModeMovesMarkersWithTheirClips() throws {
        let s = Fixture.session([[0, 0.5, 1]], contents: [[.clip(1), .clip(2), .clip(3)]], selectTracks: [0])
        s.clipMode = true
        try s.run(.scale(factor: 0.5, handle: .last))
        assertTimes(s.times(), [0, 0.25, 0.5])
        XCTAssertEqual(s.contents(), [.clip(1), .clip(2), .clip(3)])
    }

    func testSubdivideInClipModeAddsFreeMarkersBetweenTheClips() throws {
        let s = Fixture.session([[0, 1]], contents: [[.clip(1), .clip(2)]], selectTracks: [0])
        s.clipMode = true
        try s.run(.subdivide(1))
        assertTimes(s.times(), [0, 0.5, 1])
        XCTAssertEqual(s.contents(), [.clip(1), nil, .clip(2)])
    }

    func testGroupStoreInClipModeTakesOnlyMarkersHoldingClips() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 0.75]], contents: [[.clip(1), nil, .rest, nil]], selectTracks: [0])
        s.clipMode = true
        try s.run(.groupStore(1))
        XCTAssertEqual(s.document.groups[1].elements.map(\.offset), [0, 0.5])
        XCTAssertEqual(s.document.groups[1].span, 0.75)
    }

    func testFillInClipModeOverwritesClipsOnTheSelection() throws {
        let s = Fixture.session([[0, 0.25, 0.5]], contents: [[.clip(1), .clip(2), .clip(3)]], selectTracks: [0])
        s.clipMode = true
        try s.run(.fill(Fixture.code([.rest, .hold, .clip(16)])))
        XCTAssertEqual(s.contents(), [.rest, .hold, .clip(16)])
    }
}
