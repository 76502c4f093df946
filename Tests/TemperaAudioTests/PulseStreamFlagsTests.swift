import CPulse
import XCTest
@testable import TemperaAudio

/// The pulse stream's flags by server: on PulseAudio the sink's latency is adjusted to the buffer asked for; on
/// PipeWire's pulse server it is not (the adjustment moved the stream against other clients there), and the
/// timing is kept up to date and interpolated on both. The server is told by the name it gives; PipeWireTests
/// reads the name a real PipeWire gives.
final class PulseStreamFlagsTests: XCTestCase {
    func testTheLatencyIsAdjustedOnPulseAudioOnly() {
        let timing = PA_STREAM_AUTO_TIMING_UPDATE.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue
        XCTAssertEqual(pulseStreamFlags(onPipeWire: false).rawValue, timing | PA_STREAM_ADJUST_LATENCY.rawValue)
        XCTAssertEqual(pulseStreamFlags(onPipeWire: true).rawValue, timing)
    }

    func testPipeWireIsToldByItsServersName() {
        XCTAssertTrue(pulseServerIsPipeWire("PulseAudio (on PipeWire 0.3.65)"))
        XCTAssertFalse(pulseServerIsPipeWire("pulseaudio"))
    }
}
