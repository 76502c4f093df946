import TemperaTestSupport
import XCTest

/// `DisturbedRunsTestCase`: which runs are made again, and which failures are recorded.
final class DisturbedRunsTests: DisturbedRunsTestCase {
    private var recorded: [String] = []

    override func recordReleased(description: String, file: String, line: Int, expected: Bool) {
        recorded.append(description)
    }

    func testAFailedDisturbedRunIsMadeAgainAndAPassingOneEndsIt() throws {
        var runs: [Int] = []
        try runAgainWhenDisturbed("example", times: 5) { run in
            runs.append(run.attempt)
            run.disturbed("an underrun")
            XCTAssertGreaterThanOrEqual(run.attempt, 3)
        }
        XCTAssertEqual(runs, [1, 2, 3])
        XCTAssertEqual(recorded, [])
    }

    func testAFailedUndisturbedRunRecordsItsFailuresAndEnds() throws {
        var runs = 0
        try runAgainWhenDisturbed("example", times: 5) { run in
            runs += 1
            XCTFail("off by 2 ms")
            XCTFail("a pad missing")
        }
        XCTAssertEqual(runs, 1)
        XCTAssertEqual(recorded.count, 2)
        XCTAssertTrue(recorded[0].contains("off by 2 ms") && recorded[1].contains("a pad missing"), "\(recorded)")
    }

    func testTheLastRunRecordsItsFailuresEvenDisturbed() throws {
        var runs = 0
        try runAgainWhenDisturbed("example", times: 3) { run in
            runs += 1
            run.disturbed("a key fed late")
            XCTFail("run \(run.attempt)")
        }
        XCTAssertEqual(runs, 3)
        XCTAssertEqual(recorded.count, 1)
        XCTAssertTrue(recorded[0].contains("run 3"), "\(recorded)")
    }

    func testAnErrorThrownEndsAtOnceWithTheFailuresSoFar() {
        struct Broken: Error {}
        var runs = 0
        XCTAssertThrowsError(try runAgainWhenDisturbed("example", times: 3) { run in
            runs += 1
            run.disturbed("an underrun")
            XCTFail("before the error")
            throw Broken()
        })
        XCTAssertEqual(runs, 1)
        XCTAssertEqual(recorded.count, 1)
    }
}
