import XCTest
@testable import TemperaCore

/// Marker add, pulse, draw single (three modes), typing draw and pattern fill, with exact values.
final class SessionDrawTests: XCTestCase {
    func testMarkerAddPutsAMarkerOnTheCurrentTrack() throws {
        let s = Fixture.session([[0], [0]])
        s.currentTrack = 1
        try s.run(.markerAdd(time: 0.375, amp: 0.5))
        assertTimes(s.times(1), [0, 0.375])
        XCTAssertEqual(s.document.tracks[1].markers[1].amp, 0.5)
        XCTAssertThrowsError(try s.run(.markerAdd(time: -1, amp: nil)))
        XCTAssertThrowsError(try s.run(.markerAdd(time: 1, amp: 1.5)))
        XCTAssertEqual(s.history.undoSteps.count, 1)
    }

    func testPulseAddsEvenlySpacedMarkersFromTheStartOrTheCursor() throws {
        let s = Fixture.session([[]])
        try s.run(.pulse(period: 0.25, count: 3, start: 1, amp: 0.4))
        assertTimes(s.times(), [1, 1.25, 1.5])
        s.cursor = 0.1
        try s.run(.pulse(period: 0.5, count: 2, start: nil, amp: nil))
        assertTimes(s.times(), [0.1, 0.6, 1, 1.25, 1.5])
        XCTAssertThrowsError(try s.run(.pulse(period: 0, count: 2, start: nil, amp: nil)))
        XCTAssertThrowsError(try s.run(.pulse(period: 1, count: 0, start: nil, amp: nil)))
    }

    func testDrawInMarkerModeAddsAFreeMarkerAtTheCursor() throws {
        let s = Fixture.session([[0, 1]])
        s.cursor = 0.3
        try s.run(.draw(amp: 0.6))
        assertTimes(s.times(), [0, 0.3, 1])
        XCTAssertEqual(s.document.tracks[0].markers[1].content, nil)
        XCTAssertEqual(s.document.tracks[0].markers[1].amp, 0.6)
    }

    func testDrawInClipModeWithSnapPutsTheChosenClipOnTheNearestMarker() throws {
        let s = Fixture.session([[0, 0.5, 1]])
        s.clipMode = true
        s.snap = true
        try s.run(.chooseClip(.clip(7)))
        s.cursor = 0.6
        try s.run(.draw(amp: nil))
        assertTimes(s.times(), [0, 0.5, 1])
        XCTAssertEqual(s.contents(), [nil, .clip(7), nil])
    }

    func testDrawInClipModeWithoutSnapAddsMarkerAndClipAtTheExactCursor() throws {
        let s = Fixture.session([[0, 0.5, 1]])
        s.clipMode = true
        s.snap = false
        s.chosenClip = .rest
        s.cursor = 0.6
        try s.run(.draw(amp: 0.9))
        assertTimes(s.times(), [0, 0.5, 0.6, 1])
        XCTAssertEqual(s.contents(), [nil, nil, .rest, nil])
    }

    func testDrawInClipModeWithSnapOnAnEmptyTrackIsRefused() {
        let s = Fixture.session([[]])
        s.clipMode = true
        XCTAssertThrowsError(try s.run(.draw(amp: nil)))
        XCTAssertThrowsError(try s.run(.chooseClip(.clip(17))))
    }

    func testTypingDrawFillsTheNextFreeMarkersAndMovesTheCursorOn() throws {
        let s = Fixture.session([[0, 0.25, 0.5, 0.75, 1]], contents: [[nil, .clip(9), nil, nil, nil]])
        try s.run(.type(Fixture.code([.clip(1), .clip(2)])))
        XCTAssertEqual(s.contents(), [.clip(1), .clip(9), .clip(2), nil, nil])
        XCTAssertEqual(s.cursor, 0.75)
        try s.run(.type(Fixture.code([.hold])))
        XCTAssertEqual(s.contents(), [.clip(1), .clip(9), .clip(2), .hold, nil])
        XCTAssertEqual(s.cursor, 1)
    }

    func testTypingDrawSaysHowManyTokensItDropped() throws {
        let s = Fixture.session([[0, 0.5]])
        s.cursor = 0.5
        let message = try s.run(.type(Fixture.code([.clip(3), .clip(4), .rest])))
        XCTAssertEqual(s.contents(), [nil, .clip(3)])
        XCTAssertEqual(message, "typed 1; dropped 2 tokens past the last marker")
        XCTAssertThrowsError(try s.run(.type(Fixture.code([.clip(5)]))))
    }

    func testFillFromTheCursorPlacesTheCodeOnSuccessiveMarkers() throws {
        // `(1 -)x2 3x2 +` over seven markers.
        let code = PatternCode(items: [.sequence([.symbol(.clip(1), times: 1), .symbol(.rest, times: 1)], times: 2),
                                       .symbol(.clip(3), times: 2), .symbol(.hold, times: 1)],
                               source: "(1 -)x2 3x2 +")
        let s = Fixture.session([[0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875]])
        s.cursor = 0.1
        let message = try s.run(.fill(code))
        XCTAssertNil(message)
        XCTAssertEqual(s.contents(), [nil, .clip(1), .rest, .clip(1), .rest, .clip(3), .clip(3), .hold])
        XCTAssertEqual(s.document.pattern, "(1 -)x2 3x2 +")
    }

    func testFillOverTheSelectionUsesOnlySelectedMarkers() throws {
        let code = PatternCode(items: [.sequence([.symbol(.clip(1), times: 1), .symbol(.rest, times: 1)], times: 2),
                                       .symbol(.clip(3), times: 2), .symbol(.hold, times: 1)],
                               source: "(1 -)x2 3x2 +")
        let s = Fixture.session([[0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]])
        let ids = s.document.tracks[0].markers.map(\.id)
        s.selection[0] = Set(ids[1...7])
        s.cursor = 0.65
        try s.run(.fill(code))
        XCTAssertEqual(s.contents(), [nil, .clip(1), .rest, .clip(1), .rest, .clip(3), .clip(3), .hold, nil])
    }

    func testFillDropsTokensPastTheLastMarkerAndSaysHowMany() throws {
        let s = Fixture.session([[0, 0.5, 1]])
        s.cursor = 0.5
        let message = try s.run(.fill(Fixture.code([.random, .clip(2), .clip(3), .clip(4)], source: "? 2 3 4")))
        XCTAssertEqual(s.contents(), [nil, .random, .clip(2)])
        XCTAssertEqual(message, "filled 2; dropped 2 tokens past the last marker")
    }

    func testFillWithNoMarkerAfterTheCursorIsRefused() {
        let s = Fixture.session([[0, 0.5]])
        s.cursor = 2
        XCTAssertThrowsError(try s.run(.fill(Fixture.code([.clip(1)]))))
        XCTAssertFalse(s.canUndo)
    }
}
