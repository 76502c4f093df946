import Foundation
import TemperaTestSupport
import XCTest

/// The program starts without the libraries only some documents need: FluidSynth (and the sixty libraries it
/// brings) is opened when a SoundFont note is first rendered, as libaubio is when onsets are first detected.
final class StartupTests: XCTestCase {
    /// The libraries the dynamic loader maps for `tempera` before it runs (what ldd lists).
    func loadedLibraries() -> [String] {
        let run = Spawn.run(TestPaths.binary, ["--version"], environment: ["LD_TRACE_LOADED_OBJECTS": "1"])
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    func testTheProgramStartsWithoutFluidSynthOrLibaubio() {
        let libraries = loadedLibraries()
        XCTAssertTrue(libraries.contains { $0.hasPrefix("libsndfile") }, "\(libraries)")
        XCTAssertFalse(libraries.contains { $0.contains("fluidsynth") }, "\(libraries)")
        XCTAssertFalse(libraries.contains { $0.contains("libSDL2") }, "\(libraries)")
        XCTAssertFalse(libraries.contains { $0.contains("aubio") }, "\(libraries)")
        print("tempera maps \(libraries.count) libraries at start")
        XCTAssertLessThan(libraries.count, 60)
    }
}
