import CJack
import CPulse
import Foundation
import TemperaCore
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

    /// A render of samples opens no SoundFont synthesiser: the libraries the dynamic loader opens while it runs
    /// (its `LD_DEBUG=files` log) do not include FluidSynth.
    func testARenderWithoutSoundFontsDoesNotOpenFluidSynth() throws {
        let dir = TestPaths.temporaryDirectory("startup-render")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Fixture.wav((0..<4_800).map { Float(0.5 * sin(Double($0) / 10)) }, in: dir, name: "hit.wav")
        let path = dir + "/doc.tempera"
        try DocumentFile.save(Fixture.document(tracks: [[(0.1, .clip(1))]], slots: [ClipSlot(file: clip)]), to: path)
        let run = Spawn.run(TestPaths.binary, ["render", path, "-o", dir + "/out.wav"],
                            environment: ["LD_DEBUG": "files", "XDG_CACHE_HOME": dir + "/cache"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/out.wav"))
        // The loader's log is there (the render's own libraries), and FluidSynth is not in it.
        XCTAssertTrue(run.stderr.contains("libsndfile"), run.stderr)
        XCTAssertFalse(run.stderr.contains("libfluidsynth"), "a render of samples opened FluidSynth")
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
