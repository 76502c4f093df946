import XCTest
@testable import TemperaTerminal
import TemperaCore

final class LayoutTests: XCTestCase {
    func testBelowMinimumSizeDrawsOneCentredMessage() {
        let canvas = render(Session(document: .demo()), width: 60, height: 15)
        let message = "terminal too small: 60x15 (needs at least 80x24)"
        XCTAssertEqual(canvas.line(7), String(repeating: " ", count: 6) + message + String(repeating: " ", count: 6))
        XCTAssertEqual(canvas.text.split(separator: "\n", omittingEmptySubsequences: true).count, 1)
        XCTAssertEqual(canvas.role(of: "terminal", inRow: 7), .warning)
    }

    func testOneColumnShortOfMinimumIsTooSmall() {
        let canvas = render(Session(document: .demo()), width: 79, height: 24)
        XCTAssertTrue(canvas.text.contains("terminal too small: 79x24 (needs at least 80x24)"))
    }

    func testTinyScreenGetsShortMessageWithoutCrashing() {
        let canvas = render(Session(document: .demo()), width: 20, height: 3)
        XCTAssertEqual(canvas.line(1), "  too small: 20x3   ")
    }

    func testEightyByTwentyFourFitsTheDemoFiveTracksOfTwoRows() {
        let l = Layout(width: 80, height: 24, trackCount: 5)
        XCTAssertTrue(l.fits)
        XCTAssertEqual(l.rowsPerTrack, 2)
        XCTAssertEqual(l.visibleTracks, 5)
        XCTAssertEqual(l.timeline, Rect(x: 12, y: 4, width: 67, height: 10))
        XCTAssertEqual(l.toolsTitleRow, 14)
        XCTAssertEqual(l.tools, Rect(x: 2, y: 15, width: 43, height: 7))
        XCTAssertEqual(l.tabs, Rect(x: 47, y: 15, width: 31, height: 7))
        XCTAssertEqual(l.bottomBorderRow, 22)
        XCTAssertEqual(l.status.y, 23)
    }

    func testEightyByTwentyFourDrawsAllFourAreas() {
        let canvas = render(Session(document: .demo()))
        XCTAssertTrue(canvas.line(0).hasPrefix("┌─ transport ─ untitled "))
        XCTAssertTrue(canvas.line(2).hasPrefix("├─ timeline ─ cursor 0.000 s"))
        XCTAssertTrue(canvas.line(4).hasPrefix("│▸1 kick   │█"))
        XCTAssertTrue(canvas.line(12).hasPrefix("│ 5 canon  │"))
        XCTAssertTrue(canvas.line(14).hasPrefix("├─ tools ─"))
        XCTAssertTrue(canvas.line(14).contains("┬─[clips] groups rhythm song pads─┤"))
        XCTAssertTrue(canvas.line(22).hasPrefix("└"))
        XCTAssertTrue(canvas.line(22).hasSuffix("┘"))
        XCTAssertEqual(canvas.line(22).filter { $0 == "┴" }.count, 1)
    }

    func testOneHundredTwentyByFortyGivesTracksFiveRows() {
        let l = Layout(width: 120, height: 40, trackCount: 5)
        XCTAssertEqual(l.rowsPerTrack, 5)
        XCTAssertEqual(l.barRows, 4)
        XCTAssertEqual(l.timeline, Rect(x: 12, y: 4, width: 107, height: 25))
        XCTAssertEqual(l.tools.width, 69)
        let canvas = render(Session(document: .demo()), width: 120, height: 40)
        XCTAssertTrue(canvas.line(4).hasPrefix("│▸1 kick   │"))
        XCTAssertTrue(canvas.line(9).hasPrefix("│ 2 snare  │"))
        XCTAssertTrue(canvas.line(39).contains("track 1/5 kick"))
    }

    func testFewTracksGetAtMostEightRows() {
        let l = Layout(width: 80, height: 40, trackCount: 1)
        XCTAssertEqual(l.rowsPerTrack, 8)
        XCTAssertEqual(l.visibleTracks, 1)
    }

    func testCurrentTrackBelowTheViewScrollsIntoViewAsLastRow() {
        let l = Layout(width: 80, height: 24, trackCount: 9, currentTrack: 7, trackScroll: 0)
        XCTAssertEqual(l.visibleTracks, 5)
        XCTAssertEqual(l.firstTrack, 3)
        XCTAssertNil(l.rows(ofTrack: 2))
        XCTAssertEqual(l.rows(ofTrack: 7)?.y, 4 + 4 * 2)
    }

    func testScrollPastTheLastPageIsClamped() {
        let l = Layout(width: 80, height: 24, trackCount: 9, currentTrack: 8, trackScroll: 20)
        XCTAssertEqual(l.firstTrack, 4)
    }

    func testScrolledTracksAreCountedInTheTimelineTitle() {
        let doc = document(Array(repeating: [(0.0, 1.0, Content?.none)], count: 9))
        let session = Session(document: doc)
        session.currentTrack = 6
        let canvas = render(session)
        XCTAssertTrue(canvas.line(2).hasSuffix(" tracks 3–7 of 9 ─┤"))
        XCTAssertTrue(canvas.line(4).hasPrefix("│ 3 t3"))
    }

    func testTrackAtRowNamesTrackAndRowInside() {
        let l = Layout(width: 80, height: 24, trackCount: 5)
        XCTAssertEqual(l.track(atRow: 7)?.track, 1)
        XCTAssertEqual(l.track(atRow: 7)?.row, 1)
        XCTAssertNil(l.track(atRow: 3))
        XCTAssertNil(l.track(atRow: 14))
    }
}
