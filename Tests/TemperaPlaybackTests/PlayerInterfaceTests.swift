import Foundation
import TemperaAudio
import TemperaCore
import TemperaPlayback
import TemperaTestSupport
import XCTest

/// The player as the editor sees it: one snapshot of its state a look, and a terminal that reaches the engine
/// only through `Player`.
final class PlayerInterfaceTests: XCTestCase {
    /// One empty track: the state does not depend on what sounds.
    func document(tempo: Double = 1) -> Document {
        Document(tracks: [Track(name: "t1", markers: MarkerList([]))], slots: (0..<16).map { _ in ClipSlot() },
                 transport: Transport(tempo: tempo, volume: 1, loopStart: 0, loopEnd: 1, loopOn: true, length: 1))
    }

    func testTheSnapshotSaysWhatTheEngineSaysFieldByField() {
        let engine = AudioEngine(output: .null)
        let player: any Player = engine
        var s = player.state
        XCTAssertEqual(s.backend, "null")
        XCTAssertEqual(s.output, .off)
        XCTAssertEqual(s.outputProblem, "audio off")
        XCTAssertNil(s.latencyMs)
        XCTAssertFalse(s.isPlaying)

        player.load(document: document(tempo: 1.5), baseDirectory: nil)
        player.start()
        s = player.state
        XCTAssertEqual(s.output, .running(latencyMs: 0))
        XCTAssertEqual(s.latencyMs, 0)
        XCTAssertNil(s.outputProblem)

        player.play()
        XCTAssertTrue(player.state.isPlaying, "at once, before the audio thread took the command")
        _ = pump(engine, 15_360)                 // 0.32 s of output at tempo 1.5: 0.48 s of music
        player.pause()
        s = player.state
        XCTAssertFalse(s.isPlaying)
        XCTAssertEqual(s.position, 0.48, accuracy: 1e-9)
        XCTAssertEqual(s.position, engine.position)
        XCTAssertEqual(s.underruns, 0)
        XCTAssertNil(s.song, "the loop plays")
        XCTAssertNil(s.countInBeatsLeft)
        XCTAssertFalse(s.isCountingIn)
        XCTAssertNil(s.link)
        XCTAssertFalse(s.isLoading)

        player.stop()
        XCTAssertEqual(player.state.output, .off)
    }

    func testTheSongsPlaceComesInTheSnapshot() throws {
        let engine = AudioEngine(output: .null)
        var doc = document()
        doc.song = Song(sections: [Song.Section(name: "a", start: 0, end: 1, repeats: 2),
                                   Song.Section(name: "b", start: 0, end: 0.5)], on: true)
        engine.load(document: doc, baseDirectory: nil)
        engine.start()
        engine.play()
        _ = pump(engine, 49_920)                 // 1.04 s: the first section's second pass
        XCTAssertEqual(engine.state.song, SongPosition(section: 0, pass: 1, songPass: 0))
        _ = pump(engine, 48_000)                 // 2.04 s: the second section
        XCTAssertEqual(engine.state.song, SongPosition(section: 1, pass: 0, songPass: 0))
    }

    func testAnOutputThatCannotBeReachedIsSaidInOneLine() {
        var s = PlayerState()
        s.output = .unavailable("PulseAudio server stalled (it took no audio for 2 s)")
        XCTAssertEqual(s.outputProblem, "audio server stalled")
        s.output = .unavailable("Connection refused")
        XCTAssertEqual(s.outputProblem, "no audio server")
        s.output = .connecting
        XCTAssertEqual(s.outputProblem, "connecting to audio")
    }

    /// The terminal module must build without the engine: no file of it imports TemperaAudio or a C audio
    /// library, and its target depends on the interface only. (SwiftPM finds every module built in the package,
    /// so a stray import would compile; this keeps it out.)
    func testTheTerminalReachesThePlayerOnlyThroughItsInterface() throws {
        let root = TestPaths.packageRoot
        let folder = root + "/Sources/TemperaTerminal"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 20)
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@testable import ")
                || line.hasPrefix("@_exported import ") {
                for forbidden in ["TemperaAudio", "CPulse", "CSndfile", "CSamplerate", "CFluidSynth", "CLink"] {
                    XCTAssertFalse(line.hasSuffix(" " + forbidden), "\(file): \(line)")
                }
            }
        }
        let manifest = try String(contentsOfFile: root + "/Package.swift", encoding: .utf8)
        let target = try XCTUnwrap(manifest.split(separator: "\n").first { $0.contains(".target(name: \"TemperaTerminal\"") })
        XCTAssertFalse(target.contains("TemperaAudio"), String(target))
        XCTAssertTrue(target.contains("TemperaPlayback"), String(target))
    }
}
