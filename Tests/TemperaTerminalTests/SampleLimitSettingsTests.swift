import TemperaTerminal
import XCTest

/// The editor's settings file sets the sample limits (`max-sample-seconds`, `max-sample-mb`).
final class SampleLimitSettingsTests: XCTestCase {
    func testTheSettingsFileSetsTheSampleLimits() throws {
        let s = try Settings.parse("max-sample-seconds = 1200\nmax-sample-mb = 2048\n", file: "config")
        XCTAssertEqual(s.maxSampleSeconds, 1200)
        XCTAssertEqual(s.maxSampleMB, 2048)
        XCTAssertNil(Settings().maxSampleSeconds)
        XCTAssertThrowsError(try Settings.parse("max-sample-seconds = -1\n", file: "config")) {
            XCTAssertEqual("\($0)", "config:1: max-sample-seconds is a positive number (got '-1')")
        }
    }
}
