import XCTest
@testable import TemperaTerminal

final class ViewportTests: XCTestCase {
    func testTimeOnAColumnEdgeBelongsToThatColumnDespiteRounding() {
        let vp = Viewport(start: 0, secondsPerColumn: 0.1)
        // 0.3 / 0.1 is 2.9999999999999996 in binary floating point.
        XCTAssertEqual(vp.column(of: 0.3), 3)
        XCTAssertEqual(vp.column(of: 0.29), 2)
        XCTAssertEqual(vp.column(of: -0.05), -1)
    }

    func testPositionCarriesTheSubColumnFraction() {
        let vp = Viewport(start: 1, secondsPerColumn: 0.02)
        XCTAssertEqual(vp.position(of: 1.045), 2.25, accuracy: 1e-9)
        XCTAssertEqual(vp.time(atColumn: 2.25), 1.045, accuracy: 1e-12)
        XCTAssertEqual(vp.time(atColumn: 3), 1.06, accuracy: 1e-12)
        XCTAssertEqual(vp.end(columns: 50), 2, accuracy: 1e-12)
    }

    func testZoomInAboutATimeKeepsThatTimeOnItsColumn() {
        var vp = Viewport(start: 0, secondsPerColumn: 0.02)
        vp.zoomIn(about: 0.4)
        XCTAssertEqual(vp.secondsPerColumn, 0.01)
        XCTAssertEqual(vp.start, 0.2, accuracy: 1e-12)
        XCTAssertEqual(vp.position(of: 0.4), 20, accuracy: 1e-9)
        vp.zoomOut(about: 0.4)
        XCTAssertEqual(vp.start, 0, accuracy: 1e-12)
        XCTAssertEqual(vp.secondsPerColumn, 0.02)
    }

    func testZoomOutNearTheStartNeverShowsNegativeTime() {
        var vp = Viewport(start: 0.1, secondsPerColumn: 0.01)
        vp.zoom(by: 4, about: 0.2)
        XCTAssertEqual(vp.start, 0)
        XCTAssertEqual(vp.secondsPerColumn, 0.04)
    }

    func testZoomStopsAtFinestAndCoarsest() {
        var vp = Viewport(start: 0, secondsPerColumn: 0.001)
        for _ in 0..<10 { vp.zoomIn(about: 0) }
        XCTAssertEqual(vp.secondsPerColumn, Viewport.minSecondsPerColumn)
        for _ in 0..<40 { vp.zoomOut(about: 0) }
        XCTAssertEqual(vp.secondsPerColumn, Viewport.maxSecondsPerColumn)
        XCTAssertEqual(Viewport(secondsPerColumn: 0).secondsPerColumn, Viewport.minSecondsPerColumn)
    }

    func testMarkersThreeMillisecondsApartAreFifteenColumnsApartAtFinestZoom() {
        let vp = Viewport(start: 1, secondsPerColumn: Viewport.minSecondsPerColumn)
        XCTAssertEqual(vp.column(of: 1.003) - vp.column(of: 1.0), 15)
    }

    func testScrollMovesByColumnsAndStopsAtZero() {
        var vp = Viewport(start: 1, secondsPerColumn: 0.05)
        vp.scroll(columns: 10)
        XCTAssertEqual(vp.start, 1.5, accuracy: 1e-12)
        vp.scroll(columns: -100)
        XCTAssertEqual(vp.start, 0)
    }

    func testRevealScrollsJustEnoughToKeepTheMargin() {
        var vp = Viewport(start: 0, secondsPerColumn: 0.1)
        vp.reveal(1.3, columns: 20, margin: 4)
        XCTAssertEqual(vp.start, 0)
        vp.reveal(2.0, columns: 20, margin: 4)
        // Column 15 is the last allowed: 2.0 = start + 15 * 0.1.
        XCTAssertEqual(vp.start, 0.5, accuracy: 1e-12)
        vp.reveal(0.7, columns: 20, margin: 4)
        XCTAssertEqual(vp.start, 0.3, accuracy: 1e-12)
    }

    func testFollowPagesWhenThePlayheadLeavesTheView() {
        var vp = Viewport(start: 0, secondsPerColumn: 0.1)
        vp.follow(1.5, columns: 20)
        XCTAssertEqual(vp.start, 0)
        vp.follow(2.05, columns: 20, margin: 2)
        XCTAssertEqual(vp.start, 1.85, accuracy: 1e-12)
        // A loop wrap sends the playhead back before the view.
        vp.follow(0.1, columns: 20, margin: 2)
        XCTAssertEqual(vp.start, 0)
    }

    func testFittingShowsTheRangeAcrossTheColumns() {
        let vp = Viewport.fitting(0, 2, columns: 80)
        XCTAssertEqual(vp.start, 0)
        XCTAssertEqual(vp.secondsPerColumn, 0.025)
        XCTAssertEqual(vp.column(of: 1.999), 79)
    }
}
