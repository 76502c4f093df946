import XCTest
import TemperaCore

final class EuclidTests: XCTestCase {
    func testThreeInEightIsTresillo() throws {
        XCTAssertEqual(try Euclid.string(k: 3, n: 8), "x..x..x.")
        XCTAssertEqual(try Euclid.beats(k: 3, n: 8), [0, 3, 6])
    }

    func testFiveInEightIsCinquillo() throws {
        XCTAssertEqual(try Euclid.string(k: 5, n: 8), "x.xx.xx.")
    }

    func testFiveInThirteenAsToussaintListsIt() throws {
        XCTAssertEqual(try Euclid.string(k: 5, n: 13), "x..x.x..x.x..")
        XCTAssertEqual(try Euclid.beats(k: 5, n: 13), [0, 3, 5, 8, 10])
    }

    func testMoreOfToussaintsTable() throws {
        XCTAssertEqual(try Euclid.string(k: 2, n: 5), "x.x..")
        XCTAssertEqual(try Euclid.string(k: 3, n: 4), "x.xx")
        XCTAssertEqual(try Euclid.string(k: 4, n: 9), "x.x.x.x..")
        XCTAssertEqual(try Euclid.string(k: 5, n: 7), "x.xx.xx")
        XCTAssertEqual(try Euclid.string(k: 7, n: 12), "x.xx.x.xx.x.")
        XCTAssertEqual(try Euclid.string(k: 5, n: 16), "x..x..x..x..x...")
        XCTAssertEqual(try Euclid.string(k: 4, n: 5), "x.xxx")
        XCTAssertEqual(try Euclid.string(k: 1, n: 4), "x...")
    }

    func testEmptyAndFullPatterns() throws {
        XCTAssertEqual(try Euclid.string(k: 0, n: 4), "....")
        XCTAssertEqual(try Euclid.string(k: 4, n: 4), "xxxx")
        XCTAssertEqual(try Euclid.string(k: 1, n: 1), "x")
    }

    func testRotationTurnsThePatternLeft() throws {
        XCTAssertEqual(try Euclid.string(k: 3, n: 8, rotation: 1), "..x..x.x")
        XCTAssertEqual(try Euclid.string(k: 3, n: 8, rotation: 3), "x..x.x..")
        XCTAssertEqual(try Euclid.string(k: 3, n: 8, rotation: -1), ".x..x..x")
        XCTAssertEqual(try Euclid.string(k: 3, n: 8, rotation: 8), "x..x..x.")
        XCTAssertEqual(try Euclid.beats(k: 5, n: 7, rotation: -1), [0, 1, 3, 4, 6])
    }

    func testBadArgumentsAreRefusedInOneLine() {
        XCTAssertThrowsError(try Euclid.pattern(k: 9, n: 8)) { error in
            XCTAssertEqual((error as? CommandError)?.message, "euclid(9): k must be 0-8 for 8 pulses")
        }
        XCTAssertThrowsError(try Euclid.pattern(k: 1, n: 0)) { error in
            XCTAssertEqual((error as? CommandError)?.message, "euclid: the subdivision must be at least 1 (got 0)")
        }
    }
}
