import CJack
import CPulse
import Foundation
import TemperaTestSupport
import XCTest

/// The program starts without the libraries only some documents or commands need: FluidSynth (and the sixty
/// libraries it brings) is opened when a SoundFont note is first rendered, libaubio when onsets are first detected,
/// libpulse and libjack when a player first reaches their server.
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

    func testTheProgramStartsWithoutPulseAudioOrJack() {
        let libraries = loadedLibraries()
        for name in ["libpulse", "libjack", "libdbus", "libsystemd", "libdb-"] {
            XCTAssertFalse(libraries.contains { $0.hasPrefix(name) }, "\(name) in \(libraries)")
        }
        XCTAssertLessThan(libraries.count, 45)
    }

    /// What the functions defined over the opened libraries reach: the libraries themselves, opened once.
    func testTheLibrariesOpenOnFirstUse() {
        XCTAssertNil(CPulse_load().map { String(cString: $0) })
        XCTAssertNil(CJack_load().map { String(cString: $0) })
        XCTAssertNotNil(pa_strerror(Int32(PA_ERR_CONNECTIONREFUSED.rawValue)))
        XCTAssertEqual(String(cString: pa_strerror(Int32(PA_ERR_CONNECTIONREFUSED.rawValue))), "Connection refused")
        XCTAssertGreaterThan(jack_client_name_size(), 0)
    }
}
