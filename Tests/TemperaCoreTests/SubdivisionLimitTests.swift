import XCTest
@testable import TemperaCore

/// The subdivision limit of a marker and `tempera analyse`'s line.
final class SubdivisionLimitTests: XCTestCase {
    func testASwungOffBeatAtTwoThirdsOfABeatIsATripletOnTheGrid() {
        let limit = SubdivisionLimit(time: 1.0 / 3, beat: 0.5, meter: 4, tempo: 1)
        XCTAssertEqual(limit, SubdivisionLimit(bar: 1, beat: 1, n: 3, k: 2, deviation: limit.deviation, onGrid: true))
        XCTAssertEqual(limit.deviationMs, 0.0)
        XCTAssertEqual(limit.json(track: 1, time: 1.0 / 3),
                       "{\"track\":1,\"t\":0.333333,\"bar\":1,\"beat\":1,\"n\":3,\"k\":2,\"dev_ms\":0.0,\"on_grid\":true}")
        XCTAssertEqual(limit.label, "beat 1 + 2/3 (0.0 ms)")
    }

    func testAMarkerTenMillisecondsLateOfAnEighthReportsTheDeviationToATenth() {
        // Beat 2 of bar 2 plus an eighth (1/2 beat), 10 ms late: outside the JND, so the closest n wins (2, not 4).
        let t = 2.5 + 0.25 + 0.010
        let limit = SubdivisionLimit(time: t, beat: 0.5, meter: 4, tempo: 1)
        XCTAssertEqual([limit.bar, limit.beat, limit.n, limit.k], [2, 2, 2, 1])
        XCTAssertEqual(limit.deviationMs, 10.0)
        XCTAssertFalse(limit.onGrid)
        XCTAssertEqual(limit.json(track: 3, time: t),
                       "{\"track\":3,\"t\":2.760000,\"bar\":2,\"beat\":2,\"n\":2,\"k\":1,\"dev_ms\":10.0,\"on_grid\":false}")
        XCTAssertEqual(limit.label, "beat 2 + 1/2 (+10.0 ms)")
    }

    func testTheDeviationIsInPlaybackSecondsAtTheTempo() {
        // 10 ms late at x1 is 5 ms at x2: inside the JND, so the eighth is on the grid.
        let limit = SubdivisionLimit(time: 0.26, beat: 0.5, meter: 4, tempo: 2)
        XCTAssertEqual([limit.n, limit.k], [2, 1])
        XCTAssertEqual(limit.deviationMs, 5.0)
        XCTAssertTrue(limit.onGrid)
    }

    func testEarlyIsNegativeAndShownWithAMinusSign() {
        let limit = SubdivisionLimit(time: 1.5 - 0.0012, beat: 0.5, meter: 4, tempo: 1)
        XCTAssertEqual([limit.bar, limit.beat, limit.n, limit.k], [1, 4, 1, 0])
        XCTAssertEqual(limit.deviationMs, -1.2)
        XCTAssertEqual(limit.label, "beat 4 (\u{2212}1.2 ms)")
    }

    func testRoundingUpToTheNextBeatCountsAsItsFirstPosition() {
        // 3 ms before bar 2: beat 1 of bar 2, k = 0.
        let limit = SubdivisionLimit(time: 2 - 0.003, beat: 0.5, meter: 4, tempo: 1)
        XCTAssertEqual([limit.bar, limit.beat, limit.n, limit.k], [2, 1, 1, 0])
        XCTAssertEqual(limit.deviationMs, -3.0)
    }

    func testFarFromEverySubdivisionTakesTheClosestTiesToTheSmallerN() {
        // p = 0.52 beats: n = 2, 4, 6 and 8 all miss by 0.02 beats (10 ms); 2 wins.
        let limit = SubdivisionLimit(time: 0.26, beat: 0.5, meter: 4, tempo: 1)
        XCTAssertEqual(limit.n, 2)
        // A quintuplet position: n = 5.
        XCTAssertEqual(SubdivisionLimit(time: 0.3, beat: 0.5, meter: 4, tempo: 1).n, 5)
        // Six ms exactly still counts as on the grid.
        XCTAssertTrue(SubdivisionLimit(time: 0.506, beat: 0.5, meter: 4, tempo: 1).onGrid)
    }
}
