import Foundation
import TemperaAudio
import TemperaCore
import TemperaTestSupport
import XCTest

/// `tempera render` and `tempera play`, run as the user runs them.
final class AudioCommandLineTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = TestPaths.temporaryDirectory("cli") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func clickDocumentFile() throws -> (Document, String) {
        let click = try Fixture.wav(Fixture.block(frames: 200, level: 0.5), in: dir, name: "click.wav")
        _ = click
        let doc = Fixture.document(tracks: [[(0, .clip(1)), (0.3, .clip(1)), (0.7071, .clip(1))]],
                                   slots: [ClipSlot(file: "click.wav")], tempo: 1.2, span: 1)
        let path = dir + "/clicks.tempera"
        try DocumentFile.save(doc, to: path)
        return (try DocumentFile.load(path), path)
    }

    func testRenderHasTheMetronomeOnlyWithClick() throws {
        var doc = MetronomeTests.silentDocument(beat: 0.5, meter: 4, tempo: 1, loop: (0, 2), countIn: 1)
        // The document asks for the click (the editor's setting); the command line decides by its flag.
        doc.transport.click = true
        let path = dir + "/metronome.tempera"
        try DocumentFile.save(doc, to: path)
        let plain = try TemperaProgram.run(["render", path, "-o", dir + "/plain.wav", "--bits", "32f", "--tail", "0"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let silent = try AudioFile.read(dir + "/plain.wav")
        XCTAssertEqual(silent.samples.count, 2 * 96_000)
        XCTAssertTrue(silent.samples.allSatisfy { $0 == 0 })
        let clicked = try TemperaProgram.run(["render", path, "-o", dir + "/click.wav", "--bits", "32f", "--tail", "0", "--click"])
        XCTAssertEqual(clicked.status, 0, clicked.stderr)
        let file = try AudioFile.read(dir + "/click.wav")
        // A bar of count-in, then the bar: a click every 24000 frames, accents on 0 and 96000.
        XCTAssertEqual(file.samples.count, 2 * 192_000)
        let starts = Onsets.soundStarts(file.samples)
        XCTAssertEqual(starts, (0..<8).map { $0 * 24_000 })
        XCTAssertEqual(MetronomeTests.accents(file.samples, at: starts), (0..<8).map { $0 % 4 == 0 })
    }

    func testRenderWritesTheOfflineRenderToAFile() throws {
        let (doc, path) = try clickDocumentFile()
        let run = try TemperaProgram.run(["render", path, "-o", dir + "/out.wav", "--loops", "3", "--bits", "32f"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "", "no progress bar when stderr is not a terminal")
        let file = try AudioFile.read(dir + "/out.wav")
        XCTAssertEqual(file.channels, 2)
        XCTAssertEqual(file.sampleRate, 48_000)
        let expected = OfflineRenderer(document: doc, baseDirectory: dir, loops: 3).renderAll()
        assertSamplesEqual(file.samples, expected)
    }

    func testARenderWithNoTailEndsOnTheLastPassWithAFade() throws {
        let (doc, path) = try clickDocumentFile()
        let run = try TemperaProgram.run(["render", path, "-o", dir + "/out.wav", "--loops", "2", "--bits", "32f", "--tail", "0"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let file = try AudioFile.read(dir + "/out.wav")
        let expected = OfflineRenderer(document: doc, baseDirectory: dir, loops: 2, maxTail: 0).renderAll()
        XCTAssertEqual(file.samples.count / 2, Int(Schedule(document: doc, sampleRate: 48_000).frame(pass: 2, time: 0)))
        assertSamplesEqual(file.samples, expected)
    }

    func testRenderAtAnotherRateAndAsFlac() throws {
        let (doc, path) = try clickDocumentFile()
        let run = try TemperaProgram.run(["render", path, "-o", dir + "/out.flac", "--sample-rate", "44100", "--tail", "0"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let file = try AudioFile.read(dir + "/out.flac")
        XCTAssertEqual(file.sampleRate, 44_100)
        XCTAssertEqual(file.samples.count / 2, Int(Schedule(document: doc, sampleRate: 44_100).frame(pass: 1, time: 0)))
    }

    func testBadRenderOptionsGiveOneLine() throws {
        let (_, path) = try clickDocumentFile()
        let run = try TemperaProgram.run(["render", path, "-o", dir + "/out.flac", "--bits", "32f"])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "tempera: FLAC holds 16 or 24 bits, not 32f\n")
    }

    func testAnUnwritableOutputIsOneLineNamingIt() throws {
        let (_, path) = try clickDocumentFile()
        let out = dir + "/no-such-folder/out.wav"
        let run = try TemperaProgram.run(["render", path, "-o", out])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "tempera: cannot write '\(out)': the folder '\(dir)/no-such-folder' does not exist\n")
    }

    func testAMissingSampleIsNamedAndTheRenderStillHappens() throws {
        var (doc, path) = try clickDocumentFile()
        doc.slots[1] = ClipSlot(file: "gone.wav")
        try DocumentFile.save(doc, to: path)
        let run = try TemperaProgram.run(["render", path, "-o", dir + "/out.wav"])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.stderr, "tempera: slot 2: gone.wav: file not found (\(dir)/gone.wav)\n")
    }

    func testTheKitGeneratorIsDeterministic() throws {
        let exe = TestPaths.packageRoot + "/.build/debug/tempera-kit"
        guard FileManager.default.isExecutableFile(atPath: exe) else { throw XCTSkip("build tempera-kit first") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = [dir + "/kit"]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        for name in Document.kitNames + ["note"] {
            let fresh = try Data(contentsOf: URL(fileURLWithPath: dir + "/kit/\(name).wav"))
            let shipped = try Data(contentsOf: URL(fileURLWithPath: TestPaths.kitDirectory + "/\(name).wav"))
            XCTAssertEqual(fresh, shipped, "\(name).wav: regenerate the kit with `make kit` and commit it")
        }
    }

    func testPlayWithNoServerSaysSoInOneLineWithinTwoSeconds() throws {
        let (_, path) = try clickDocumentFile()
        let run = try TemperaProgram.run(["play", path], environment: ["PULSE_SERVER": "unix:\(dir)/no-such-socket"])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "tempera: no PulseAudio server (Connection refused)\n")
        XCTAssertLessThan(run.seconds, 2)
    }

    func testPlayPlaysThroughTheServerAndExits() throws {
        let (doc, path) = try clickDocumentFile()
        let server = try PulseTestServer()
        defer { server.stop() }
        let recording = dir + "/rec.wav"
        let recorder = try server.record(to: recording)
        usleep(800_000)
        let run = try TemperaProgram.run(["play", path, "--loops", "2"], environment: ["PULSE_SERVER": server.address])
        usleep(200_000)
        PulseTestServer.finish(recorder)
        XCTAssertEqual(run.status, 0, run.stderr)
        // Every onset was played (exact frames are checked in-process, where the test can wait for the server's
        // first-write stall to pass before playing; the command line plays at once).
        let rec = try AudioFile.read(recording).samples
        let expected = Schedule(document: doc, sampleRate: 48_000).onsets(loops: 2).map { Int($0.frame) }
        XCTAssertEqual(expected.count, 6)
        XCTAssertEqual(Onsets.soundStarts(rec).count, expected.count)
    }
}
