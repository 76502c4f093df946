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
