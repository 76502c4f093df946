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

    /// The layers: the terminal reaches the player through its interface and files through the application core
    /// (TemperaStudio), never the engine, the kits, the net or a C library other than curses; TemperaApp (the
    /// subcommands' editor, pads) never the engine, the kits or a C library. Every form of import counts
    /// (`internal import`, `@preconcurrency import`, `@_exported import`, `import struct M.T`...), and every C
    /// module the manifest declares. (SwiftPM lets a target import any module the package has built, so a stray
    /// import would compile; this keeps it out.)
    func testTheTerminalAndTheAppReachTheEngineKitsAndNetOnlyThroughTheCore() throws {
        let root = TestPaths.packageRoot
        let manifest = try String(contentsOfFile: root + "/Package.swift", encoding: .utf8)
        let cModules = Self.declaredCModules(manifest)
        XCTAssertTrue(Set(["CJack", "CAubio", "CPulse", "CNcursesw", "CLink", "CAllocCounter"]).isSubset(of: cModules),
                      "\(cModules.sorted())")
        let rules: [(target: String, allowed: Set<String>, forbidden: Set<String>)] = [
            ("TemperaTerminal", ["CNcursesw"], Set(["TemperaAudio", "TemperaKits", "TemperaNet", "TemperaXML", "TemperaApp"])
                .union(cModules.subtracting(["CNcursesw"]))),
            ("TemperaApp", [], Set(["TemperaAudio", "TemperaKits", "TemperaXML"]).union(cModules)),
        ]
        for rule in rules {
            let folder = root + "/Sources/" + rule.target
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
            XCTAssertGreaterThan(files.count, rule.target == "TemperaApp" ? 2 : 20)
            var seen: Set<String> = []
            for file in files {
                for module in Self.importedModules(try String(contentsOfFile: folder + "/" + file, encoding: .utf8)) {
                    seen.insert(module)
                    XCTAssertFalse(rule.forbidden.contains(module), "\(rule.target)/\(file) imports \(module)")
                }
            }
            XCTAssertTrue(seen.contains("TemperaCore"), "\(rule.target): the import reader found \(seen.sorted())")
            let dependencies = try XCTUnwrap(Self.dependencies(of: rule.target, in: manifest), rule.target)
            for module in dependencies {
                XCTAssertFalse(rule.forbidden.contains(module), "\(rule.target) depends on \(module) in Package.swift")
            }
        }
        XCTAssertTrue(try XCTUnwrap(Self.dependencies(of: "TemperaTerminal", in: manifest)).contains("TemperaStudio"))
    }

    /// The import reader sees every form of import, and nothing that only looks like one.
    func testTheImportReaderSeesEveryFormOfImport() {
        let text = """
            import Foundation
            internal import TemperaAudio
            @preconcurrency import CJack
            @_exported import TemperaKits
            @testable import TemperaNet
            public import struct CAubio.fvec_t
            @preconcurrency internal import CPulse
              import CLink
            // import CSndfile
            let important = 1
            """
        XCTAssertEqual(Self.importedModules(text), ["Foundation", "TemperaAudio", "CJack", "TemperaKits", "TemperaNet",
                                                    "CAubio", "CPulse", "CLink"])
    }

    /// The modules a Swift file imports, whatever the form (attributes, access level, `import kind M.T`).
    static func importedModules(_ text: String) -> [String] {
        var out: [String] = []
        for raw in text.split(separator: "\n") {
            var words = raw.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") || ["public", "package", "internal", "fileprivate", "private"].contains(first) {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { continue }
            words.removeFirst()
            if ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"].contains(words[0]), words.count >= 2 {
                words.removeFirst()
            }
            out.append(String(words[0].split(separator: ".")[0]))
        }
        return out
    }

    /// Every C module the manifest declares: system libraries and targets whose name starts with C and a capital.
    static func declaredCModules(_ manifest: String) -> Set<String> {
        var out: Set<String> = []
        for part in manifest.components(separatedBy: "name: \"").dropFirst() {
            let name = String(part.prefix { $0 != "\"" })
            if name.count > 1, name.hasPrefix("C"), name.dropFirst().first!.isUppercase { out.insert(name) }
        }
        return out
    }

    /// The quoted names in a target's `dependencies:` list (up to the target's closing parenthesis).
    static func dependencies(of target: String, in manifest: String) -> [String]? {
        guard let start = manifest.range(of: ".target(name: \"\(target)\"") else { return nil }
        var depth = 1, text = ""
        for c in manifest[start.upperBound...] {
            if c == "(" { depth += 1 }
            if c == ")" { depth -= 1; if depth == 0 { break } }
            text.append(c)
        }
        return text.components(separatedBy: "\"").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }
}
