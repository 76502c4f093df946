import XCTest
@testable import TemperaCore

/// Selection kinds, hold (add), all tracks, clip mode's elements; none of it is an undo step.
final class SessionSelectTests: XCTestCase {
    private func selectedTimes(_ s: Session, _ track: Int = 0) -> [Double] { s.selectedMarkers(track: track).map(\.time) }

    func testSelectAllLeftRightOnTheCurrentTrack() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 0.75], [0.1]])
        s.cursor = 0.5
        try s.run(.select(.init(.all)))
        XCTAssertEqual(selectedTimes(s), [0, 0.25, 0.5, 0.75])
        XCTAssertNil(s.selection[1])
        try s.run(.select(.init(.left)))
        XCTAssertEqual(selectedTimes(s), [0, 0.25])
        try s.run(.select(.init(.right)))
        XCTAssertEqual(selectedTimes(s), [0.5, 0.75])
        try s.run(.select(.init(.none)))
        XCTAssertEqual(s.selectionCount, 0)
        XCTAssertFalse(s.canUndo)
        XCTAssertEqual(s.revision, 0)
    }

    func testSelectOnAllTracks() throws {
        let s = Fixture.session([[0, 1], [0.5, 1.5]])
        s.cursor = 1
        try s.run(.select(.init(.right, allTracks: true)))
        XCTAssertEqual(selectedTimes(s, 0), [1])
        XCTAssertEqual(selectedTimes(s, 1), [1.5])
    }

    func testSelectAtPicksTheNearestMarker() throws {
        let s = Fixture.session([[0, 0.4, 1]])
        try s.run(.select(.init(.at(0.65))))
        XCTAssertEqual(selectedTimes(s), [0.4])
    }

    func testSelectRangeIncludesBothEnds() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 0.75, 1]])
        try s.run(.select(.init(.range(0.25, 0.75))))
        XCTAssertEqual(selectedTimes(s), [0.25, 0.5, 0.75])
        XCTAssertThrowsError(try s.run(.select(.init(.range(1, 0)))))
    }

    func testHoldTogglesWhatItTouches() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 0.75]])
        try s.run(.select(.init(.range(0, 0.25))))
        try s.run(.select(.init(.range(0.25, 0.5), add: true)))
        XCTAssertEqual(selectedTimes(s), [0, 0.5])
        try s.run(.select(.init(.at(0.75), add: true)))
        XCTAssertEqual(selectedTimes(s), [0, 0.5, 0.75])
    }

    func testPatternSelectTakesEveryThirdFromTheCursor() throws {
        let s = Fixture.session([(0..<8).map { Double($0) / 8 }])
        s.cursor = 0.125
        // `+ -x2`
        try s.run(.select(.init(.pattern(Fixture.code([.hold, .rest, .rest])))))
        XCTAssertEqual(selectedTimes(s), [0.125, 0.5, 0.875])
    }

    func testPatternSelectByClipNumber() throws {
        let s = Fixture.session([[0, 1, 2, 3]], contents: [[.clip(2), .clip(1), .clip(2), nil]])
        try s.run(.select(.init(.pattern(Fixture.code([.clip(2)])))))
        XCTAssertEqual(selectedTimes(s), [0, 2])
    }

    func testPatternSelectAtRandomIsReproducibleFromTheSeed() throws {
        func pick() throws -> [Double] {
            let s = Fixture.session([(0..<64).map(Double.init)])
            try s.run(.select(.init(.pattern(Fixture.code([.random])))))
            return selectedTimes(s)
        }
        let first = try pick()
        XCTAssertEqual(first, try pick())
        XCTAssertGreaterThan(first.count, 10)
        XCTAssertLessThan(first.count, 54)
    }

    func testInClipModeOnlyMarkersHoldingContentAreElements() throws {
        let s = Fixture.session([[0, 0.5, 1]], contents: [[.clip(1), nil, .rest]])
        s.clipMode = true
        try s.run(.select(.init(.all)))
        XCTAssertEqual(selectedTimes(s), [0, 1])
        try s.run(.select(.init(.at(0.55))))
        XCTAssertEqual(selectedTimes(s), [1])
    }

    func testSelectionFollowsMarkersThroughEditsAndUndo() throws {
        let s = Fixture.session([[0, 0.5, 1]])
        try s.run(.select(.init(.at(0.5))))
        try s.run(.shift(0.75))
        XCTAssertEqual(selectedTimes(s), [1.25])
        try s.run(.undo(1))
        XCTAssertEqual(selectedTimes(s), [0.5])
        XCTAssertEqual(s.selectedIndices(track: 0), [1])
    }
}

/// A pattern over a selection, and one token filling a selection.
final class SelectionPatternTests: XCTestCase {
    func selectedTimes(_ s: Session) -> [Double] { s.selectedMarkers(track: s.currentTrack).map(\.time) }

    func testAPatternSelectOverASelectionPicksAmongTheSelectedMarkers() throws {
        // 24 markers a quarter of a second apart; `select range 2 4` holds the nine from 2 to 4.
        let s = Fixture.session([(0..<24).map { Double($0) / 4 }])
        try s.run(line: "select range 2 4")
        XCTAssertEqual(s.selectionCount, 9)
        try s.run(line: "select pattern \"+-\"")
        XCTAssertEqual(selectedTimes(s), [2, 2.5, 3, 3.5, 4])
        // Nothing selected: from the cursor, as before.
        try s.run(line: "select none")
        s.cursor = 4.5
        try s.run(line: "select pattern \"+-\"")
        XCTAssertEqual(selectedTimes(s), [4.5, 5, 5.5])
    }

    func testOneTokenFillsEverySelectedMarker() throws {
        let s = Fixture.session([(0..<8).map { Double($0) / 8 }])
        try s.run(line: "select range 0.25 1")
        XCTAssertEqual(s.selectionCount, 6)
        XCTAssertEqual(try s.run(line: "fill \"10\""), nil)
        XCTAssertEqual(s.contents(0), [nil, nil] + Array(repeating: .clip(10), count: 6))
        try s.run(.undo(1))
        XCTAssertEqual(s.contents(0), Array(repeating: nil, count: 8))
        // Two tokens over the selection still lay one a marker, in order.
        try s.run(line: "fill \"1 2\"")
        XCTAssertEqual(s.contents(0), [nil, nil, .clip(1), .clip(2), nil, nil, nil, nil])
    }
}
